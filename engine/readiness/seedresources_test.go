package readiness

import "testing"

func TestEtcd(t *testing.T) {
	const head = `
apiVersion: druid.gardener.cloud/v1alpha1
kind: Etcd
metadata: {name: virtual-garden-etcd-main, namespace: garden, generation: 2}
spec: {replicas: 3}
`
	runChecks(t, []checkCase{
		{name: "ready", ready: true, obj: head + `
status:
  ready: true
  observedGeneration: 2
  conditions:
  - {type: Ready, status: "True"}
  - {type: AllMembersReady, status: "True"}`},
		{name: "ready without conditions", ready: true, obj: head + `
status: {ready: true, observedGeneration: 2}`},
		{name: "not reconciled", reason: "not reconciled yet (no status.observedGeneration)", obj: head},
		{name: "generation not observed", reason: "generation 2 not observed yet (status.observedGeneration 1)", obj: head + `
status: {ready: true, observedGeneration: 1}`},
		{name: "members not ready",
			reason: "etcd not ready: 1 of 3 members ready (Ready is False: quorum lost); AllMembersReady is False: 2 members unready; last errors: [ERR_SNAPSHOT] restoring from backup failed", obj: head + `
status:
  ready: false
  observedGeneration: 2
  readyReplicas: 1
  conditions:
  - {type: Ready, status: "False", message: quorum lost}
  - {type: AllMembersReady, status: "False", message: 2 members unready}
  lastErrors:
  - {code: ERR_SNAPSHOT, description: restoring from backup failed}`},
		{name: "ready flag but a member down", reason: "AllMembersReady is Unknown: member etcd-main-2 unknown", obj: head + `
status:
  ready: true
  observedGeneration: 2
  conditions:
  - {type: AllMembersReady, status: Unknown, message: member etcd-main-2 unknown}`},
	})
}

func TestManagedResource(t *testing.T) {
	const head = `
apiVersion: resources.gardener.cloud/v1alpha1
kind: ManagedResource
metadata: {name: istio, namespace: garden, generation: 3}
spec: {secretRefs: [{name: managedresource-istio}]}
`
	const healthy = `
  - {type: ResourcesApplied, status: "True", reason: ApplySucceeded, message: All resources are applied.}
  - {type: ResourcesHealthy, status: "True", reason: ResourcesHealthy, message: All resources are healthy.}
`
	runChecks(t, []checkCase{
		{name: "healthy", ready: true, obj: head + `
status:
  observedGeneration: 3
  conditions:` + healthy + `
  - {type: ResourcesProgressing, status: "False", reason: ResourcesRolledOut}`},
		{name: "healthy without progressing condition", ready: true, obj: head + `
status:
  observedGeneration: 3
  conditions:` + healthy},
		{name: "not reconciled", reason: "not reconciled yet (no status.observedGeneration)", obj: head},
		{name: "generation not observed", reason: "generation 3 not observed yet (status.observedGeneration 2)", obj: head + `
status:
  observedGeneration: 2
  conditions:` + healthy},
		{name: "progressing", reason: `ResourcesProgressing is True: Deployment "garden/istiod" is not fully rolled out`, obj: head + `
status:
  observedGeneration: 3
  conditions:` + healthy + `
  - {type: ResourcesProgressing, status: "True", reason: ResourcesProgressing, message: Deployment "garden/istiod" is not fully rolled out}`},
		{name: "unhealthy and not applied",
			reason: `ResourcesApplied is False: could not apply: no matches for kind "Foo"; ResourcesHealthy is Unknown: ApplyFailed`, obj: head + `
status:
  observedGeneration: 3
  conditions:
  - {type: ResourcesApplied, status: "False", reason: ApplyFailed, message: 'could not apply: no matches for kind "Foo"'}
  - {type: ResourcesHealthy, status: Unknown, reason: ApplyFailed}
  - {type: ResourcesProgressing, status: "False"}`},
		{name: "health not reported", reason: "ResourcesHealthy not reported yet", obj: head + `
status:
  observedGeneration: 3
  conditions:
  - {type: ResourcesApplied, status: "True"}`},
		{name: "ignored", ready: true, obj: `
apiVersion: resources.gardener.cloud/v1alpha1
kind: ManagedResource
metadata: {name: istio, namespace: garden, generation: 3, annotations: {resources.gardener.cloud/ignore: "true"}}`},
	})
}

