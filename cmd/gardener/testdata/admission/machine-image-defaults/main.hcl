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
}

component "controller_registration" "os_legacy" {
  cluster = cluster.virtual_garden

  resource "OperatingSystemConfig" "legacy" {}
}

component "cloud_profile" "local" {
  cluster = cluster.virtual_garden
  type    = "local"

  kubernetes_version "1.31.1" {}

  machine_image "local" {
    version "1.0.0" {}
  }

  machine_image "legacy" {
    version "3.0.0" {
      kubelet_version_constraint = "< 1.30"
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
