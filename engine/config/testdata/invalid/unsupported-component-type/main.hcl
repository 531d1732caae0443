landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

component "helm_chart" "cert_manager" {
  cluster   = cluster.runtime
  chart     = "oci://registry.example.com/charts/cert-manager"
  namespace = "cert-manager"
}
