package reserveexcesscapacity

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for a seed's reserve-excess-capacity placeholder
// pods, which keep headroom for new shoot control planes (Gardener's "Seed Settings"
// docs/operations/seed_settings.md).
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "reserve_excess_capacity",
		Description: "A Deployment of pause pods in the seed's garden namespace with the lowest priority class, gardener-reserve-excess-capacity (-5): " +
			"every other pod preempts them, so new shoot control planes are scheduled at once while the cluster-autoscaler adds nodes for the " +
			"evicted placeholders. By default each pod reserves 2 CPUs and 6Gi, with one replica per zone and at least 2; the i-th reservation " +
			"of a seed is named reserve-excess-capacity-<i>, and all carry the labels app=kubernetes, role=reserve-excess-capacity, as gardenlet deploys them.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("cluster", schema.RefCluster, "The seed cluster."),
				{Name: "name", Type: cty.String, Default: cty.StringVal(DefaultName), Checks: attr.Checks(schema.DNSLabel()), Description: "Name of the Deployment; gardenlet names the i-th reservation of a seed reserve-excess-capacity-<i>."},
				{Name: "namespace", Type: cty.String, Default: cty.StringVal(DefaultNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of the Deployment."},
				{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (pause) by image name: \"repository:tag\", \"repository@sha256:...\" or a bare tag."},
				{Name: "zones", Type: cty.Number, Default: cty.NumberIntVal(1), Checks: attr.Checks(schema.Positive()), Description: "The number of the seed's zones; one placeholder pod runs per zone, but at least 2."},
				{Name: "replicas", Type: cty.Number, Checks: attr.Checks(schema.Positive()), Description: "The number of placeholder pods, instead of one per zone (at least 2)."},
				{Name: "cpu", Type: cty.String, Default: cty.StringVal(DefaultCPU), Checks: attr.Checks(schema.Quantity()), Description: "CPU each placeholder pod reserves."},
				{Name: "memory", Type: cty.String, Default: cty.StringVal(DefaultMemory), Checks: attr.Checks(schema.Quantity()), Description: "Memory each placeholder pod reserves."},
				{Name: "node_selector", Type: cty.Map(cty.String), Description: "Node labels the placeholder pods require, to reserve capacity on some nodes only."},
			},
			Blocks: []schema.Block{{
				Name: "toleration", Nesting: schema.NestingList,
				Description: "A taint the placeholder pods tolerate, to reserve capacity on tainted nodes.",
				Body: schema.Body{Attributes: []schema.Attribute{
					{Name: "key", Type: cty.String, Description: "The taint key; empty with operator Exists tolerates every taint."},
					{Name: "operator", Type: cty.String, Default: cty.StringVal("Equal"), AllowedValues: []string{"Equal", "Exists"}, Description: "Equal matches key and value, Exists the key alone."},
					{Name: "value", Type: cty.String, Description: "The taint value, for operator Equal."},
					{Name: "effect", Type: cty.String, AllowedValues: []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}, Description: "The taint effect; all effects when unset."},
				}},
			}},
		},
	}
}
