package dependencywatchdog

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for the two dependency-watchdog instances of a seed,
// prober and weeder, which help shoot control planes through outages (Gardener's "Seed
// Bootstrapping" docs/operations/seed_bootstrapping.md, "Seed Settings"
// docs/operations/seed_settings.md).
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "dependency_watchdog",
		Description: "The dependency-watchdog-prober and dependency-watchdog-weeder Deployments in the seed's garden namespace, with their " +
			"content-addressed configuration ConfigMaps, RBAC, PodDisruptionBudgets and VerticalPodAutoscalers, as gardenlet deploys them. The prober scales down a shoot's kube-controller-manager, machine-controller-manager and " +
			"cluster-autoscaler while its kube-apiserver is reachable in-cluster but not through its load balancer; the weeder restarts " +
			"crash-looping control-plane pods as soon as etcd or kube-apiserver is available again.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The seed cluster."),
			{Name: "namespace", Type: cty.String, Default: cty.StringVal(DefaultNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of both instances."},
			{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (dependency-watchdog) by image name: \"repository:tag\", \"repository@sha256:...\" or a bare tag."},
			{Name: "prober_enabled", Type: cty.Bool, Default: cty.True, Description: "Whether the prober runs, which scales down a shoot's controllers while its API server is unreachable from outside, so that nodes are not marked NotReady and replaced."},
			{Name: "weeder_enabled", Type: cty.Bool, Default: cty.True, Description: "Whether the weeder runs, which restarts crash-looping control-plane pods as soon as what they depend on is back."},
		}},
	}
}
