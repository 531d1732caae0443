garden "main" {
  cluster = cluster.runtime

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
