# count with count.index: three namespaces, one manifests component each, and a release that
# depends on all of them.

landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "team_namespace" {
  count = 3

  cluster = cluster.runtime
  objects = [{
    apiVersion = "v1"
    kind       = "Namespace"
    metadata   = { name = "team-${count.index}" }
  }]
}

component "helm_release" "team_quota" {
  depends_on = [component.manifests.team_namespace]

  cluster   = cluster.runtime
  chart     = "charts/quota"
  namespace = "team-${length(component.manifests.team_namespace) - 1}"
}
