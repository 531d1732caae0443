landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

locals {
  values = file("${path.module}/values.yaml")
}
