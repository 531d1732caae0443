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

# A SecretBinding may be for several providers (comma-separated): a local shoot may use it.
component "secret_binding" "multi" {
  cluster       = cluster.virtual_garden
  namespace     = component.project.dev.namespace
  secret_ref    = "multi-credentials"
  provider_type = "aws,local"
}
