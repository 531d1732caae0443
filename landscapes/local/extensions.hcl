# The extensions of the landscape: each registered in the virtual garden (part registration) and,
# for every ControllerInstallation gardener-controller-manager creates for the seed, installed the
# way gardenlet installs it (part installation_<seed>: its chart, with Gardener's values mixed in,
# through a ManagedResource into extension-<installation>); plans predict the installations. Every
# extension kind and type the seed and the shoots use is registered here: gardener-apiserver refuses
# a Seed or Shoot that uses a type no ControllerRegistration registers, so the engine applies the
# Seed and each Shoot after the registrations of their types (`gardener graph landscapes/local`).

# The local provider: the seed's provider and DNS provider, the shoots' infrastructure, control
# plane, workers and their operating system ("local" machine images), and backups. These are the
# kinds Gardener's own provider-local registers (example/provider-local in gardener/gardener).
component "extension" "provider_local" {
  virtual_cluster         = cluster.virtual_garden
  name                    = "provider-local"
  chart                   = "./charts/provider-local"
  garden_cluster_identity = garden.local.name
  policy                  = "Always"

  resource "Infrastructure" "local" {}
  resource "ControlPlane" "local" {}
  resource "Worker" "local" {}
  resource "OperatingSystemConfig" "local" {}
  resource "DNSRecord" "local" {}
  resource "BackupBucket" "local" {}
  resource "BackupEntry" "local" {}

  seeds = [{
    name       = seed.local.name
    cluster    = cluster.runtime
    provider   = "local"
    region     = "local"
    has_shoots = true
  }]
}

# Calico, the shoots' networking type: installed on demand, on seeds whose shoots use it, as
# Gardener's registration of gardener-extension-networking-calico does: gardener-controller-manager
# creates its installation once a Shoot that needs it exists, and its part follows the Shoots. The
# seed entry says what the shoots of this landscape not applied yet use, for the plans' predictions.
component "extension" "networking_calico" {
  virtual_cluster         = cluster.virtual_garden
  name                    = "networking-calico"
  chart                   = "./charts/networking-calico"
  garden_cluster_identity = garden.local.name
  pod_security_enforce    = "baseline"

  resource "Network" "calico" {}

  seeds = [{
    name        = seed.local.name
    cluster     = cluster.runtime
    provider    = "local"
    region      = "local"
    has_shoots  = true
    shoot_types = ["Network/calico"]
  }]
}
