landscape "local" {
  description = "diagnostics test"
}

garden "local" {
  cluster = cluster.runtime
  foo     = 1
  virtual_cluster {
    dns_domains = ["virtual-garden.local",
      42]
  }
}
