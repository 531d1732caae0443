shoot "local" {
  for_each = var.shoots

  project       = "local"
  seed          = seed.local
  cloud_profile = "local"
  region        = "local"
  purpose       = each.key == "qa" ? "testing" : "development"

  credentials_binding = "local"

  kubernetes {
    version = var.kubernetes_version
  }

  provider {
    type = "local"
  }

  workers "local" {
    machine_type = "local"
    minimum      = 1
    maximum      = 3
  }

  maintenance {
    time_window {
      begin = "220000+0000"
      end   = "230000+0000"
    }
  }
}

output "shoot_namespaces" {
  description = "The seed namespaces of the shoots' control planes."
  value       = { for key, shoot in shoot.local : key => shoot.technical_id }
}
