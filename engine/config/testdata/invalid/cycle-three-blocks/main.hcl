landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

component "helm_release" "cert_manager" {
  depends_on = [component.helm_release.ingress]

  cluster   = cluster.runtime
  chart     = "oci://registry.example.com/charts/cert-manager"
  namespace = "cert-manager"
}

component "manifests" "issuers" {
  depends_on = [component.helm_release.cert_manager]

  cluster = cluster.runtime
  files   = ["issuers.yaml"]
}

component "helm_release" "ingress" {
  depends_on = [component.manifests.issuers]

  cluster   = cluster.runtime
  chart     = "oci://registry.example.com/charts/ingress-nginx"
  namespace = "ingress"
}
