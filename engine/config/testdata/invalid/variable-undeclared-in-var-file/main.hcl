landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

variable "kubernetes_version" {
  type        = string
  description = "Kubernetes version of the shoots."
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
