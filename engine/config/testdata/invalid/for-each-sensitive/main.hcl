landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

variable "shoots" {
  type      = set(string)
  default   = ["dev", "qa"]
  sensitive = true
}

shoot "dev" {
  for_each = var.shoots

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
