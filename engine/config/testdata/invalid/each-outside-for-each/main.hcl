landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

shoot "dev" {
  project       = "local"
  cloud_profile = "local"
  region        = "local"
  purpose       = each.key == "qa" ? "testing" : "development"

  credentials_binding = "local"

  kubernetes {
    version = "1.31.1"
  }

  provider {
    type = "local"
  }
}
