# var.shoot_count shoots spread over the three seeds (a seed reference names one seed block, so
# there is one shoot block per seed, each taking its share of local.shoots). The shoots on s1
# are highly available (failure tolerance node), the way a real landscape mixes them.

shoot "on_s1" {
  for_each = { for name, seed in local.shoots : name => seed if seed == 0 }

  name          = each.key
  project       = component.project.scale.name
  seed          = seed.s1
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
    maximum      = each.key == var.changed_shoot ? 4 : 3

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
}

shoot "on_s2" {
  for_each = { for name, seed in local.shoots : name => seed if seed == 1 }

  name          = each.key
  project       = component.project.scale.name
  seed          = seed.s2
  cloud_profile = "local"
  # The extensions Cluster embeds the declared CloudProfile, as gardenlet embeds it.
  cloud_profile_object = component.cloud_profile.local.object
  region               = "local"
  purpose              = "development"

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
    maximum      = each.key == var.changed_shoot ? 4 : 3

    machine_image {
      name    = "local"
      version = "1.0.0"
    }
  }
}

shoot "on_s3" {
  for_each = { for name, seed in local.shoots : name => seed if seed == 2 }

  name          = each.key
  project       = component.project.scale.name
  seed          = seed.s3
  cloud_profile = "local"
  # The extensions Cluster embeds the declared CloudProfile, as gardenlet embeds it.
  cloud_profile_object = component.cloud_profile.local.object
  region               = "local"
  purpose              = "development"

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
    maximum      = each.key == var.changed_shoot ? 4 : 3

    machine_image {
      name    = "local"
      version = "1.0.0"
    }
  }
}

output "shoots" {
  description = "How many shoots the landscape declares."
  value       = length(local.shoots)
}
