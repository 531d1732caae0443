# for_each over a map of objects: each.key names the instance, each.value carries its settings.

landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

variable "shoots" {
  type = map(object({
    purpose = string
    maximum = number
  }))
  default = {
    dev = { purpose = "development", maximum = 2 }
    qa  = { purpose = "testing", maximum = 4 }
  }
}

shoot "team" {
  for_each = var.shoots

  project       = "team-${each.key}"
  cloud_profile = "local"
  region        = "local"
  purpose       = each.value.purpose

  credentials_binding = "local"

  kubernetes {
    version = "1.31.1"
  }

  provider {
    type = "local"
  }

  workers "local" {
    machine_type = "local"
    minimum      = 1
    maximum      = each.value.maximum
  }
}

output "technical_ids" {
  value = { for key, shoot in shoot.team : key => shoot.technical_id }
}
