landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

shoot "dev" {
  project       = "local"
  cloud_profile = "local"
  region        = "local"

  credentials_binding = "local"

  provider {
    type = "local"
  }
}
