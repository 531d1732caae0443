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

# An extension component registers its resources like a controller_registration.
component "extension" "networking_calico" {
  virtual_cluster         = cluster.virtual_garden
  chart                   = "./charts/networking-calico"
  garden_cluster_identity = "garden"

  resource "Network" "calico" {}
}

component "controller_registration" "shoot_dns_service" {
  cluster = cluster.virtual_garden

  resource "Extension" "shoot-dns-service" {}
}

component "cloud_profile" "local" {
  cluster = cluster.virtual_garden
  type    = "local"

  kubernetes_version "1.31.1" {
    classification = "supported"
  }

  machine_image "ubuntu" {
    version "22.4.0" {}
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
