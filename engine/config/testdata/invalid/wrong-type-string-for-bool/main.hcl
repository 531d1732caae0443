landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

component "helm_release" "cert_manager" {
  cluster          = cluster.runtime
  chart            = "oci://registry.example.com/charts/cert-manager"
  namespace        = "cert-manager"
  create_namespace = "maybe"
}
