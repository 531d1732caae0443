landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

locals {
  ingress_domain = "ingress.${local.base_domain}"
  base_domain    = trimprefix(local.ingress_domain, "ingress.")
}
