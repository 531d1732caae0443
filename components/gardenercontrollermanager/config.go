package gardenercontrollermanager

import (
	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
)

// concurrentSyncs is the number of workers of each controller; Gardener's documentation gives none,
// 5 is Gardener's usual default.
const concurrentSyncs = 5

// controllersWithoutOptions are the controllers of Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md that take only a worker count.
var controllersWithoutOptions = []string{
	"certificateSigningRequest", "cloudProfile", "controllerDeployment", "controllerRegistration", "credentialsBinding",
	"exposureClass", "managedSeedSet", "namespacedCloudProfile", "quota", "secretBinding", "shootConditions",
	"shootHibernation", "shootMaintenance", "shootQuota", "shootReference", "shootRetry", "shootStatusLabel",
}

func (r resolved) quotas() []map[string]any {
	out := make([]map[string]any, 0, len(r.ProjectQuotas))
	for _, q := range r.ProjectQuotas {
		hard := map[string]any{}
		for k, v := range q.Hard {
			hard[k] = v
		}
		selector := map[string]any{}
		if len(q.ProjectSelector) > 0 {
			labels := map[string]any{}
			for k, v := range q.ProjectSelector {
				labels[k] = v
			}
			selector["matchLabels"] = labels
		}
		out = append(out, map[string]any{
			"config":          map[string]any{"apiVersion": "v1", "kind": "ResourceQuota", "spec": map[string]any{"hard": hard}},
			"projectSelector": selector,
		})
	}
	return out
}

// config is the ControllerManagerConfiguration.
func (r resolved) config() map[string]any {
	controllers := map[string]any{}
	for _, c := range controllersWithoutOptions {
		controllers[c] = map[string]any{"concurrentSyncs": concurrentSyncs}
	}
	controllers["bastion"] = map[string]any{"concurrentSyncs": concurrentSyncs, "maxLifetime": r.BastionMaxLifetime}
	if r.EventTTL != "" {
		// The event controller runs only when configured (Gardener's
		// docs/concepts/controller-manager.md).
		controllers["event"] = map[string]any{"concurrentSyncs": concurrentSyncs, "ttlNonShootEvents": r.EventTTL}
	}
	project := map[string]any{
		"concurrentSyncs":         concurrentSyncs,
		"minimumLifetimeDays":     r.ProjectMinimumLifetimeDays,
		"staleGracePeriodDays":    r.ProjectStaleGracePeriodDays,
		"staleExpirationTimeDays": r.ProjectStaleExpirationTimeDays,
	}
	if len(r.ProjectQuotas) > 0 {
		project["quotas"] = r.quotas()
	}
	controllers["project"] = project
	controllers["seed"] = map[string]any{"concurrentSyncs": concurrentSyncs, "monitorPeriod": r.SeedMonitorPeriod}
	if r.BackupBucketsConditionThreshold != "" {
		// The Backup Buckets Check reports Progressing before False for this long (Gardener's
		// docs/concepts/controller-manager.md), in the conditionThresholds form of the care controllers
		// (Gardener's "gardenlet" docs/concepts/gardenlet.md).
		controllers["seedBackupBucketsCheck"] = map[string]any{
			"concurrentSyncs":     concurrentSyncs,
			"conditionThresholds": []any{map[string]any{"type": "BackupBucketsReady", "duration": r.BackupBucketsConditionThreshold}},
		}
	}
	out := map[string]any{
		"apiVersion":             "controllermanager.config.gardener.cloud/v1alpha1",
		"kind":                   "ControllerManagerConfiguration",
		"gardenClientConnection": gardenercontrolplane.ClientConnection(),
		"leaderElection":         gardenercontrolplane.LeaderElection(),
		"logLevel":               r.LogLevel,
		"logFormat":              "json",
		"server": map[string]any{
			"healthProbes": map[string]any{"port": HealthProbePort},
			"metrics":      map[string]any{"port": MetricsPort},
		},
		"controllers": controllers,
	}
	if gates := gardenercontrolplane.FeatureGatesConfig(r.FeatureGates); gates != nil {
		out["featureGates"] = gates
	}
	return out
}
