landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

seed "local" {
  garden  = garden.local
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
