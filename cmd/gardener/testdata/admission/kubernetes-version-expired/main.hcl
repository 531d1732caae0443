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

  kubernetes_version "1.30.9" {
    classification  = "deprecated"
    expiration_date = "2020-01-31T23:59:59Z"
  }

  kubernetes_version "1.31.1" {
    classification = "supported"
  }

  kubernetes_version "1.32.0" {
    classification = "preview"
  }

  machine_image "local" {
    version "1.0.0" {}
  }

  machine_type "local" {
    cpu    = "2"
    memory = "4Gi"
  }

  region "local" {}
}

shoot "dev" {
  project             = component.project.dev.name
  cloud_profile       = "local"
  region              = "local"
  credentials_binding = "local"

  kubernetes {
    version = "1.30.9"
  }

  provider {
    type = "local"
  }
}
