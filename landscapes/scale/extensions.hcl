# The extensions the seeds and shoots use, registered in the virtual garden and installed on the
# seeds as in landscapes/local, whose charts they share. gardener-apiserver refuses a Seed or
# Shoot that uses a type no ControllerRegistration registers, so the engine applies each Seed and
# Shoot after the extensions registering their types.

locals {
  # The seeds the extensions may be installed on; a seed has shoots when the round-robin of
  # local.shoots puts any there.
  extension_seeds = [
    { name = seed.s1.name, cluster = cluster.seed_1, provider = "local", region = "local", has_shoots = contains(values(local.shoots), 0) },
    { name = seed.s2.name, cluster = cluster.seed_2, provider = "local", region = "local", has_shoots = contains(values(local.shoots), 1) },
    { name = seed.s3.name, cluster = cluster.seed_3, provider = "local", region = "local", has_shoots = contains(values(local.shoots), 2) },
  ]
}

# The local provider: the seeds' provider and DNS provider, the shoots' infrastructure, control
# plane, workers and their operating system ("local" machine images), and backups.
component "extension" "provider_local" {
  virtual_cluster         = cluster.virtual_garden
  name                    = "provider-local"
  chart                   = "../local/charts/provider-local"
  garden_cluster_identity = garden.scale.name
  policy                  = "Always"

  resource "Infrastructure" "local" {}
  resource "ControlPlane" "local" {}
  resource "Worker" "local" {}
  resource "OperatingSystemConfig" "local" {}
  resource "DNSRecord" "local" {}
  resource "BackupBucket" "local" {}
  resource "BackupEntry" "local" {}

  seeds = local.extension_seeds
}

# Calico, the shoots' networking type, on the seeds whose shoots use it.
component "extension" "networking_calico" {
  virtual_cluster         = cluster.virtual_garden
  name                    = "networking-calico"
  chart                   = "../local/charts/networking-calico"
  garden_cluster_identity = garden.scale.name
  pod_security_enforce    = "baseline"

  resource "Network" "calico" {}

  seeds = [for s in local.extension_seeds : merge(s, { shoot_types = s.has_shoots ? ["Network/calico"] : [] })]
}
