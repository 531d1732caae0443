shoot "a" {
  project             = component.project.dev.name
  cloud_profile       = "local"
  region              = "local"
  credentials_binding = "aws"

  kubernetes {
    version = "1.31.1"
  }

  provider {
    type = "aws"
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
  credentials_binding = "gcp"

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
