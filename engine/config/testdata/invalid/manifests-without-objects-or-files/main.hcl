landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "namespaces" {
  cluster   = cluster.runtime
  namespace = "default"
}
