landscape "admission" {}

cluster "virtual_garden" {
  context = "virtual-garden"
}

shoot "dev" {
  project             = "team"
  cloud_profile       = "aws"
  region              = "eu-west-1"
  credentials_binding = "team-aws"

  kubernetes {
    version = "1.31.1"
  }

  provider {
    type = "aws"
  }

  workers "pool" {
    machine_type = "m5.large"
    minimum      = 1
    maximum      = 2
  }
}
