shoot "a" {
  project             = component.project.dev.name
  cloud_profile       = "local"
  region              = "local"
  credentials_binding = "nope"

  kubernetes {
    version = "1.0.0"
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
  cloud_profile       = "local"
  region              = "local"
  credentials_binding = "local"

  kubernetes {
    version = "1.31.1"
  }

  provider {
    type = "local"
  }

  networking {
    type = "calico"
  }

  workers "pool" {
    machine_type = "local"
    minimum      = 1
    maximum      = 2
  }
}
