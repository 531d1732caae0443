landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

variable "zones" {
  type    = lisst(string)
  default = ["0"]
}

locals {
  zone_count = length(var.zones)
}
