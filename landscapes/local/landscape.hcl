# The local landscape: a garden, one seed and three shoots on the embedded control plane of
# `make local-up`. The runtime cluster also serves as the seed, which Gardener supports.

landscape "local" {
  description = "Gardener on the local control plane (make local-up)"

  state {
    backend = "kubernetes"
    cluster = cluster.runtime
    # The state's Secrets and lock Lease; the namespace must exist before the first apply
    # (a real garden keeps them in its "garden" namespace).
    namespace = "kube-system"
  }
}

cluster "runtime" {
  context = "runtime"
}

cluster "virtual_garden" {
  context = "virtual-garden"
}
