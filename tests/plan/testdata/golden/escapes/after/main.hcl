landscape "golden-escapes" {}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "namespace" {
  cluster = cluster.runtime
  objects = [{
    apiVersion = "v1"
    kind       = "Namespace"
    metadata   = { name = "golden-escapes" }
  }]
}

component "manifests" "app" {
  cluster   = cluster.runtime
  namespace = "golden-escapes"

  objects = [{
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata = {
      name        = "app-config"
      annotations = { note = "reviewed" }
    }
    data = {
      mode = "fast"
    }
  }]
}
