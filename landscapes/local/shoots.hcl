# The shoots of the local project. The engine deploys each control plane into the seed namespace
# shoot--local--<name> the way gardenlet would, then registers the Shoot in the virtual garden
# (run `gardener graph landscapes/local` to see the parts in the order of the shoot flow).

# dev: a control plane that survives the loss of a node (three etcd members, two replicas of
# each controller), with a worker pool the cluster autoscaler scales between one and three nodes.
shoot "dev" {
  project       = component.project.local.name
  seed          = seed.local
  cloud_profile = "local"
  # The extensions Cluster embeds the declared CloudProfile, as gardenlet embeds it.
  cloud_profile_object = component.cloud_profile.local.object
  region               = "local"
  purpose              = "development"

  internal_domain = local.internal_domain
  default_domain  = local.default_domain

  credentials_binding = "local"
  # The engine copies the binding's Secret into the control plane as cloudprovider (Gardener's
  # "Infrastructure" docs/extensions/resources/infrastructure.md), so the binding it names is
  # rendered first.
  depends_on = [component.credentials_binding.local]

  kubernetes {
    version = var.kubernetes_version
  }

  networking {
    type     = "calico"
    pods     = "10.3.0.0/16"
    services = "10.4.0.0/16"
    nodes    = "10.5.0.0/16"
  }

  provider {
    type = "local"
  }

  workers "local" {
    machine_type = "local"
    minimum      = 1
    maximum      = 3

    machine_image {
      name    = "local"
      version = "1.0.0"
    }
  }

  control_plane {
    high_availability {
      failure_tolerance = "node"
    }
  }

  maintenance {
    time_window {
      begin = "220000+0000"
      end   = "230000+0000"
    }
  }
}

# qa: a test cluster with a fixed-size pool (no cluster autoscaler) and no monitoring (purpose
# testing). Set hibernate_qa = true to scale its nodes and control plane to zero.
shoot "qa" {
  project       = component.project.local.name
  seed          = seed.local
  cloud_profile = "local"
  # The extensions Cluster embeds the declared CloudProfile, as gardenlet embeds it.
  cloud_profile_object = component.cloud_profile.local.object
  region               = "local"
  purpose              = "testing"

  internal_domain = local.internal_domain
  default_domain  = local.default_domain

  credentials_binding = "local"
  # The engine copies the binding's Secret into the control plane as cloudprovider (Gardener's
  # docs/extensions/resources/infrastructure.md), so the binding it names is rendered first.
  depends_on = [component.credentials_binding.local]

  kubernetes {
    version = var.kubernetes_version
  }

  networking {
    type     = "calico"
    pods     = "10.6.0.0/16"
    services = "10.7.0.0/16"
    nodes    = "10.8.0.0/16"
  }

  provider {
    type = "local"
  }

  workers "local" {
    machine_type = "local"
    minimum      = 1
    maximum      = 1

    machine_image {
      name    = "local"
      version = "1.0.0"
    }
  }

  hibernation {
    enabled = var.hibernate_qa
  }

  # Without a window gardener-apiserver picks one at random (a replan keeps it); a fixed one
  # keeps the tests' plans the same from run to run.
  maintenance {
    time_window {
      begin = "040000+0000"
      end   = "050000+0000"
    }
  }
}

output "shoot_namespaces" {
  description = "The seed namespaces of the shoots' control planes."
  value       = { dev = shoot.dev.technical_id, qa = shoot.qa.technical_id }
}
