package gardenercontrollermanager

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/internal/projectcontroller"
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
	)
	attrs = append(attrs, projectcontroller.Attributes()...)
	attrs = append(attrs, ShootLoopAttributes()...)
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "gardener_controller_manager",
		Description: "The Gardener controller manager (gardener-controller-manager) with the controllers for projects, seeds' lifecycle, shoot maintenance, hibernation and quotas, " +
			"finalizers and ControllerInstallations in the virtual garden: Deployment (1 replica, 2 when highly available), ConfigMap, metrics Service " +
			"and PodDisruptionBudget in the runtime cluster, its RBAC in the virtual garden. It needs gardener-apiserver serving.",
		Body: schema.Body{
			Attributes: attrs,
			Blocks:     []schema.Block{projectcontroller.QuotaBlock()},
		},
		Outputs: []schema.Output{projectcontroller.Output()},
	}
}

// ShootLoopAttributes are the settings of the shoot loops (ShootLoops), with Gardener's defaults
// (SetDefaults_ControllerManagerControllerConfiguration in
// pkg/controllermanager/apis/config/v1alpha1/defaults.go at Gardener v1.120.0). The garden block's
// controller_manager block takes the same attributes without defaults: what it leaves out is
// these.
func ShootLoopAttributes() []schema.Attribute {
	return []schema.Attribute{
		{Name: "shoot_hibernation_trigger_deadline", Type: cty.String, Default: cty.StringVal("2h"), Checks: attr.Checks(schema.Duration()), Description: "How late after a hibernation schedule's start or end the hibernation loop still carries it out, when it missed the moment (a restart, an edited schedule)."},
		{Name: "shoot_maintenance_restart_control_plane", Type: cty.Bool, Default: cty.True, Description: "Whether a shoot's maintenance asks for a restart of its control-plane pods."},
		{Name: "shoot_maintenance_restart_core_addons", Type: cty.Bool, Default: cty.False, Description: "Whether a shoot's maintenance asks for a restart of its core addons."},
		{Name: "shoot_quota_sync_period", Type: cty.String, Default: cty.StringVal("60m"), Checks: attr.Checks(schema.Duration()), Description: "How often the quota loop looks at a shoot: a shoot whose cluster lifetime ended is deleted at most this long after its expiration timestamp."},
		{Name: "shoot_retry_period", Type: cty.String, Default: cty.StringVal("10m"), Checks: attr.Checks(schema.Duration()), Description: "How long after a shoot's operation failed on rate limits (ERR_INFRA_RATE_LIMITS_EXCEEDED) it is retried."},
		{Name: "shoot_retry_jitter_period", Type: cty.String, Default: cty.StringVal("5m"), Checks: attr.Checks(schema.Duration()), Description: "Up to how much later, at random, such a retry comes, so that retries do not all come at once."},
	}
}
