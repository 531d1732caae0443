package readiness

import "testing"

func TestDeployment(t *testing.T) {
	const head = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: etcd-druid, namespace: garden, generation: 2}
`
	runChecks(t, []checkCase{
		{name: "rolled out", ready: true, obj: head + `
spec: {replicas: 2}
status: {observedGeneration: 2, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2}`},
		{name: "replicas default to one", ready: true, obj: head + `
spec: {}
status: {observedGeneration: 2, replicas: 1, updatedReplicas: 1, availableReplicas: 1}`},
		{name: "scaled to zero", ready: true, obj: head + `
spec: {replicas: 0}
status: {observedGeneration: 2}`},
		{name: "not reconciled", reason: "not reconciled yet (no status.observedGeneration)", obj: head + `
spec: {replicas: 0}`},
		{name: "generation not observed", reason: "generation 2 not observed yet (status.observedGeneration 1)", obj: head + `
spec: {replicas: 2}
status: {observedGeneration: 1, replicas: 2, updatedReplicas: 2, availableReplicas: 2}`},
		{name: "not all updated", reason: `1 of 2 replicas updated (Progressing: ReplicaSet "etcd-druid-7d9" is progressing.)`, obj: head + `
spec: {replicas: 2}
status:
  observedGeneration: 2
  replicas: 3
  updatedReplicas: 1
  availableReplicas: 2
  conditions:
  - {type: Available, status: "True", reason: MinimumReplicasAvailable, message: Deployment has minimum availability.}
  - {type: Progressing, status: "True", reason: ReplicaSetUpdated, message: ReplicaSet "etcd-druid-7d9" is progressing.}`},
		{name: "old replicas left", reason: `1 old replicas pending termination (Progressing: ReplicaSet "etcd-druid-7d9" is progressing.)`, obj: head + `
spec: {replicas: 2}
status:
  observedGeneration: 2
  replicas: 3
  updatedReplicas: 2
  availableReplicas: 2
  conditions:
  - {type: Progressing, status: "True", reason: ReplicaSetUpdated, message: ReplicaSet "etcd-druid-7d9" is progressing.}`},
		{name: "not all available", reason: "1 of 2 replicas available (Available: Deployment does not have minimum availability.)", obj: head + `
spec: {replicas: 2}
status:
  observedGeneration: 2
  replicas: 2
  updatedReplicas: 2
  availableReplicas: 1
  conditions:
  - {type: Available, status: "False", reason: MinimumReplicasUnavailable, message: Deployment does not have minimum availability.}
  - {type: Progressing, status: "True", reason: ReplicaSetUpdated, message: ReplicaSet "etcd-druid-7d9" is progressing.}`},
		{name: "short of replicas during a rollout", reason: `1 of 2 replicas available (Progressing: ReplicaSet "etcd-druid-7d9" is progressing.)`, obj: head + `
spec: {replicas: 2}
status:
  observedGeneration: 2
  replicas: 2
  updatedReplicas: 2
  availableReplicas: 1
  conditions:
  - {type: Available, status: "True", reason: MinimumReplicasAvailable, message: Deployment has minimum availability.}
  - {type: Progressing, status: "True", reason: ReplicaSetUpdated, message: ReplicaSet "etcd-druid-7d9" is progressing.}`},
		{name: "paused mid-rollout", reason: "1 of 2 replicas updated (rollout is paused)", obj: head + `
spec: {replicas: 2, paused: true}
status: {observedGeneration: 2, replicas: 2, updatedReplicas: 1, availableReplicas: 2}`},
		{name: "progress deadline exceeded", terminal: true,
			reason: `rollout exceeded its progress deadline (Progressing is False: ReplicaSet "etcd-druid-7d9" has timed out progressing.)`, obj: head + `
spec: {replicas: 2}
status:
  observedGeneration: 2
  replicas: 2
  updatedReplicas: 1
  availableReplicas: 1
  conditions:
  - {type: Progressing, status: "False", reason: ProgressDeadlineExceeded, message: ReplicaSet "etcd-druid-7d9" has timed out progressing.}`},
	})
}

func TestStatefulSet(t *testing.T) {
	const head = `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: prometheus, namespace: garden, generation: 5}
`
	runChecks(t, []checkCase{
		{name: "rolled out", ready: true, obj: head + `
