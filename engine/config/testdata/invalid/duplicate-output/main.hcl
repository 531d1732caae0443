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
}

output "namespace" {
  value = shoot.dev.namespace
}

output "namespace" {
  value = shoot.dev.technical_id
}
