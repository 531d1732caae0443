package shoot

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Condition types of a Shoot (pkg/apis/core/v1beta1/types_shoot.go at Gardener v1.120.0).
const (
	ConditionAPIServerAvailable             = "APIServerAvailable"
	ConditionControlPlaneHealthy            = "ControlPlaneHealthy"
	ConditionObservabilityComponentsHealthy = "ObservabilityComponentsHealthy"
	ConditionEveryNodeReady                 = "EveryNodeReady"
	ConditionSystemComponentsHealthy        = "SystemComponentsHealthy"
)

// Operation is how gardenlet words a Shoot's last operation (updateShootStatusOperationStart
// and the flow names in pkg/gardenlet/controller/shoot/shoot at Gardener v1.120.0).
var Operation = &render.Operation{
	Subject: "Shoot cluster",
	Flows: map[string]string{
		"Create":    "Shoot cluster reconciliation",
		"Reconcile": "Shoot cluster reconciliation",
		"Delete":    "Shoot cluster deletion",
	},
	Create:     true,
	LastErrors: true,
}

// report is what the engine reports about the Shoot as gardenlet does for the shoots of its seed:
// the operation through every apply that changes the control plane, the care controller's
// conditions from the readiness of the parts they watch (pkg/gardenlet/controller/shoot/care),
// and the status fields gardenlet sets: technicalID, seedName, uid, hibernated and the
// advertised addresses the Shoot's adminkubeconfig subresource builds kubeconfigs from
// (pkg/gardenlet/operation/botanist/advertisedaddresses.go).
func (b *builder) report() render.Report {
	r := render.Report{
		Cluster: b.seed.VirtualCluster, APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot",
		Namespace: ProjectNamespace(b.v.Project), Name: b.name,
		Status: b.reportedStatus(), CopyUID: true, GardenerVersion: images.GardenerVersion,
		Operation: Operation, Conditions: b.conditions(),
	}
	if b.fromAPI {
		// The user's Shoot is not rendered, so its reconcile request is removed by the report
		// once the reconciliation is done, as gardenlet removes it.
		r.Consume = b.operation.consumed()
	}
	return r
}

// reportedStatus are the status fields the engine sets on the Shoot besides the operation, the
// conditions and the fields every report carries: technicalID, seedName, hibernated and the
// advertised addresses. They change only with the landscape or an operation, which is why the
// extensions Cluster embeds them too (registration.go).
func (b *builder) reportedStatus() map[string]any {
	status := map[string]any{
		"technicalID": b.ns,
		"seedName":    b.seed.Name,
		"hibernated":  b.hibernated,
	}
	if addresses := b.advertisedAddresses(); len(addresses) > 0 {
		status["advertisedAddresses"] = addresses
	}
	return status
}

// advertisedAddresses are the addresses gardenlet advertises for the shoot's API server, in its
// order: external (api.<domain>), then internal (api.<name>.<project>.<internal domain>), as the
// shoot's DNS records name them.
func (b *builder) advertisedAddresses() []any {
	var out []any
	if b.has("dns_record_external") {
		out = append(out, map[string]any{"name": "external", "url": "https://api." + b.domain()})
	}
	if b.has("dns_record_internal") {
		out = append(out, map[string]any{"name": "internal", "url": "https://api." + b.name + "." + b.v.Project + "." + b.v.InternalDomain.Domain})
	}
	return out
}