func TestExtensionResources(t *testing.T) {
	const head = `
apiVersion: extensions.gardener.cloud/v1alpha1
kind: DNSRecord
metadata: {name: shoot--dev--x-external, namespace: shoot--dev--x, generation: 4}
`
	runChecks(t, []checkCase{
		{name: "succeeded", ready: true, obj: head + `
status:
  observedGeneration: 4
  lastOperation: {type: Reconcile, state: Succeeded, progress: 100}`},
		{name: "any kind of the group", ready: true, obj: `
apiVersion: extensions.gardener.cloud/v1alpha1
kind: SomethingNew
metadata: {name: x, generation: 1}
status: {observedGeneration: 1, lastOperation: {state: Succeeded}}`},
		{name: "cluster has no status", ready: true, obj: `
apiVersion: extensions.gardener.cloud/v1alpha1
kind: Cluster
metadata: {name: shoot--dev--x, generation: 1}`},
		{name: "reconcile requested", reason: "gardener.cloud/operation=reconcile not yet picked up by the controller", obj: `
apiVersion: extensions.gardener.cloud/v1alpha1
kind: Infrastructure
metadata: {name: x, namespace: y, generation: 4, annotations: {gardener.cloud/operation: reconcile}}
status:
  observedGeneration: 4
  lastOperation: {type: Reconcile, state: Succeeded}`},
		{name: "not reconciled", reason: "not reconciled yet (no status.observedGeneration)", obj: head},
		{name: "generation not observed", reason: "generation 4 not observed yet (status.observedGeneration 3)", obj: head + `
status:
  observedGeneration: 3
  lastOperation: {type: Reconcile, state: Failed}`},
		{name: "no last operation", reason: "not reconciled yet (no status.lastOperation)", obj: head + `
status: {observedGeneration: 4}`},
		{name: "processing", reason: "Reconcile Processing (40%): Waiting for DNS propagation", obj: head + `
status:
  observedGeneration: 4
  lastOperation: {type: Reconcile, state: Processing, progress: 40, description: Waiting for DNS propagation}`},
		{name: "retryable error", codes: []string{"ERR_INFRA_RATE_LIMITS_EXCEEDED"}, reason: "Reconcile Error ([ERR_INFRA_RATE_LIMITS_EXCEEDED] Throttling: rate exceeded)", obj: head + `
status:
  observedGeneration: 4
  lastOperation: {type: Reconcile, state: Error, description: "Error reconciling dnsrecord"}
  lastError: {description: "Throttling: rate exceeded", codes: [ERR_INFRA_RATE_LIMITS_EXCEEDED]}`},
		{name: "error without last error", reason: "Reconcile Error (Error reconciling dnsrecord)", obj: head + `
status:
  observedGeneration: 4
  lastOperation: {type: Reconcile, state: Error, description: "Error reconciling dnsrecord"}`},
		{name: "configuration problem", terminal: true, codes: []string{"ERR_CONFIGURATION_PROBLEM"},
			reason: "Reconcile Error ([ERR_CONFIGURATION_PROBLEM] hosted zone \"Z1\" not found)", obj: head + `
status:
  observedGeneration: 4
  lastOperation: {type: Reconcile, state: Error}
  lastError: {description: hosted zone "Z1" not found, codes: [ERR_CONFIGURATION_PROBLEM]}`},
		{name: "unauthorized", terminal: true, codes: []string{"ERR_INFRA_UNAUTHORIZED"},
			reason: "Reconcile Error ([ERR_INFRA_UNAUTHORIZED] access denied)", obj: head + `
status:
  observedGeneration: 4
  lastOperation: {type: Reconcile, state: Error}
  lastError: {description: access denied, codes: [ERR_INFRA_UNAUTHORIZED]}`},
		{name: "failed", terminal: true, reason: "Reconcile Failed (gave up)", obj: head + `
status:
  observedGeneration: 4
  lastOperation: {type: Reconcile, state: Failed, description: gave up}`},
		{name: "aborted", reason: "Reconcile Aborted", obj: head + `
status:
  observedGeneration: 4
  lastOperation: {type: Reconcile, state: Aborted}`},
	})
}
