landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

variable "kubernetes_version" {
  type    = string
  default = "1.31.1"
}

shoot "dev" {
  project       = "local"
  cloud_profile = "local"
  region        = "local"

  credentials_binding = "local"

  kubernetes {
    version = var.kubernetes_version
  }

  provider {
    type = "local"
  }
}