// conditions are the care controller's conditions, each from the parts it checks: a hibernated
// shoot's are True and not checked, as gardenlet reports them (shootHibernatedConditions); a
// shoot without workers has no EveryNodeReady; with workers the engine cannot see the nodes, and
// says so with Unknown.
func (b *builder) conditions() []render.ReportedCondition {
	types := []string{ConditionAPIServerAvailable, ConditionControlPlaneHealthy, ConditionObservabilityComponentsHealthy}
	if len(b.v.Workers) > 0 {
		types = append(types, ConditionEveryNodeReady)
	}
	types = append(types, ConditionSystemComponentsHealthy)
	if b.hibernated {
		out := make([]render.ReportedCondition, 0, len(types))
		for _, t := range types {
			out = append(out, render.ReportedCondition{Type: t, Status: "True", Reason: "ConditionNotChecked", Message: "Shoot cluster has been hibernated."})
		}
		return out
	}
	controlPlane := b.existing("etcd_main", "etcd_events", "kube_apiserver", "gardener_resource_manager", "kube_controller_manager",
		"kube_scheduler", "machine_controller_manager", "cluster_autoscaler")
	out := []render.ReportedCondition{
		judged(ConditionAPIServerAvailable, b.existing("kube_apiserver"), "HealthzRequestSucceeded",
			"API server /healthz endpoint responded with success status code.", "HealthzRequestFailed"),
		judged(ConditionControlPlaneHealthy, controlPlane, "ControlPlaneRunning", "All control plane components are healthy.", "DeploymentUnhealthy"),
		judged(ConditionObservabilityComponentsHealthy, b.existing("observability"), "ObservabilityComponentsRunning",
			"All observability components are healthy.", "DeploymentUnhealthy"),
	}
	if len(b.v.Workers) > 0 {
		out = append(out, render.ReportedCondition{Type: ConditionEveryNodeReady, Status: "Unknown", Reason: "NodesNotVisible",
			Message: "The engine does not watch the shoot's nodes; their readiness is not known."})
	}
	return append(out, judged(ConditionSystemComponentsHealthy, b.existing("system_components", "vpn_seed_server"),
		"SystemComponentsRunning", "All system components are healthy.", "SystemComponentsUnhealthy"))
}

// judged is a condition judged by the readiness of parts; without any of them there is nothing
// that could be unhealthy (a shoot of purpose testing has no observability), and it is True.
func judged(typ string, parts []string, reason, message, falseReason string) render.ReportedCondition {
	c := render.ReportedCondition{Type: typ, Parts: parts, Reason: reason, Message: message, FalseReason: falseReason}
	if len(parts) == 0 {
		c.Status = "True"
	}
	return c
}

// existing are the parts of names that the shoot has.
func (b *builder) existing(names ...string) []string {
	var out []string
	for _, n := range names {
		if b.has(n) {
			out = append(out, n)
		}
	}
	return out
}

// publication is what gardenlet publishes to the garden for the shoot, in its project namespace
// (syncShootCredentialToGarden, syncInternalSecretToGarden in
// pkg/gardenlet/operation/botanist/secrets.go at Gardener v1.120.0): the cluster CA bundle as the
// Secret <shoot>.ca-cluster, and the client CA with its key as the InternalSecret <shoot>.ca-client,
// from which the Shoot's adminkubeconfig and viewerkubeconfig subresources sign client
// certificates (pkg/apiserver/registry/core/shoot/storage/kubeconfig.go). Each is controlled by the
// Shoot. gardenlet writes the bundle as a ConfigMap of the same name too, which the subresource
// reads first and falls back from to the Secret: the engine leaves the ConfigMap out, because a CA
// in an object that is not a Secret would make a saved plan that generates the CA go stale
// (every plan generates a new one, and only Secrets' data stays out of the configuration hash).
func (b *builder) publication() error {
	namespace, shoot := ProjectNamespace(b.v.Project), b.name
	uid := b.shootUID()
	owner := []any{map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot", "name": shoot, "uid": uid,
		"controller": true, "blockOwnerDeletion": true,
	}}
	meta := func(name string, labels map[string]any) map[string]any {
		return map[string]any{"name": name, "namespace": namespace, "labels": labels, "ownerReferences": owner}
	}
	objects := []*unstructured.Unstructured{
		{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
			"metadata": meta(shoot+".ca-cluster", map[string]any{"gardener.cloud/role": "ca-cluster"}),
			"data":     map[string]any{"ca.crt": render.GeneratedRef(b.ns, secretCA, "ca.crt", true)}}},
		{Object: map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "InternalSecret", "type": "Opaque",
			"metadata": meta(shoot+".ca-client", map[string]any{"gardener.cloud/role": "ca-client"}),
			"data": map[string]any{
				"ca.crt": render.GeneratedRef(b.ns, secretClientCA, "ca.crt", true),
				"ca.key": render.GeneratedRef(b.ns, secretClientCA, "ca.key", true),
			}}},
	}
	deps := []string{"ca", "ca_client"}
	if !b.fromAPI {
		deps = append([]string{"shoot"}, deps...)
	}
	b.add("garden_publication", "manifests", kube.On(b.seed.VirtualCluster, "", objects...), deps...)
	return nil
}
