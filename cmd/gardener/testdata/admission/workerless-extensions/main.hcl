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


component "controller_registration" "provider_local" {
  cluster = cluster.virtual_garden

  resource "Infrastructure" "local" {}
  resource "ControlPlane" "local" {}
  resource "Worker" "local" {}
  resource "DNSRecord" "local" {}
  resource "BackupBucket" "local" {}
  resource "BackupEntry" "local" {}
  resource "OperatingSystemConfig" "local" {}
}

component "controller_registration" "shoot_extensions" {
  cluster = cluster.virtual_garden

  resource "Extension" "shoot-dns-service" {
    workerless_supported = true
  }
  resource "Extension" "shoot-oidc-service" {}
}

component "cloud_profile" "local" {
  cluster = cluster.virtual_garden
  type    = "aws"

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
