package readiness

import "testing"

func TestSeed(t *testing.T) {
	const head = `
apiVersion: core.gardener.cloud/v1beta1
kind: Seed
metadata: {name: local, generation: 2}
`
	const healthy = `
  - {type: GardenletReady, status: "True"}
  - {type: SeedSystemComponentsHealthy, status: "True"}
  - {type: ExtensionsReady, status: "True"}
`
	runChecks(t, []checkCase{
		{name: "ready", ready: true, obj: head + `
status:
  observedGeneration: 2
  lastOperation: {type: Reconcile, state: Succeeded, progress: 100}
  conditions:` + healthy},
		{name: "backup configured but not ready", reason: "BackupBucketsReady is False: BackupBucket local has an error", obj: head + `
spec: {backup: {provider: local}}
status:
  observedGeneration: 2
  lastOperation: {type: Reconcile, state: Succeeded}
  conditions:` + healthy + `
  - {type: BackupBucketsReady, status: "False", message: BackupBucket local has an error}`},
		{name: "backup configured, condition missing", reason: "BackupBucketsReady not reported yet", obj: head + `
spec: {backup: {provider: local}}
status:
  observedGeneration: 2
  lastOperation: {type: Reconcile, state: Succeeded}
  conditions:` + healthy},
		// ExtensionsReady follows the installations the engine makes after the Seed: not waited for.
		{name: "extensions not ready", ready: true, obj: head + `
status:
  observedGeneration: 2
  lastOperation: {type: Reconcile, state: Succeeded}
  conditions:
  - {type: GardenletReady, status: "True"}
  - {type: SeedSystemComponentsHealthy, status: "True"}
  - {type: ExtensionsReady, status: "False", reason: NotAllExtensionsInstalled}`},
		{name: "gardenlet down", reason: "GardenletReady is Unknown: Gardenlet stopped posting seed status.", obj: head + `
status:
  observedGeneration: 2
  lastOperation: {type: Reconcile, state: Succeeded}
  conditions:
  - {type: GardenletReady, status: Unknown, message: Gardenlet stopped posting seed status.}
  - {type: SeedSystemComponentsHealthy, status: "True"}`},
		{name: "never reconciled", reason: "not reconciled yet (no status.lastOperation)", obj: head},
		{name: "renew requested", reason: "gardener.cloud/operation=renew-kubeconfig not yet picked up by the controller", obj: `
apiVersion: core.gardener.cloud/v1beta1
kind: Seed
metadata: {name: local, annotations: {gardener.cloud/operation: renew-kubeconfig}}`},
	})
}

// A Shoot is ready once it exists, whatever its status says: its control plane comes after it.
func TestShoot(t *testing.T) {
	const head = `
apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata: {name: local, namespace: garden-local, generation: 7}
`
	runChecks(t, []checkCase{
		{name: "new, no status yet", ready: true, obj: head},
		{name: "reconciling", ready: true, obj: head + `
status:
  observedGeneration: 6
  lastOperation: {type: Reconcile, state: Processing, progress: 63, description: Waiting until the Kubernetes API server is ready}`},
		{name: "failed", ready: true, obj: head + `
status:
  observedGeneration: 7
  lastOperation: {type: Create, state: Failed, description: retry duration exceeded}`},
	})
}

func TestGarden(t *testing.T) {
	const head = `
apiVersion: operator.gardener.cloud/v1alpha1
kind: Garden
metadata: {name: local, generation: 1}
`
	runChecks(t, []checkCase{
		{name: "healthy", ready: true, obj: head + `
status:
  observedGeneration: 1
  lastOperation: {type: Reconcile, state: Succeeded}
  conditions:
  - {type: VirtualGardenAPIServerAvailable, status: "True"}
  - {type: VirtualComponentsHealthy, status: "True"}
  - {type: RuntimeComponentsHealthy, status: "True"}`},
		{name: "runtime unhealthy", reason: "RuntimeComponentsHealthy is False: ManagedResource istio is unhealthy", obj: head + `
status:
  observedGeneration: 1
  lastOperation: {type: Reconcile, state: Succeeded}
  conditions:
  - {type: VirtualGardenAPIServerAvailable, status: "True"}
  - {type: VirtualComponentsHealthy, status: "True"}
  - {type: RuntimeComponentsHealthy, status: "False", message: ManagedResource istio is unhealthy}`},
		{name: "virtual conditions missing", reason: "VirtualGardenAPIServerAvailable not reported yet; VirtualComponentsHealthy not reported yet", obj: head + `
status:
  observedGeneration: 1
  lastOperation: {type: Reconcile, state: Succeeded}`},
	})
}

