landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

shoot "dev" {
  for_each = toset(["dev", "qa"])

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

output "dev_namespace" {
  value = shoot.dev.technical_id
}
