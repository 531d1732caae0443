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
        # The local control plane runs gardener-apiserver as a process and registers its
        # APIServices itself (pointing at an ExternalName Service to localhost); APIServices of
        # this landscape would point at the gardener-apiserver pods, which never run on kwok's
        # nodes, and take the Gardener API away.
        register_api_services = false
      }

      # The ResourceQuota gardener-controller-manager's project controller gives every project
      # namespace (Gardener's "Gardener Controller Manager" docs/concepts/controller-manager.md);
      # limits raised by hand on the live quota stay.
      controller_manager {
        project_quota {
          hard = {
            "count/shoots.core.gardener.cloud"                  = "100"
            "count/credentialsbindings.security.gardener.cloud" = "10"
            "count/secrets"                                     = "800"
          }
        }
      }
    }
  }
}
