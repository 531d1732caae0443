shoot "dev" {
  project             = component.project.dev.name
  cloud_profile       = "local"
  region              = "local"
  credentials_binding = "locla"

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

shoot "other" {
  project        = "other"
  cloud_profile  = "local"
  region         = "local"
  secret_binding = "other-secret"

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

shoot "multi" {
  project        = component.project.dev.name
  cloud_profile  = "local"
  region         = "local"
  secret_binding = "multi"

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
