# Gardener API objects in the virtual garden: what the shoots of this landscape refer to. On the
# local control plane the virtual garden serves them with the real gardener-apiserver.

component "project" "local" {
  cluster     = cluster.virtual_garden
  description = "Shoots of the local landscape"

  owner {
    name = "admin@local.gardener.cloud"
  }

  member "ops@local.gardener.cloud" {
    kind = "Group"
    role = "admin"
  }

  # gardener-controller-manager creates the project's namespace, its members' RBAC and its
  # ResourceQuota with these settings (garden.hcl); plans predict what it does.
  project_controller = garden.local.project_controller
}

component "cloud_profile" "local" {
  cluster = cluster.virtual_garden
  type    = "local"

  kubernetes_version "1.31.1" {
    classification = "supported"
  }

  machine_image "local" {
    version "1.0.0" {
      classification = "supported"
    }
  }

  machine_type "local" {
    cpu    = "2"
    memory = "4Gi"
  }

  region "local" {
    zones = ["0"]
  }
}

# The infrastructure credentials of the project: the local provider needs none, so the Secret
# is empty; a real landscape would fill it from a sensitive variable.
component "manifests" "local_credentials" {
  cluster   = cluster.virtual_garden
  namespace = component.project.local.namespace

  objects = [{
    apiVersion = "v1"
    kind       = "Secret"
    metadata   = { name = "local-credentials" }
    type       = "Opaque"
  }]
}

component "credentials_binding" "local" {
  cluster       = cluster.virtual_garden
  namespace     = component.project.local.namespace
  provider_type = "local"

  credentials_ref {
    name      = "local-credentials"
    namespace = component.project.local.namespace
  }

  depends_on = [component.manifests.local_credentials]
}
