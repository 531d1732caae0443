package gardenercontrollermanager

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
	out := r.ControllerConfig("controllermanager.config.gardener.cloud/v1alpha1", "ControllerManagerConfiguration",
		"gardenClientConnection", HealthProbePort, MetricsPort)
	out["controllers"] = controllers
	return out
}
