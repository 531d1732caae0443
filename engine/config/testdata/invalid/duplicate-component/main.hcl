landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "namespaces" {
  cluster = cluster.runtime
  files   = ["namespaces.yaml"]
}

component "helm_release" "namespaces" {
  cluster   = cluster.runtime
  chart     = "charts/namespaces"
  namespace = "kube-system"
}

component "manifests" "namespaces" {
  cluster = cluster.runtime
  files   = ["more-namespaces.yaml"]
}
