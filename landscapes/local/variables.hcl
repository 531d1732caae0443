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

  # The garden's DNS domains (Gardener's "Configuration" docs/operations/configuration.md): every
  # shoot's API server gets the internal record api.<shoot>.<project>.internal.local.gardener.cloud,
  # and shoots without a domain of their own get <shoot>.<project>.local.gardener.cloud. The local
  # DNS provider needs no credentials, so their Secrets (in dns.hcl) are empty.
  internal_domain = { domain = "internal.${local.domain}", provider_type = "local", secret_ref = "internal-domain-local" }
  default_domain  = { domain = local.domain, provider_type = "local", secret_ref = "default-domain-local" }
}
