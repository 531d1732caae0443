shoot "a" {
  project             = component.project.dev.name
  cloud_profile       = "local"
  region              = "locl"
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
    zones        = ["9"]
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

  workers "pool" {
    machine_type = "local"
    minimum      = 1
    maximum      = 2
    zones        = ["0", "9", "0"]
  }
}

shoot "c" {
  project             = component.project.dev.name
  cloud_profile       = "local"
  region              = "flat"
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
    zones        = ["a"]
  }
}
