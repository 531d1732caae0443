package readiness

import "testing"

func TestCustomResourceDefinition(t *testing.T) {
	const head = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: etcds.druid.gardener.cloud, generation: 1}
`
	runChecks(t, []checkCase{
		{name: "established", ready: true, obj: head + `
status:
  conditions:
  - {type: NamesAccepted, status: "True", reason: NoConflicts, message: no conflicts found}
  - {type: Established, status: "True", reason: InitialNamesAccepted, message: the initial names have been accepted}`},
		{name: "not yet established", reason: "Established is False: not all names are accepted", obj: head + `
status:
  conditions:
  - {type: NamesAccepted, status: "True", reason: NoConflicts}
  - {type: Established, status: "False", reason: NotAccepted, message: not all names are accepted}`},
		{name: "no status yet", reason: "Established not reported yet", obj: head},
		{name: "name conflict", terminal: true, reason: `NamesAccepted is False: "etcd" is already in use`, obj: head + `
status:
  conditions:
  - {type: NamesAccepted, status: "False", reason: ListKindConflict, message: '"etcd" is already in use'}
  - {type: Established, status: "False", reason: NotAccepted}`},
	})
}

func TestAPIService(t *testing.T) {
	const head = `
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.metrics.k8s.io}
`
	runChecks(t, []checkCase{
		{name: "available", ready: true, obj: head + `
status: {conditions: [{type: Available, status: "True", reason: Passed, message: all checks passed}]}`},
		{name: "unavailable", reason: "Available is False: endpoints for service/metrics-server in \"kube-system\" have no addresses", obj: head + `
status:
  conditions:
  - type: Available
    status: "False"
    reason: MissingEndpoints
    message: endpoints for service/metrics-server in "kube-system" have no addresses`},
		{name: "no status yet", reason: "Available not reported yet", obj: head},
	})
}

func TestService(t *testing.T) {
	const lb = `
apiVersion: v1
kind: Service
metadata: {name: istio-ingressgateway, namespace: istio-ingress}
spec: {type: LoadBalancer}
`
	require := Options{RequireLoadBalancerAddress: true}
	runChecks(t, []checkCase{
		{name: "cluster ip", ready: true, opts: require, obj: `
apiVersion: v1
kind: Service
metadata: {name: s, namespace: n}
spec: {type: ClusterIP}`},
		{name: "load balancer without address not required", ready: true, obj: lb},
		{name: "load balancer without address required", opts: require, reason: "no load balancer address assigned yet", obj: lb},
		{name: "load balancer with empty ingress entry", opts: require, reason: "no load balancer address assigned yet", obj: lb + `
status: {loadBalancer: {ingress: [{ports: [{port: 443, protocol: TCP}]}]}}`},
		{name: "load balancer with ip", opts: require, ready: true, obj: lb + `
status: {loadBalancer: {ingress: [{ip: 172.18.255.1}]}}`},
		{name: "load balancer with hostname", opts: require, ready: true, obj: lb + `
status: {loadBalancer: {ingress: [{hostname: lb.example.com}]}}`},
	})
}

func TestPersistentVolumeClaim(t *testing.T) {
	const head = `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: main-etcd-0, namespace: garden}
`
	runChecks(t, []checkCase{
		{name: "bound", ready: true, obj: head + `status: {phase: Bound}`},
		{name: "pending", reason: "claim is Pending", obj: head + `status: {phase: Pending}`},
		{name: "no status", reason: "claim is Pending", obj: head},
		{name: "lost", terminal: true, reason: "claim Lost its volume", obj: head + `status: {phase: Lost}`},
	})
}

func TestNamespace(t *testing.T) {
	runChecks(t, []checkCase{
		{name: "active", ready: true, obj: `
apiVersion: v1
kind: Namespace
metadata: {name: garden}
status: {phase: Active}`},
		{name: "terminating", reason: "being deleted", obj: `
apiVersion: v1
kind: Namespace
metadata: {name: garden, deletionTimestamp: "2026-01-01T00:00:00Z"}
status: {phase: Terminating}`},
		{name: "terminating without deletion timestamp", reason: "namespace is Terminating", obj: `
apiVersion: v1
kind: Namespace
metadata: {name: garden}
status: {phase: Terminating}`},
	})
}

func TestPod(t *testing.T) {
	const head = `
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: n}
`
	runChecks(t, []checkCase{
		{name: "ready", ready: true, obj: head + `
status: {phase: Running, conditions: [{type: Ready, status: "True"}]}`},
		{name: "succeeded", ready: true, obj: head + `status: {phase: Succeeded}`},
		{name: "failed", terminal: true, reason: "pod Failed (Pod was rejected: Node didn't have enough resource: cpu)", obj: head + `
status: {phase: Failed, message: "Pod was rejected: Node didn't have enough resource: cpu"}`},
		{name: "image pull", reason: `pod is Pending: container app ImagePullBackOff (Back-off pulling image "x")`, obj: head + `
status:
  phase: Pending
  conditions: [{type: Ready, status: "False", reason: ContainersNotReady}]
  containerStatuses:
  - {name: app, state: {waiting: {reason: ImagePullBackOff, message: Back-off pulling image "x"}}}`},
		{name: "unschedulable", reason: "pod is Pending (unschedulable: 0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.)", obj: head + `
status:
  phase: Pending
  conditions:
  - {type: PodScheduled, status: "False", reason: Unschedulable, message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."}`},
		{name: "running not ready", reason: "pod is Running (containers with unready status: [app])", obj: head + `
status:
  phase: Running
  conditions: [{type: Ready, status: "False", reason: ContainersNotReady, message: "containers with unready status: [app]"}]`},
	})
}
