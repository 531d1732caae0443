landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

locals {
  domain  = "example.com"
  project = "local"
}
