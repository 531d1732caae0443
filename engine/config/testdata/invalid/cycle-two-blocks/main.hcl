landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

garden "main" {
  cluster    = cluster.runtime
  depends_on = [seed.local]

  runtime_cluster {
    networking {
      pods     = "10.64.0.0/12"
      services = "10.96.0.0/16"
    }
    ingress {
      domains = ["ingress.runtime.example.com"]
    }
  }

  virtual_cluster {
    dns_domains = ["virtual-garden.example.com"]
    networking {
      services = "100.64.0.0/13"
    }
    kubernetes {
      version = "1.31.1"
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
