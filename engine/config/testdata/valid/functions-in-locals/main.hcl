# templatefile, yamldecode and cidrsubnet in locals, feeding a helm release and a seed.

landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

locals {
  domain   = "example.com"
  network  = "10.0.0.0/8"
  pods     = cidrsubnet(local.network, 8, 1)
  services = cidrsubnet(local.network, 8, 2)
  values   = yamldecode(templatefile("values.yaml.tftpl", { domain = local.domain, replicas = 2 }))
}

component "helm_release" "ingress" {
  cluster   = cluster.runtime
  chart     = "oci://registry.example.com/charts/ingress-nginx"
  namespace = "ingress"
  values    = local.values
}

garden "main" {
  cluster = cluster.runtime

  runtime_cluster {
    networking {
      pods     = "10.64.0.0/12"
      services = "10.96.0.0/16"
    }
    ingress {
      domains = ["ingress.runtime.${local.domain}"]
    }
  }

  virtual_cluster {
    dns_domains = ["virtual-garden.${local.domain}"]
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
    pods     = local.pods
    services = local.services
  }

  ingress {
    domain = local.values.controller.ingressClass.domain
  }

  dns {
    provider {
      type       = "local"
      secret_ref = "internal-domain-local"
    }
  }
}
