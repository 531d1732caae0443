landscape "test" {}

cluster "runtime" {
  context = "runtime"
}
