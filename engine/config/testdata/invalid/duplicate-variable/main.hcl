landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

variable "kubernetes_version" {
  type    = string
  default = "1.31.1"
}

variable "kubernetes_version" {
  type    = string
  default = "1.30.4"
}
