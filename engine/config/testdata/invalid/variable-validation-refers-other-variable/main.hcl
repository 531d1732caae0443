landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

variable "worker_minimum" {
  type    = number
  default = 1
}

variable "worker_maximum" {
  type    = number
  default = 3

  validation {
    condition     = var.worker_maximum >= var.worker_minimum
    error_message = "The maximum must not be below the minimum."
  }
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

  workers "local" {
    machine_type = "local"
    minimum      = var.worker_minimum
    maximum      = var.worker_maximum
  }
}
