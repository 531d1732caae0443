landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "namespaces" {
  cluster = cluster.runtime
  files   = ["namespaces.yaml"]
}

component "helm_release" "cert_manager" {
  depends_on = ["component.manifests.namespaces"]

  cluster   = cluster.runtime
  chart     = "oci://registry.example.com/charts/cert-manager"
  namespace = "cert-manager"
}
