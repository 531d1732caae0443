landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

variable "kubernetes_version" {
  type    = string
  default = "1.31.1"

  validation {
    condition     = can(regex("^1\\.[0-9]+\\.[0-9]+$", var.kubernetes_version))
    error_message = "The Kubernetes version must look like 1.31.1."
  }
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
