shoot "team" {
  for_each = {
    a = "local"
    b = "local"
    c = "local"
    d = "local"
    e = "large"
  }

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
    machine_type = each.value
    minimum      = 1
    maximum      = 2
  }
}
