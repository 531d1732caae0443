landscape "test" {
  state {
    backend = "s3"
    path    = "landscapes/test.state"
  }
}

cluster "runtime" {
  context = "runtime"
}
