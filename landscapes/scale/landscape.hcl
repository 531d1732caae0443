# The scale landscape: one garden, three seeds and a for_each of N shoots spread over them, for
# benchmarks (make bench) and for planning at the size of a real Gardener installation. It runs
# on the local control plane started with three seed clusters (localcluster up --seeds 3: the
# contexts runtime, virtual-garden, seed-1, seed-2 and seed-3).

landscape "scale" {
  description = "One garden, three seeds and var.shoot_count shoots on the local control plane"

  state {
    backend   = "kubernetes"
    cluster   = cluster.runtime
    namespace = "kube-system"
  }
}

cluster "runtime" {
  context = "runtime"
}

cluster "virtual_garden" {
  context = "virtual-garden"
}

cluster "seed_1" {
  context = "seed-1"
}

cluster "seed_2" {
  context = "seed-2"
}

cluster "seed_3" {
  context = "seed-3"
}

variable "shoot_count" {
  type        = number
  default     = 10
  description = "How many shoots the landscape declares; each has a control plane of about 40 objects on its seed."

  validation {
    condition     = var.shoot_count >= 0 && var.shoot_count <= 10000
    error_message = "The shoot count must be between 0 and 10000."
  }
}

variable "changed_shoot" {
  type        = string
  default     = ""
  description = "A shoot whose worker pool may grow to 4 machines instead of 3: one field changed in one shoot, for the benchmark's plan of a small change."
}

variable "kubernetes_version" {
  type        = string
  default     = "1.31.1"
  description = "Kubernetes version of the virtual garden and the shoots."
}

locals {
  domain = "scale.gardener.cloud"
  # Shoots are spread over the seeds round-robin: shoot-000 on seed 1, shoot-001 on seed 2, ...
  # range() makes at most 1,024 values, so the indexes are made a thousand at a time.
  shoot_indexes = [for i in flatten([for block in range(ceil(var.shoot_count / 1000)) : [for j in range(1000) : block * 1000 + j]]) : i if i < var.shoot_count]
  shoots        = { for i in local.shoot_indexes : format("shoot-%03d", i) => i % 3 }

  # The garden's DNS domains and their (empty, local provider) credentials in dns.hcl.
  internal_domain = { domain = "internal.${local.domain}", provider_type = "local", secret_ref = "internal-domain-local" }
  default_domain  = { domain = local.domain, provider_type = "local", secret_ref = "default-domain-local" }
}
