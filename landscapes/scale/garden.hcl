garden "scale" {
  cluster        = cluster.runtime
  virtual_garden = cluster.virtual_garden

  # As in landscapes/local: nothing on kwok nodes serves webhooks, and nothing provisions the
  # persistent volumes observability needs.
  admission_webhooks = false

  observability {
    enabled = false
  }

  runtime_cluster {
    networking {
      pods     = "10.64.0.0/12"
      services = "10.96.0.0/16"
    }
    provider {
      region = "local"
      zones  = ["0"]
    }
    ingress {
      domains = ["ingress.runtime-garden.${local.domain}"]
    }
  }

  virtual_cluster {
    dns_domains = ["virtual-garden.${local.domain}"]
    networking {
      services = "100.64.0.0/13"
    }
    kubernetes {
      version = var.kubernetes_version
    }
    gardener {
      api_server {
        register_api_services = false
      }
    }
  }
}
