shoot "a" {
  project             = component.project.dev.name
  cloud_profile       = "locl"
  region              = "local"
  credentials_binding = "local"

  kubernetes {
    version = "1.31.1"
  }

  provider {
    type = "local"
  }

  workers "pool" {
    machine_type = "local"
    minimum      = 1
    maximum      = 2
  }
}

shoot "b" {
  project             = component.project.dev.name
  cloud_profile       = "custom"
  region              = "local"
  credentials_binding = "local"

  cloud_profile_kind = "NamespacedCloudProfile"

  kubernetes {
    version = "1.99.0"
  }

  provider {
    type = "local"
  }

  workers "pool" {
    machine_type = "local"
    minimum      = 1
    maximum      = 2
  }
}
