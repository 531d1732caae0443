landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

variable "admin_token" {
  type      = string
  sensitive = true

  validation {
    condition     = length(var.admin_token) >= 16
    error_message = "The admin token ${var.admin_token} is shorter than 16 characters."
  }
}
