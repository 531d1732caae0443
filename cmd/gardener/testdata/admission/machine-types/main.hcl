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
    version "1.0.0" {
      architectures = ["amd64", "arm64"]
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

  machine_type "old" {
    cpu    = "1"
    memory = "2Gi"
    usable = false
  }

  region "local" {}
}

shoot "dev" {
  project             = component.project.dev.name
  cloud_profile       = "local"
  region              = "local"
  credentials_binding = "local"

  kubernetes {
    version = "1.31.1"
  }

  provider {
    type = "local"
  }

  workers "a" {
    machine_type = "locl"
    minimum      = 1
    maximum      = 2
  }

  workers "b" {
    architecture = "amd64"
    machine_type = "graviton"
    minimum      = 1
    maximum      = 2
  }

  workers "c" {
    machine_type = "old"
    minimum      = 1
    maximum      = 2
  }
}
