landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

locals {
  project_name = "local"
}

shoot "dev" {
  project       = local.project
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
