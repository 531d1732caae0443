output "dev_namespace" {
  value = shoot.dev.technical_id
}

output "ingress_domain" {
  value = local.ingress_domain
}
