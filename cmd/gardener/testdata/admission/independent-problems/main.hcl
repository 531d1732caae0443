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
