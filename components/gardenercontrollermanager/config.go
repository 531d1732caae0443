package gardenercontrollermanager

// concurrentSyncs is the number of workers of each controller; Gardener's documentation gives none,
// 5 is Gardener's usual default.
const concurrentSyncs = 5

// controllersWithoutOptions are the controllers of Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md that take only a worker count.
var controllersWithoutOptions = []string{
	"certificateSigningRequest", "cloudProfile", "controllerDeployment", "controllerRegistration", "credentialsBinding",
	"exposureClass", "managedSeedSet", "namespacedCloudProfile", "quota", "secretBinding", "shootConditions",
	"shootReference", "shootStatusLabel",
}

// config is the ControllerManagerConfiguration.
func (r resolved) config() map[string]any {
	controllers := map[string]any{}
	for _, c := range controllersWithoutOptions {
		controllers[c] = map[string]any{"concurrentSyncs": concurrentSyncs}
	}
	controllers["bastion"] = map[string]any{"concurrentSyncs": concurrentSyncs, "maxLifetime": r.Values.BastionMaxLifetime}
	if r.Values.EventTTL != "" {
		// The event controller runs only when configured (Gardener's
		// docs/concepts/controller-manager.md).
		controllers["event"] = map[string]any{"concurrentSyncs": concurrentSyncs, "ttlNonShootEvents": r.Values.EventTTL}
	}
	controllers["project"] = r.Values.Settings().Config(concurrentSyncs)
	controllers["seed"] = map[string]any{"concurrentSyncs": concurrentSyncs, "monitorPeriod": r.Values.SeedMonitorPeriod}
	if r.Values.BackupBucketsConditionThreshold != "" {
		// The Backup Buckets Check reports Progressing before False for this long (Gardener's
		// docs/concepts/controller-manager.md), in the conditionThresholds form of the care controllers
		// (Gardener's "gardenlet" docs/concepts/gardenlet.md).
		controllers["seedBackupBucketsCheck"] = map[string]any{
			"concurrentSyncs":     concurrentSyncs,
			"conditionThresholds": []any{map[string]any{"type": "BackupBucketsReady", "duration": r.Values.BackupBucketsConditionThreshold}},
		}
	}
	r.shootLoops(controllers)
	out := r.ControllerConfig("controllermanager.config.gardener.cloud/v1alpha1", "ControllerManagerConfiguration",
		"gardenClientConnection", HealthProbePort, MetricsPort)
	out["controllers"] = controllers
	return out
}

// shootLoops configures the shoot loops whose settings shoots predict them with (ShootLoops):
// shootHibernation, shootMaintenance, shootQuota and shootRetry of ControllerManagerConfiguration
// (pkg/controllermanager/apis/config/v1alpha1/types.go at Gardener v1.120.0).
func (r resolved) shootLoops(controllers map[string]any) {
	s := r.Values.ShootLoops()
	controllers["shootHibernation"] = map[string]any{"concurrentSyncs": concurrentSyncs, "triggerDeadlineDuration": s.HibernationTriggerDeadline}
	controllers["shootMaintenance"] = map[string]any{
		"concurrentSyncs":                  concurrentSyncs,
		"enableShootControlPlaneRestarter": s.MaintenanceRestartControlPlane,
		"enableShootCoreAddonRestarter":    s.MaintenanceRestartCoreAddons,
	}
	controllers["shootQuota"] = map[string]any{"concurrentSyncs": concurrentSyncs, "syncPeriod": s.QuotaSyncPeriod}
	controllers["shootRetry"] = map[string]any{"concurrentSyncs": concurrentSyncs, "retryPeriod": s.RetryPeriod, "retryJitterPeriod": s.RetryJitterPeriod}
}
