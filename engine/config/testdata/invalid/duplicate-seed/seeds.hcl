seed "local" {
  garden  = garden.main
  cluster = cluster.runtime

  provider {
    type   = "local"
    region = "local"
  }

  networks {
    pods     = "10.1.0.0/16"
    services = "10.2.0.0/16"
  }

  ingress {
    domain = "ingress.local.seed.example.com"
  }

  dns {
    provider {
      type       = "local"
      secret_ref = "internal-domain-local"
    }
  }
}

seed "local" {
  garden  = garden.main
  cluster = cluster.runtime

  provider {
    type   = "local"
    region = "local"
  }

  networks {
    pods     = "10.3.0.0/16"
    services = "10.4.0.0/16"
  }

  ingress {
    domain = "ingress.local.seed.example.com"
  }

  dns {
    provider {
      type       = "local"
      secret_ref = "internal-domain-local"
    }
  }
}
