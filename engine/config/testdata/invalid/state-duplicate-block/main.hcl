landscape "test" {
  state {
    backend = "kubernetes"
    cluster = cluster.runtime
  }

  state {
    backend = "local"
  }
}

cluster "runtime" {
  context = "runtime"
}
