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

  workers "a" {
    machine_type = "local"
    minimum      = 1
    maximum      = 2
    machine_image {
      name    = "ubuntu"
      version = "22.4.0"
    }
  }

  workers "b" {
    machine_type = "local"
    minimum      = 1
    maximum      = 2
    machine_image {
      name    = "local"
      version = "1.1.0"
    }
  }

  workers "c" {
    machine_type = "local"
    minimum      = 1
    maximum      = 2
    machine_image {
      name    = "local"
      version = "0.9.0"
    }
  }

  workers "d" {
    machine_type = "local"
    minimum      = 1
    maximum      = 2
    machine_image {
      name = "edge"
    }
  }

  workers "e" {
    architecture = "arm64"
    machine_type = "graviton"
    minimum      = 1
    maximum      = 2
    machine_image {
      name    = "local"
      version = "1.0.0"
    }
  }
}
