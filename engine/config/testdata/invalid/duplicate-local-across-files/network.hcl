locals {
  pods   = "10.1.0.0/16"
  domain = "local.example.com"
}
