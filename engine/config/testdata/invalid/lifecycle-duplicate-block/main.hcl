landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

shoot "dev" {
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

  lifecycle {
    prevent_destroy = true
  }

  lifecycle {
    ready_timeout = "5m"
  }
}
