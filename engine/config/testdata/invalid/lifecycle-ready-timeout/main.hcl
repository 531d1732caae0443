landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "slow" {
  cluster = cluster.runtime
  objects = [{ apiVersion = "v1", kind = "Namespace", metadata = { name = "slow" } }]

  lifecycle {
    ready_timeout = "ten minutes"
  }
}
