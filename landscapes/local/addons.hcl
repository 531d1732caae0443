# Plain objects next to the Gardener layers: the manifests component applies them as they are,
# the simplest component there is and the one to copy for objects of your own.
component "manifests" "local_addons" {
  cluster   = cluster.runtime
  namespace = "local-addons"

  objects = [
    {
      apiVersion = "v1"
      kind       = "Namespace"
      metadata   = { name = "local-addons" }
    },
    {
      apiVersion = "v1"
      kind       = "ConfigMap"
      metadata   = { name = "landscape-info", labels = { "app.kubernetes.io/part-of" = "local" } }
      data = {
        domain = local.domain
        shoots = "dev,qa,ops"
      }
    },
  ]
}
