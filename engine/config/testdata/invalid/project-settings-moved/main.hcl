landscape "test" {}

cluster "virtual" {
  context = "virtual-garden"
}

component "project" "dev" {
  cluster = cluster.virtual

  owner {
    name = "admin@example.com"
  }

  resource_quota {
    hard = {
      "count/secrets" = "800"
    }
  }

  stale {
    skip                  = false
    minimum_lifetime_days = 7
    expiration_days       = 30
  }
}
