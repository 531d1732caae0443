landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

cluster "runtime" {
  kubeconfig = "~/.kube/config"
}
