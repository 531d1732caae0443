# ops: a workerless shoot, only a control plane (etcds, kube-apiserver, kube-controller-manager
# and its resource manager) for API-only workloads such as other clusters' configuration.
shoot "ops" {
  project       = component.project.local.name
  seed          = seed.local
  cloud_profile = "local"
  # The extensions Cluster embeds the declared CloudProfile, as gardenlet embeds it.
  cloud_profile_object = component.cloud_profile.local.object
  region               = "local"
  purpose              = "development"

  internal_domain = local.internal_domain
  default_domain  = local.default_domain

  kubernetes {
    version = var.kubernetes_version
  }

  networking {
    services = "10.9.0.0/16"
  }

  provider {
    type = "local"
  }

  maintenance {
    time_window {
      begin = "050000+0000"
      end   = "060000+0000"
    }
  }
}

output "ops_namespace" {
  description = "The seed namespace of the workerless shoot's control plane."
  value       = shoot.ops.technical_id
}
