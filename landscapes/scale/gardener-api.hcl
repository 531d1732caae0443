component "project" "scale" {
  cluster     = cluster.virtual_garden
  description = "Shoots of the scale landscape"

  owner {
    name = "admin@scale.gardener.cloud"
  }

  project_controller = garden.scale.project_controller
}

component "cloud_profile" "local" {
  cluster = cluster.virtual_garden
  type    = "local"

  kubernetes_version "1.31.1" {
    classification = "supported"
  }

  machine_image "local" {
    version "1.0.0" {
      classification = "supported"
    }
  }

  machine_type "local" {
    cpu    = "2"
    memory = "4Gi"
  }

  region "local" {
    zones = ["0"]
  }
}

component "manifests" "credentials" {
  cluster   = cluster.virtual_garden
  namespace = component.project.scale.namespace

  objects = [{
    apiVersion = "v1"
    kind       = "Secret"
    metadata   = { name = "local-credentials" }
    type       = "Opaque"
  }]
}

component "credentials_binding" "local" {
  cluster       = cluster.virtual_garden
  namespace     = component.project.scale.namespace
  provider_type = "local"

  credentials_ref {
    name      = "local-credentials"
    namespace = component.project.scale.namespace
  }

  depends_on = [component.manifests.credentials]
}
