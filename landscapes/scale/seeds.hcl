# Three seeds in clusters of their own, each with the full set of seed system components
# (gardener-resource-manager, etcd-druid, VPA, Istio, nginx-ingress, gardenlet).

seed "s1" {
  garden  = garden.scale
  cluster = cluster.seed_1

  # As for the garden: nothing on kwok nodes serves webhooks.
  admission_webhooks = false

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
    domain = "ingress.s1.seed.${local.domain}"
  }

  dns {
    provider {
      type       = "local"
      secret_ref = local.internal_domain.secret_ref
    }
  }

  depends_on = [component.manifests.dns_credentials]
}

seed "s2" {
  garden  = garden.scale
  cluster = cluster.seed_2

  # As for the garden: nothing on kwok nodes serves webhooks.
  admission_webhooks = false

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
    domain = "ingress.s2.seed.${local.domain}"
  }

  dns {
    provider {
      type       = "local"
      secret_ref = local.internal_domain.secret_ref
    }
  }

  depends_on = [component.manifests.dns_credentials]
}

seed "s3" {
  garden  = garden.scale
  cluster = cluster.seed_3

  # As for the garden: nothing on kwok nodes serves webhooks.
  admission_webhooks = false

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
    domain = "ingress.s3.seed.${local.domain}"
  }

  dns {
    provider {
      type       = "local"
      secret_ref = local.internal_domain.secret_ref
    }
  }

  depends_on = [component.manifests.dns_credentials]
}
