landscape "admission" {}

cluster "virtual_garden" {
  context = "virtual-garden"
}

component "project" "dev" {
  cluster = cluster.virtual_garden

  owner {
    name = "admin@example.com"
  }
}

component "credentials_binding" "local" {
  cluster       = cluster.virtual_garden
  namespace     = component.project.dev.namespace
  provider_type = "local"

  credentials_ref {
    name = "local-credentials"
  }
}

component "cloud_profile" "local" {
  cluster = cluster.virtual_garden
  type    = "local"

  kubernetes_version "1.31.1" {}

  machine_image "local" {
    version "0.9.0" {
      expiration_date = "2020-01-31T23:59:59Z"
    }
    version "1.0.0" {
      classification = "supported"
    }
  }

  machine_image "edge" {
    version "2.0.0" {
      classification = "preview"
    }
  }

  machine_type "local" {
    cpu    = "2"
    memory = "4Gi"
  }

  machine_type "graviton" {
    cpu          = "2"
    memory       = "4Gi"
    architecture = "arm64"
  }

  region "local" {}
}
