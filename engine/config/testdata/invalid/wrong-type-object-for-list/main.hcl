landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "namespaces" {
  cluster = cluster.runtime
  files   = { main = "namespaces.yaml" }
}