func TestControllerInstallation(t *testing.T) {
	const head = `
apiVersion: core.gardener.cloud/v1beta1
kind: ControllerInstallation
metadata: {name: provider-local-abc}
`
	runChecks(t, []checkCase{
		{name: "healthy", ready: true, obj: head + `
status:
  conditions:
  - {type: Valid, status: "True", reason: RegistrationValid}
  - {type: Installed, status: "True", reason: InstallationSuccessful}
  - {type: Healthy, status: "True", reason: ControllerHealthy}
  - {type: Progressing, status: "False", reason: ControllerRolledOut}`},
		{name: "rolling out", reason: "Progressing is True: Deployment is rolling out", obj: head + `
status:
  conditions:
  - {type: Valid, status: "True"}
  - {type: Installed, status: "True"}
  - {type: Healthy, status: "True"}
  - {type: Progressing, status: "True", message: Deployment is rolling out}`},
		{name: "not installed", reason: "Installed is False: chart could not be applied; Healthy not reported yet", obj: head + `
status:
  conditions:
  - {type: Valid, status: "True"}
  - {type: Installed, status: "False", message: chart could not be applied}`},
	})
}

func TestProjectManagedSeedBastionBackup(t *testing.T) {
	runChecks(t, []checkCase{
		{name: "project ready", ready: true, obj: `
apiVersion: core.gardener.cloud/v1beta1
kind: Project
metadata: {name: dev, generation: 1}
status: {observedGeneration: 1, phase: Ready}`},
		{name: "project without status", reason: "project phase is not set yet", obj: `
apiVersion: core.gardener.cloud/v1beta1
kind: Project
metadata: {name: dev, generation: 1}`},
		{name: "project failed", reason: "project phase is Failed", obj: `
apiVersion: core.gardener.cloud/v1beta1
kind: Project
metadata: {name: dev, generation: 1}
status: {observedGeneration: 1, phase: Failed}`},
		{name: "managed seed reconciled", ready: true, obj: `
apiVersion: seedmanagement.gardener.cloud/v1alpha1
kind: ManagedSeed
metadata: {name: s, namespace: garden, generation: 1}
status: {observedGeneration: 1, conditions: [{type: ShootReconciled, status: "True"}]}`},
		{name: "managed seed waiting", reason: "ShootReconciled is False: Shoot is being reconciled", obj: `
apiVersion: seedmanagement.gardener.cloud/v1alpha1
kind: ManagedSeed
metadata: {name: s, namespace: garden, generation: 1}
status: {observedGeneration: 1, conditions: [{type: ShootReconciled, status: "False", message: Shoot is being reconciled}]}`},
		{name: "bastion ready", ready: true, obj: `
apiVersion: operations.gardener.cloud/v1alpha1
kind: Bastion
metadata: {name: b, namespace: garden-dev}
status: {conditions: [{type: Ready, status: "True"}]}`},
		{name: "core backup bucket failed", terminal: true, codes: []string{"ERR_INFRA_UNAUTHENTICATED"}, reason: "Reconcile Failed ([ERR_INFRA_UNAUTHENTICATED] invalid credentials)", obj: `
apiVersion: core.gardener.cloud/v1beta1
kind: BackupBucket
metadata: {name: b, generation: 1}
status:
  observedGeneration: 1
  lastOperation: {type: Reconcile, state: Failed}
  lastError: {description: invalid credentials, codes: [ERR_INFRA_UNAUTHENTICATED]}`},
	})
}
