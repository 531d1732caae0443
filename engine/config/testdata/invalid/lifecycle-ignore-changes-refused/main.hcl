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
    ignore_changes = [kubernetes.version]
  }
}
