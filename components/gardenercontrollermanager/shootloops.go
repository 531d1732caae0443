package gardenercontrollermanager

import (
	"fmt"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// ShootLoops are the settings of gardener-controller-manager's shoot loops that decide when it
// acts on a Shoot (ShootHibernationControllerConfiguration, ShootMaintenanceControllerConfiguration,
// ShootQuotaControllerConfiguration and ShootRetryControllerConfiguration in
// pkg/controllermanager/apis/config/v1alpha1/types.go at Gardener v1.120.0). The garden renders
// them into the controller manager's configuration and hands the same values to its seeds and
// their shoots (the garden's and the seed's output gardener_controller_manager), which predict
// those loops with them: one definition of each, the component schema's defaults.
type ShootLoops struct {
	// HibernationTriggerDeadline is how late after a schedule's trigger the hibernation loop
	// still carries it out (triggerDeadlineDuration).
	HibernationTriggerDeadline string `json:"hibernation_trigger_deadline"`
	// MaintenanceRestartControlPlane and MaintenanceRestartCoreAddons make maintenance ask for
	// restarts of the control-plane pods and the core addons (enableShootControlPlaneRestarter,
	// enableShootCoreAddonRestarter).
	MaintenanceRestartControlPlane bool `json:"maintenance_restart_control_plane"`
	MaintenanceRestartCoreAddons   bool `json:"maintenance_restart_core_addons"`
	// QuotaSyncPeriod is how often the quota loop looks at a Shoot, so how late after its
	// expiration timestamp a Shoot is deleted at most (syncPeriod).
	QuotaSyncPeriod string `json:"quota_sync_period"`
	// RetryPeriod and RetryJitterPeriod: a Shoot that failed on rate limits is retried
	// RetryPeriod after its last operation, plus up to RetryJitterPeriod at random
	// (retryPeriod, retryJitterPeriod).
	RetryPeriod       string `json:"retry_period"`
	RetryJitterPeriod string `json:"retry_jitter_period"`
}

// ShootLoopsType is the type of the outputs that carry ShootLoops.
var ShootLoopsType = cty.Object(map[string]cty.Type{
	"hibernation_trigger_deadline":      cty.String,
	"maintenance_restart_control_plane": cty.Bool,
	"maintenance_restart_core_addons":   cty.Bool,
	"quota_sync_period":                 cty.String,
	"retry_period":                      cty.String,
	"retry_jitter_period":               cty.String,
})

// ShootLoops are the controller manager's shoot loop settings.
func (v Values) ShootLoops() ShootLoops {
	return ShootLoops{
		HibernationTriggerDeadline:     v.ShootHibernationTriggerDeadline,
		MaintenanceRestartControlPlane: v.ShootMaintenanceRestartControlPlane,
		MaintenanceRestartCoreAddons:   v.ShootMaintenanceRestartCoreAddons,
		QuotaSyncPeriod:                v.ShootQuotaSyncPeriod,
		RetryPeriod:                    v.ShootRetryPeriod,
		RetryJitterPeriod:              v.ShootRetryJitterPeriod,
	}
}

// DefaultShootLoops are the settings of a controller manager configured with the schema's
// defaults, for shoots whose seed passes none (values built in Go).
func DefaultShootLoops() ShootLoops { return Type.Defaults().ShootLoops() }

// Value is the settings as an output value of type ShootLoopsType.
func (s ShootLoops) Value() cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"hibernation_trigger_deadline":      cty.StringVal(s.HibernationTriggerDeadline),
		"maintenance_restart_control_plane": cty.BoolVal(s.MaintenanceRestartControlPlane),
		"maintenance_restart_core_addons":   cty.BoolVal(s.MaintenanceRestartCoreAddons),
		"quota_sync_period":                 cty.StringVal(s.QuotaSyncPeriod),
		"retry_period":                      cty.StringVal(s.RetryPeriod),
		"retry_jitter_period":               cty.StringVal(s.RetryJitterPeriod),
	})
}

// Durations parses the settings that are durations.
func (s ShootLoops) Durations() (ShootLoopDurations, error) {
	var d ShootLoopDurations
	for _, f := range []struct {
		name  string
		value string
		into  *time.Duration
	}{
		{"hibernation trigger deadline", s.HibernationTriggerDeadline, &d.HibernationTriggerDeadline},
		{"quota sync period", s.QuotaSyncPeriod, &d.QuotaSyncPeriod},
		{"retry period", s.RetryPeriod, &d.RetryPeriod},
		{"retry jitter period", s.RetryJitterPeriod, &d.RetryJitterPeriod},
	} {
		p, err := time.ParseDuration(f.value)
		if err != nil || p < 0 {
			return ShootLoopDurations{}, fmt.Errorf("gardener-controller-manager's %s %q is not a duration such as 10m", f.name, f.value)
		}
		*f.into = p
	}
	return d, nil
}

// ShootLoopDurations are the durations of ShootLoops, parsed.
type ShootLoopDurations struct {
	HibernationTriggerDeadline, QuotaSyncPeriod, RetryPeriod, RetryJitterPeriod time.Duration
}
