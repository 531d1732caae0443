landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

landscape "staging" {
  description = "The staging landscape"
}
