shoot "api" {
  project       = component.project.dev.name
  cloud_profile = "local"
  region        = "local"

  kubernetes {
    version = "1.31.1"
  }

  provider {
    type = "aws"
  }

  # Not checked: a workerless shoot has no Network.
  networking {
    type     = "cilium"
    services = "10.9.0.0/16"
  }

  extensions "shoot-dns-service" {}
  extensions "shoot-oidc-service" {}
}
