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

  networking {
    type = "cilium"
  }

  dns_provider {
    type       = "aws-route53"
    secret_ref = "route53"
  }

  extensions "shoot-dns-service" {}
  extensions "shoot-dns-servic" {}
  extensions "shoot-cert-service" {
    disabled = true
  }

  workers "pool" {
    machine_type = "local"
    minimum      = 1
    maximum      = 2
    machine_image {
      name = "ubuntu"
    }
  }
}
