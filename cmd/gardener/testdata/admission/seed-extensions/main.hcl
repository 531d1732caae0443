landscape "admission" {}

cluster "virtual_garden" {
  context = "virtual-garden"
}

cluster "runtime" {
  context = "runtime"
}

garden "main" {
  cluster        = cluster.runtime
  virtual_garden = cluster.virtual_garden

  runtime_cluster {
    networking {
      pods     = "10.64.0.0/12"
      services = "10.96.0.0/16"
    }
    ingress {
      domains = ["ingress.runtime.example.com"]
    }
  }

  virtual_cluster {
    dns_domains = ["virtual-garden.example.com"]
    networking {
      services = "100.64.0.0/13"
    }
    kubernetes {
      version = "1.31.1"
    }
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

# A secondary controller for aws control planes: admission counts primary registrations only.
component "controller_registration" "aws_addon" {
  cluster = cluster.virtual_garden

  resource "ControlPlane" "aws" {
    primary = false
  }
}
