variable "kubernetes_version" {
  type        = string
  default     = "1.31.1"
  description = "Kubernetes version of the virtual garden and the shoots."

  validation {
    condition     = can(regex("^1\\.[0-9]+\\.[0-9]+$", var.kubernetes_version))
    error_message = "The Kubernetes version must look like 1.31.1."
  }
}

variable "hibernate_qa" {
  type        = bool
  default     = false
  description = "Whether the qa shoot is hibernated: its nodes and control plane scaled to zero."
}

locals {
  domain = "local.gardener.cloud"
}