spec: {replicas: 2}
status: {observedGeneration: 5, replicas: 2, readyReplicas: 2, updatedReplicas: 2, currentRevision: r2, updateRevision: r2}`},
		{name: "generation not observed", reason: "generation 5 not observed yet (status.observedGeneration 4)", obj: head + `
spec: {replicas: 2}
status: {observedGeneration: 4, readyReplicas: 2, updatedReplicas: 2, currentRevision: r1, updateRevision: r1}`},
		{name: "not all ready", reason: "1 of 2 replicas ready", obj: head + `
spec: {replicas: 2}
status: {observedGeneration: 5, readyReplicas: 1, updatedReplicas: 2, currentRevision: r2, updateRevision: r2}`},
		{name: "not all updated", reason: "1 of 2 replicas updated", obj: head + `
spec: {replicas: 2}
status: {observedGeneration: 5, readyReplicas: 2, updatedReplicas: 1, currentRevision: r1, updateRevision: r2}`},
		{name: "revision not rolled", reason: "rolling update to revision r2 in progress (current r1)", obj: head + `
spec: {replicas: 2}
status: {observedGeneration: 5, readyReplicas: 2, updatedReplicas: 2, currentRevision: r1, updateRevision: r2}`},
		{name: "partition reached", ready: true, obj: head + `
spec: {replicas: 3, updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 2}}}
status: {observedGeneration: 5, readyReplicas: 3, updatedReplicas: 1, currentRevision: r1, updateRevision: r2}`},
		{name: "partition not reached", reason: "0 of 1 replicas above partition 2 updated", obj: head + `
spec: {replicas: 3, updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 2}}}
status: {observedGeneration: 5, readyReplicas: 3, updatedReplicas: 0, currentRevision: r1, updateRevision: r2}`},
		{name: "on delete ignores revisions", ready: true, obj: head + `
spec: {replicas: 1, updateStrategy: {type: OnDelete}}
status: {observedGeneration: 5, readyReplicas: 1, updatedReplicas: 0, currentRevision: r1, updateRevision: r2}`},
	})
}

func TestDaemonSet(t *testing.T) {
	const head = `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: node-exporter, namespace: kube-system, generation: 1}
`
	runChecks(t, []checkCase{
		{name: "rolled out", ready: true, obj: head + `
status: {observedGeneration: 1, desiredNumberScheduled: 3, numberAvailable: 3, updatedNumberScheduled: 3}`},
		{name: "no nodes", ready: true, obj: head + `
status: {observedGeneration: 1, desiredNumberScheduled: 0}`},
		{name: "not reconciled", reason: "not reconciled yet (no status.observedGeneration)", obj: head},
		{name: "not all updated", reason: "2 of 3 pods updated", obj: head + `
status: {observedGeneration: 1, desiredNumberScheduled: 3, numberAvailable: 3, updatedNumberScheduled: 2}`},
		{name: "not all available", reason: "1 of 3 pods available", obj: head + `
status: {observedGeneration: 1, desiredNumberScheduled: 3, numberAvailable: 1, updatedNumberScheduled: 3}`},
		{name: "on delete ignores updates", ready: true, obj: head + `
spec: {updateStrategy: {type: OnDelete}}
status: {observedGeneration: 1, desiredNumberScheduled: 3, numberAvailable: 3, updatedNumberScheduled: 0}`},
	})
}

func TestJob(t *testing.T) {
	const head = `
apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: garden}
`
	runChecks(t, []checkCase{
		{name: "complete", ready: true, obj: head + `
status:
  succeeded: 1
  conditions:
  - {type: SuccessCriteriaMet, status: "True"}
  - {type: Complete, status: "True"}`},
		{name: "running", reason: "not complete: 0 of 1 completions succeeded, 1 active", obj: head + `
status: {active: 1}`},
		{name: "retrying", reason: "not complete: 1 of 3 completions succeeded, 1 active, 2 failed", obj: head + `
spec: {completions: 3}
status: {active: 1, succeeded: 1, failed: 2}`},
		{name: "suspended", reason: "job is suspended", obj: head + `
spec: {suspend: true}`},
		{name: "failed", terminal: true, reason: "job failed (Failed is True: Job has reached the specified backoff limit)", obj: head + `
status:
  failed: 7
  conditions:
  - {type: Failed, status: "True", reason: BackoffLimitExceeded, message: Job has reached the specified backoff limit}`},
	})
}
