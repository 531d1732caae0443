package gardenerscheduler

import (
	"slices"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type of the controller that assigns seeds to new shoots
// (Gardener's "Gardener Scheduler" docs/concepts/scheduler.md).
func typeSchema() *schema.Schema {
	attrs := append(gardenercontrolplane.Attributes("gardener-scheduler"),
		schema.Attribute{Name: "strategy", Type: cty.String, Default: cty.StringVal(Strategies[0]), AllowedValues: slices.Clone(Strategies),
			Description: "How seed candidates are chosen: SameRegion (a seed in the shoot's region) or MinimalDistance (the nearest region, by the distances in ConfigMaps labelled scheduling.gardener.cloud/purpose=region-config)."},
	)
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "gardener_scheduler",
		Description: "The Gardener scheduler (gardener-scheduler), which assigns a seed to every new shoot: Deployment (1 replica, 2 when highly available), ConfigMap, " +
			"metrics Service and PodDisruptionBudget in the runtime cluster, its RBAC in the virtual garden. It needs gardener-apiserver serving.",
		Body: schema.Body{Attributes: attrs},
	}
}
