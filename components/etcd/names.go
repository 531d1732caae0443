package etcd

import "fmt"

// DefaultNamePrefix is the prefix of the virtual garden's control-plane objects
// (virtual-garden-etcd-main, virtual-garden-etcd-events, Gardener's "Gardener Operator"
// docs/concepts/operator.md). Shoot control planes in a seed use the empty prefix (etcd-main,
// etcd-events, Gardener's "etcd" docs/concepts/etcd.md).
const DefaultNamePrefix = "virtual-garden-"

// DefaultNamespace is where the virtual garden's control plane runs (Gardener's
// docs/concepts/operator.md).
const DefaultNamespace = "garden"

// The two roles of Gardener's etcds: main holds every resource, events holds Kubernetes events
// only (Gardener's docs/concepts/etcd.md).
const (
	RoleMain   = "main"
	RoleEvents = "events"
)

// ClientPort is the port of the etcd client Service etcd-druid creates; kube-apiserver and
// gardener-apiserver connect to it (Gardener's "Topology Aware Routing"
// docs/operations/topology_aware_routing.md).
const ClientPort = 2379

// PeerPort is the port etcd members talk to each other on (etcd's well-known default; the
// documents are silent).
const PeerPort = 2380

// BackupPort is where the backup-restore sidecar serves its HTTP API (etcd-druid's default; the
// documents are silent).
const BackupPort = 8080

// Name is the name of the Etcd resource and of the StatefulSet etcd-druid creates for it,
// <prefix>etcd-<role> (Gardener's docs/concepts/operator.md).
func Name(prefix, role string) string { return prefix + "etcd-" + role }

// ClientServiceName is the name of the client Service etcd-druid creates for an Etcd,
// <prefix>etcd-<role>-client (Gardener's docs/operations/topology_aware_routing.md).
func ClientServiceName(prefix, role string) string { return Name(prefix, role) + "-client" }

// Endpoint is the URL API servers use to reach an etcd's members through its client Service.
func Endpoint(prefix, role, namespace string) string {
	return fmt.Sprintf("https://%s.%s.svc:%d", ClientServiceName(prefix, role), namespace, ClientPort)
}

// VolumeClaimTemplateName is the volume claim template the StatefulSet's PVCs are named after,
// so that the PVC is <template>-<statefulset>-<ordinal>. For historical reasons the main etcd's
// template is main-<prefix>etcd (PVC main-virtual-garden-etcd-virtual-garden-etcd-main-0), the
// events etcd's its own name (virtual-garden-etcd-events-virtual-garden-etcd-events-0)
// (Gardener's docs/concepts/operator.md).
func VolumeClaimTemplateName(prefix, role string) string {
	if role == RoleMain {
		return "main-" + prefix + "etcd"
	}
	return Name(prefix, role)
}
