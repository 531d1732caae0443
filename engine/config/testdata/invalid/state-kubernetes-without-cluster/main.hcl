landscape "test" {
  state {
    backend   = "kubernetes"
    namespace = "garden"
  }
}

cluster "runtime" {
  context = "runtime"
}
