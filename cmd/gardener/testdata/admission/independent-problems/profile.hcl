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
    cpu    = "two"
    memory = "4Gi"
  }

  region "local" {
    zones = ["0"]
  }
}
