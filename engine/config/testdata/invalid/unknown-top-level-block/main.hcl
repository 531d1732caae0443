landscape "test" {}

cluster "runtime" {
  context = "runtime"
}

shot "dev" {
  project       = "local"
  cloud_profile = "local"
  region        = "local"
}
