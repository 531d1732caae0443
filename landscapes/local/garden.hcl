# The garden: gardener-operator's Garden, rendered by the engine into its parts (run
# `gardener graph landscapes/local` to see them in their documented order).
garden "local" {
  cluster        = cluster.runtime
  virtual_garden = cluster.virtual_garden

  # Pods on the local control plane's kwok nodes never run, so nothing would serve the
  # components' admission webhooks, and a webhook nobody serves blocks every request it
  # intercepts. A real garden keeps them on (the default).
  admission_webhooks = false

  # Prometheus and Vali keep their data on persistent volumes, and the local control plane has
  # no storage provisioner, so their pods would never start. A real garden keeps this on.
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
        # The local virtual garden serves the Gardener API groups as stand-in CRDs (the real
        # gardener-apiserver cannot be built here), and an APIService for a group the API
        # server already serves from CRDs would shadow them with a backend that never answers.
        register_api_services = false
      }
    }
  }
}
