shoot "dev" {
  project             = component.project.dev.name
  cloud_profile       = "local"
  region              = "local"
  credentials_binding = "local"

  kubernetes {
    version = "1.31.1"
  }

  provider {
    type = "local"
  }

  workers "plain" {
    machine_type = "local"
    minimum      = 1
    maximum      = 2
  }

  workers "arm" {
    architecture = "arm64"
    machine_type = "graviton"
    minimum      = 1
    maximum      = 2
  }

  workers "legacy" {
    machine_type = "local"
    minimum      = 1
    maximum      = 2
    machine_image {
      name = "legacy"
    }
  }
}
