landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "namespaces" {
  cluster = "runtime"
  files   = ["namespaces.yaml"]
}
