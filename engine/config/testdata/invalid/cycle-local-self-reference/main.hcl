landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

locals {
  zones = concat(local.zones, ["1"])
}
