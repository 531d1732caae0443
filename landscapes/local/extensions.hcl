# The local provider extension: registered in the virtual garden and installed on the seed, the
# way gardenlet installs a ControllerInstallation (its chart, with Gardener's values mixed in,
# through a ManagedResource into extension-<installation>).
component "extension" "provider_local" {
  virtual_cluster         = cluster.virtual_garden
  name                    = "provider-local"
  chart                   = "./charts/provider-local"
  garden_cluster_identity = garden.local.name
  policy                  = "Always"

  resource "Infrastructure" "local" {}
  resource "ControlPlane" "local" {}
  resource "Worker" "local" {}
  resource "DNSRecord" "local" {}
  resource "BackupBucket" "local" {}
  resource "BackupEntry" "local" {}

  seeds = [{
    name       = seed.local.name
    cluster    = cluster.runtime
    provider   = "local"
    region     = "local"
    has_shoots = true
  }]
}
