landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

variable "dashboard_password" {
  type      = string
  default   = "s3cr3t"
  sensitive = true
}

output "dashboard_login" {
  value = "admin:${var.dashboard_password}"
}
