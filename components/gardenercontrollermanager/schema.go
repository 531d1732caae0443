package gardenercontrollermanager

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type of the controllers working on the virtual
// garden's Gardener resources (Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md).
func typeSchema() *schema.Schema {
	attrs := append(gardenercontrolplane.Attributes("gardener-controller-manager"),
		schema.Attribute{Name: "bastion_max_lifetime", Type: cty.String, Default: cty.StringVal("24h"), Checks: attr.Checks(schema.Duration()), Description: "How long a Bastion may live at most before it is deleted as rotten."},
		schema.Attribute{Name: "event_ttl", Type: cty.String, Checks: attr.Checks(schema.Duration()), Description: "Enables the event controller, which deletes events not about shoots once they are this old, such as 1h; the virtual kube-apiserver's event TTL must be larger. Off when unset."},
		schema.Attribute{Name: "backup_buckets_condition_threshold", Type: cty.String, Checks: attr.Checks(schema.Duration()), Description: "How long a seed's BackupBucketsReady condition is Progressing before it turns False when one of its backup buckets has an error (the Backup Buckets Check's conditionThreshold); False at once when unset. Give the seeds' backup blocks the same condition_threshold."},
		schema.Attribute{Name: "seed_monitor_period", Type: cty.String, Default: cty.StringVal("40s"), Checks: attr.Checks(schema.Duration()), Description: "How long a seed's Lease may go unrenewed before its GardenletReady condition (and its shoots' conditions) turn Unknown."},
		schema.Attribute{Name: "project_minimum_lifetime_days", Type: cty.Number, Default: cty.NumberIntVal(30), Checks: attr.Checks(schema.Positive()), Description: "Projects younger than this are never considered stale."},
		schema.Attribute{Name: "project_stale_grace_period_days", Type: cty.Number, Default: cty.NumberIntVal(14), Checks: attr.Checks(schema.Positive()), Description: "Stale projects unused for less than this get no auto-delete timestamp."},
		schema.Attribute{Name: "project_stale_expiration_time_days", Type: cty.Number, Default: cty.NumberIntVal(90), Checks: attr.Checks(schema.Positive()), Description: "Stale projects are deleted this long after they became stale."},
	)
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "gardener_controller_manager",
		Description: "The Gardener controller manager (gardener-controller-manager) with the controllers for projects, seeds' lifecycle, shoot maintenance, hibernation and quotas, " +
			"finalizers and ControllerInstallations in the virtual garden: Deployment (1 replica, 2 when highly available), ConfigMap, metrics Service " +
			"and PodDisruptionBudget in the runtime cluster, its RBAC in the virtual garden. It needs gardener-apiserver serving.",
		Body: schema.Body{
			Attributes: attrs,
			Blocks: []schema.Block{{
				Name: "project_quota", Nesting: schema.NestingList,
				Description: "A default ResourceQuota named gardener for the project namespaces it matches; the first matching block applies.",
				Body: schema.Body{Attributes: []schema.Attribute{
					{Name: "hard", Type: cty.Map(cty.String), Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The quota's limits, such as { \"count/shoots.core.gardener.cloud\" = \"100\" }."},
					{Name: "project_selector", Type: cty.Map(cty.String), Description: "Labels a Project must carry for the quota; all projects when unset."},
				}},
			}},
		},
	}
}
