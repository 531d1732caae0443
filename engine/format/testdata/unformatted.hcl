landscape "local" {
state {
backend="kubernetes"
    namespace   =   "garden"
}
}
variable "kubernetes_version" {
type = string
      default = "1.31.1"   # pinned
}

garden "local" {
  cluster = cluster.runtime
  virtual_cluster {
    dns_domains = ["virtual-garden.local"]
    kubernetes { version = var.kubernetes_version }
  }
  replicas=3
  name = "local"
}
