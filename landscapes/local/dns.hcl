# The DNS provider credentials of the garden, in the virtual garden's garden namespace where
# gardenlet looks for them (Gardener's "Configuration" docs/operations/configuration.md): the
# internal domain's, which the seed's wildcard ingress record uses too, and the default domain's.
# The local DNS provider needs no credentials; a real landscape fills data from sensitive variables.
component "manifests" "dns_credentials" {
  cluster = cluster.virtual_garden

  objects = [
    { apiVersion = "v1", kind = "Namespace", metadata = { name = "garden" } },
    {
      apiVersion = "v1"
      kind       = "Secret"
      type       = "Opaque"
      metadata = {
        name      = local.internal_domain.secret_ref
        namespace = "garden"
        labels    = { "gardener.cloud/role" = "internal-domain" }
        annotations = {
          "dns.gardener.cloud/provider" = local.internal_domain.provider_type
          "dns.gardener.cloud/domain"   = local.internal_domain.domain
        }
      }
    },
    {
      apiVersion = "v1"
      kind       = "Secret"
      type       = "Opaque"
      metadata = {
        name      = local.default_domain.secret_ref
        namespace = "garden"
        labels    = { "gardener.cloud/role" = "default-domain" }
        annotations = {
          "dns.gardener.cloud/provider" = local.default_domain.provider_type
          "dns.gardener.cloud/domain"   = local.default_domain.domain
        }
      }
    },
  ]
}
