package clusterautoscaler

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for a shoot's cluster-autoscaler, which Gardener runs
// only if a worker pool has minimum < maximum (Gardener's "Shoot Autoscaling"
// docs/usage/autoscaling/shoot_autoscaling.md, "Worker" docs/extensions/resources/worker.md); its
// flags are the Shoot's .spec.kubernetes.clusterAutoscaler with their documented defaults
// (Gardener's ClusterAutoscaler in docs/api-reference/core.md).
func typeSchema() *schema.Schema {
	duration := func(name, def, description string) schema.Attribute {
		return schema.Attribute{Name: name, Type: cty.String, Default: cty.StringVal(def), Checks: attr.Checks(schema.Duration()), Description: description}
	}
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "cluster_autoscaler",
		Description: "The cluster-autoscaler of a shoot control plane (Gardener's fork, which scales MachineDeployments of the " +
			"machine-controller-manager): a Deployment in the shoot's namespace of the seed with one node group per worker pool and zone. " +
			"It renders nothing unless some worker pool has minimum < maximum.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("cluster", schema.RefCluster, "The seed the shoot's control plane runs in."),
				{Name: "namespace", Type: cty.String, Required: true, Checks: attr.Checks(schema.DNSLabel()), Description: "The shoot's control-plane namespace, shoot--<project>--<shoot>."},
				{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (cluster-autoscaler) by name: repository:tag, repository@sha256:digest or a bare tag."},
				{Name: "kubernetes_version", Type: cty.String, Checks: attr.Checks(schema.KubernetesVersion()), Description: "The shoot's Kubernetes version (1.27 or newer), which picks the autoscaler release as Gardener's image vector does; the newest release when unset."},
				{Name: "replicas", Type: cty.Number, Default: cty.NumberIntVal(1), Checks: attr.Checks(schema.NonNegative()), Description: "Replicas of the autoscaler: 1, or 0 while the shoot is hibernated."},
				duration("scale_down_delay_after_add", "1h", "How long after a scale-up scale-down evaluation resumes."),
				duration("scale_down_delay_after_delete", "0s", "How long after a node deletion scale-down evaluation resumes."),
				duration("scale_down_delay_after_failure", "3m", "How long after a failed scale-down scale-down evaluation resumes."),
				duration("scale_down_unneeded_time", "30m", "How long a node must be unneeded before it may be removed."),
				{Name: "scale_down_utilization_threshold", Type: cty.Number, Default: cty.NumberFloatVal(0.5), Checks: attr.Checks(schema.Range(0, 1)), Description: "Utilisation (0.0-1.0) below which a node may be removed."},
				duration("scan_interval", "10s", "How often the cluster is re-evaluated for scaling."),
				{Name: "expander", Type: cty.String, Default: cty.StringVal("least-waste"), Description: "How the node group to grow is chosen: least-waste, most-pods, priority or random, or several joined by commas."},
				duration("max_node_provision_time", "20m", "How long the autoscaler waits for a new node to appear."),
				{Name: "max_graceful_termination_seconds", Type: cty.Number, Default: cty.NumberIntVal(600), Checks: attr.Checks(schema.NonNegative()), Description: "Seconds the autoscaler waits for pods to terminate when removing a node."},
				duration("new_pod_scale_up_delay", "0s", "How long new pods are ignored before they may cause a scale-up."),
				{Name: "max_empty_bulk_delete", Type: cty.Number, Default: cty.NumberIntVal(10), Checks: attr.Checks(schema.Positive()), Description: "How many empty nodes may be removed at once."},
				{Name: "ignore_daemonsets_utilization", Type: cty.Bool, Default: cty.False, Description: "Whether DaemonSet pods are left out of a node's utilisation for scale-down."},
				{Name: "ignore_taints", Type: attr.StringList, Description: "Taint keys to ignore in node templates when deciding whether a node group can take pods."},
				{Name: "startup_taints", Type: attr.StringList, Description: "Taint keys the autoscaler treats as temporary startup taints of new nodes."},
				{Name: "status_taints", Type: attr.StringList, Description: "Taint keys the autoscaler treats as status taints, which do not keep pods off a node for its simulation."},
				{Name: "max_nodes_total", Type: cty.Number, Default: cty.NumberIntVal(0), Checks: attr.Checks(schema.NonNegative()), Description: "The most nodes the shoot may have over all pools; 0 for no cap. Shoots give the most their networks hold."},
				{Name: "verbosity", Type: cty.Number, Default: cty.NumberIntVal(2), Checks: attr.Checks(schema.NonNegative()), Description: "Log verbosity of the autoscaler."},
				{Name: "generic_kubeconfig_secret_name", Type: cty.String, Default: cty.StringVal(shootaccess.GenericKubeconfigSecretName), Checks: attr.Checks(schema.ObjectName()), Description: "Secret with the shoot's generic token kubeconfig (key kubeconfig)."},
				{Name: "access_secret_name", Type: cty.String, Default: cty.StringVal(shootaccess.SecretName(Name)), Checks: attr.Checks(schema.ObjectName()), Description: "The token-requestor Secret through which the autoscaler gets its token for the shoot."},
				{Name: "priority_class_name", Type: cty.String, Default: cty.StringVal(priorityclasses.System300), Checks: attr.Checks(schema.ObjectName()), Description: "PriorityClass of the pods; shoot control planes use gardener-system-300 for the autoscaler."},
			},
			Blocks: []schema.Block{
				{
					Name: "worker_pools", Nesting: schema.NestingList, Labels: []string{"name"},
					Description: "A worker pool of the shoot, labelled with its name; its minimum and maximum are split over its zones, one node group per zone.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "minimum", Type: cty.Number, Required: true, Checks: attr.Checks(schema.NonNegative()), Description: "The pool's least number of nodes over all zones."},
						{Name: "maximum", Type: cty.Number, Required: true, Checks: attr.Checks(schema.NonNegative()), Description: "The pool's greatest number of nodes over all zones."},
						{Name: "zones", Type: attr.StringList, Description: "The zones the pool spreads over."},
						{Name: "priority", Type: cty.Number, Description: "The pool's priority for the priority expander, which then comes first; pools without one count as 0."},
					}},
				},
				{
					Name: "machine_deployments", Nesting: schema.NestingList, Labels: []string{"name"},
					Description: "A MachineDeployment as the Worker reported it, labelled with its name; when any is given they replace the node groups derived from worker_pools.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "minimum", Type: cty.Number, Required: true, Checks: attr.Checks(schema.NonNegative()), Description: "The MachineDeployment's least number of machines."},
						{Name: "maximum", Type: cty.Number, Required: true, Checks: attr.Checks(schema.NonNegative()), Description: "The MachineDeployment's greatest number of machines."},
					}},
				},
			},
		},
	}
}
