landscape "test" {}

cluster "runtime" {
  kubeconfig = "~/.kube\config"
}
