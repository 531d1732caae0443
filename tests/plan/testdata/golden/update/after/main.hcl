landscape "golden-update" {}

cluster "runtime" {
  context = "runtime"
}

variable "db_password" {
  type      = string
  sensitive = true
  default   = "s3cr3t-pa55w0rd"
}

component "manifests" "namespace" {
  cluster = cluster.runtime
  objects = [{
    apiVersion = "v1"
    kind       = "Namespace"
    metadata   = { name = "golden-update" }
  }]
}

component "manifests" "app" {
  cluster   = cluster.runtime
  namespace = "golden-update"

  objects = [
    {
      apiVersion = "v1"
      kind       = "ConfigMap"
      metadata   = { name = "app-config", labels = { tier = "backend" } }
      data = {
        mode  = "fast"
        level = "debug"
      }
    },
    {
      apiVersion = "v1"
      kind       = "Secret"
      metadata   = { name = "app-credentials" }
      stringData = { password = var.db_password }
    },
    {
      apiVersion = "apps/v1"
      kind       = "Deployment"
      metadata   = { name = "app" }
      spec = {
        replicas = 3
        selector = { matchLabels = { app = "app" } }
        template = {
          metadata = { labels = { app = "app" } }
          spec = {
            containers = [{
              name  = "app"
              image = "registry.local/app:1.1.0"
              args  = ["--port=8080", "--verbose"]
              env = [
                { name = "MODE", value = "fast" },
                { name = "DB_PASSWORD", valueFrom = { secretKeyRef = { name = "app-credentials", key = "password" } } },
              ]
              resources = { requests = { cpu = "100m", memory = "128Mi" } }
            }]
          }
        }
      }
    },
  ]
}
