seed "local" {
  garden  = garden.local
  cluster = cluster.runtime

  provider {
    type   = "local"
    region = "local"
    zones  = ["0"]
  }

  networks {
    pods     = "10.1.0.0/16"
    services = "10.2.0.0/16"
  }

  ingress {
    domain = "ingress.local.seed.${local.domain}"
  }

  dns {
    provider {
      type       = "local"
      secret_ref = local.internal_domain.secret_ref
    }
  }

  # The seed shares the observability stack of the garden in this runtime cluster, which is
  # off on the local control plane (see garden.hcl); its shoots then get no monitoring either.
  observability {
    enabled = false
  }

  # The engine copies the DNS provider's Secret into the seed for its ingress record, so the
  # component rendering it comes first.
  depends_on = [component.manifests.dns_credentials]
}
