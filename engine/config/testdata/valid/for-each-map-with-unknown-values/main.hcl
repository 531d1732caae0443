# for_each over a map whose keys are known but whose values are outputs known only after apply:
# the keys decide the instances, so this is valid (values may stay unknown until apply).

landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

shoot "team" {
  for_each = toset(["dev", "qa"])

  project       = "team-${each.key}"
  cloud_profile = "local"
  region        = "local"

  credentials_binding = "local"

  kubernetes {
    version = "1.31.1"
  }

  provider {
    type = "local"
  }
}

component "helm_release" "team_dashboard" {
  for_each = { for key, shoot in shoot.team : key => shoot.technical_id }

  cluster   = cluster.runtime
  chart     = "charts/team-dashboard"
  namespace = "dashboards"
  values    = { shootNamespace = each.value }
}
