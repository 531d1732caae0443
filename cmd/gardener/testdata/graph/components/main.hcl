# A landscape of single components for `gardener graph` tests: edges from references, from
# references through a local and a cluster, and from depends_on; instances from count.

landscape "components" {}

cluster "runtime" {
  context = "runtime"
}

cluster "workload" {
  context = component.helm_release.cluster_api.release_name
}

locals {
  monitoring_namespace = component.helm_release.prometheus_operator.namespace
}

component "manifests" "namespaces" {
  cluster = cluster.runtime
  objects = [
    { apiVersion = "v1", kind = "Namespace", metadata = { name = "capi-system" } },
  ]
}

component "helm_release" "cluster_api" {
  cluster          = cluster.runtime
  chart            = "./charts/cluster-api"
  namespace        = "capi-system"
  create_namespace = false
  depends_on       = [component.manifests.namespaces]
}

component "helm_release" "prometheus_operator" {
  cluster   = cluster.runtime
  chart     = "./charts/prometheus-operator"
  namespace = "monitoring"
}

component "helm_release" "prometheus" {
  count            = 2
  cluster          = cluster.runtime
  chart            = "./charts/prometheus"
  namespace        = local.monitoring_namespace
  create_namespace = false
}

component "helm_release" "dashboards" {
  cluster    = cluster.workload
  chart      = "./charts/dashboards"
  namespace  = "dashboards"
  depends_on = [component.helm_release.prometheus]
}

component "manifests" "standalone" {
  cluster = cluster.runtime
  objects = []
}
