landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

shoot "dev" {
  for_each = toset([1, 2])

  project       = "local"
  cloud_profile = "local"
  region        = "local"

  credentials_binding = "local"

  kubernetes {
    version = "1.31.1"
  }

  provider {
    type = "local"
  }
}
