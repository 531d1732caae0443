landscape "test" {
  state {
    backend = "kubernetes"
    cluster = "runtime"
  }
}

cluster "runtime" {
  context = "runtime"
}
