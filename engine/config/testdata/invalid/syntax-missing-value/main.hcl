landscape "test" {}

cluster "runtime" {
  context =
}
