shoot "dev" {
  project       = "local"
  seed          = seed.local
  cloud_profile = "local"
  region        = "local"
  purpose       = "staging"

  credentials_binding = "local"

  kubernetes {
    version = "1.31.1"
  }

  provider {
    type = "local"
  }
}

shoot "qa" {
  project       = "local"
  seed          = seed.local
  cloud_profile = "local"
  region        = "local"

  credentials_binding = "local"

  kubernetes {
    version = "1.31"
  }

  provider {
    type = "local"
  }

  workers "local" {
    machine_type = "local"
    minimum      = 1
    maximum      = 0
  }
}
