seed "aws" {
  garden  = garden.main
  cluster = cluster.runtime

  provider {
    type   = "aws"
    region = "eu-west-1"
  }

  networks {
    pods     = "10.1.0.0/16"
    services = "10.2.0.0/16"
  }

  ingress {
    domain = "ingress.aws.seed.example.com"
  }

  dns {
    provider {
      type       = "aws-route53"
      secret_ref = "internal-domain"
    }
  }

  backup {
    provider   = "aws"
    secret_ref = "backup"
  }
}
