landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "namespaces" {
  cluster = cluster.runtme
  files   = ["namespaces.yaml"]
}
