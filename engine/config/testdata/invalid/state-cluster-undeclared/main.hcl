landscape "test" {
  state {
    backend = "kubernetes"
    cluster = cluster.garden
  }
}

cluster "runtime" {
  context = "runtime"
}
