landscape "admission" {}

cluster "virtual_garden" {
  context = "virtual-garden"
}

component "quota" "trial" {
  cluster               = cluster.virtual_garden
  cluster_lifetime_days = 14
}

component "quota" "team" {
  cluster = cluster.virtual_garden
}

component "quota" "credentials" {
  cluster = cluster.virtual_garden
  scope   = "Secret"
}

component "secret_binding" "trial" {
  cluster       = cluster.virtual_garden
  secret_ref    = "trial-credentials"
  provider_type = "local"

  quota {
    name = component.quota.trial.name
  }

  quota {
    name = component.quota.credentials.name
  }
}

component "secret_binding" "broken" {
  cluster       = cluster.virtual_garden
  secret_ref    = "broken-credentials"
  provider_type = "local"

  quota {
    name = "trail"
  }

  quota {
    name      = "shared"
    namespace = "quotas"
  }

  quota {
    name = component.quota.trial.name
  }

  quota {
    name = component.quota.team.name
  }
}
