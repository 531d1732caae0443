shoot "dev" {
  project             = component.project.dev.name
  cloud_profile       = "local"
  region              = "local"
  credentials_binding = "local"

  kubernetes {
    version = "1.30.9"
  }

  provider {
    type = "local"
  }

  workers "pool" {
    kubernetes_version = "1.29.3"
    machine_type       = "local"
    minimum            = 1
    maximum            = 2
  }
}
