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
    version "1.0.0" {}
  }

  machine_type "local" {
    cpu    = "2"
    memory = "4Gi"
  }

  machine_type "fixed" {
    cpu    = "2"
    memory = "4Gi"
    storage {
      class    = "standard"
      type     = "standard"
      min_size = "50Gi"
    }
  }

  volume_type "standard" {
    class    = "standard"
    min_size = "20Gi"
  }

  volume_type "old" {
    class  = "standard"
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
    machine_type = "local"
    minimum      = 1
    maximum      = 2
    volume {
      type = "ssd"
      size = "50Gi"
    }
  }

  workers "b" {
    machine_type = "local"
    minimum      = 1
    maximum      = 2
    volume {
      type = "old"
      size = "50Gi"
    }
  }

  workers "c" {
    machine_type = "local"
    minimum      = 1
    maximum      = 2
    volume {
      type = "standard"
      size = "10Gi"
    }
  }

  workers "d" {
    machine_type = "fixed"
    minimum      = 1
    maximum      = 2
    volume {
      type = "standard"
      size = "30Gi"
    }
  }
}
