# A component with depends_on and a lifecycle block (prevent_destroy).

landscape "test" {
  state {
    backend = "kubernetes"
    cluster = cluster.runtime
  }
}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "cert_manager_namespace" {
  cluster = cluster.runtime
  objects = [yamldecode(<<-YAML
    apiVersion: v1
    kind: Namespace
    metadata:
      name: cert-manager
    YAML
  )]
}

component "helm_release" "cert_manager" {
  depends_on = [component.manifests.cert_manager_namespace]

  cluster          = cluster.runtime
  chart            = "oci://registry.example.com/charts/cert-manager"
  version          = "1.16.1"
  namespace        = "cert-manager"
  create_namespace = false
  values           = { crds = { enabled = true } }

  lifecycle {
    prevent_destroy = true
  }
}
