# Variables without defaults, set from a var file and from the environment (see inputs.txt).

landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

variable "kubernetes_version" {
  type = string

  validation {
    condition     = can(regex("^1\\.[0-9]+\\.[0-9]+$", var.kubernetes_version))
    error_message = "The Kubernetes version must look like 1.31.1."
  }
}

variable "zones" {
  type = list(string)
}

variable "worker_maximum" {
  type    = number
  default = 2
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

  workers "local" {
    machine_type = "local"
    minimum      = 1
    maximum      = var.worker_maximum
    zones        = var.zones
  }
}
