landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

variable "pod_network" {
  type      = string
  sensitive = true
}

locals {
  node_network = cidrsubnet(var.pod_network, 8, 1)
}
