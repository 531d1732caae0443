package diff

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// deployment renders the corpus's Deployment "obj" with the given replicas, extra metadata
// (flow-style YAML mapping entries, may be empty) and containers (a flow-style YAML list).
func deployment(replicas int, metadata, containers string) string {
	if metadata != "" {
		metadata = ", " + metadata
	}
	return fmt.Sprintf(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: obj, labels: {app: web}%s}
spec:
  replicas: %d
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: %s
`, metadata, replicas, containers)
}

const (
	web         = `[{name: web, image: "nginx:1.25", args: [a, b]}]`
	webSidecar  = `[{name: web, image: "nginx:1.25", args: [a, b]}, {name: side, image: "busybox:1"}]`
	sidecarWeb  = `[{name: side, image: "busybox:1"}, {name: web, image: "nginx:1.25", args: [a, b]}]`
	webImage2   = `[{name: web, image: "nginx:1.26", args: [a, b]}]`
	webArgsAC   = `[{name: web, image: "nginx:1.25", args: [a, c]}]`
	webArgsBA   = `[{name: web, image: "nginx:1.25", args: [b, a]}]`
	webArgsABC  = `[{name: web, image: "nginx:1.25", args: [a, b, c]}]`
	webWorkdir  = `[{name: web, image: "nginx:1.25", args: [a, b], workingDir: /srv}]`
	webEnvAB    = `[{name: web, image: "nginx:1.25", args: [a, b], env: [{name: A, value: "1"}, {name: B, value: "2"}]}]`
	webEnvAB3   = `[{name: web, image: "nginx:1.25", args: [a, b], env: [{name: A, value: "1"}, {name: B, value: "3"}]}]`
	webEnvA     = `[{name: web, image: "nginx:1.25", args: [a, b], env: [{name: A, value: "1"}]}]`
	webPort     = `[{name: web, image: "nginx:1.25", args: [a, b], ports: [{containerPort: 80}]}]`
	webPortUDP  = `[{name: web, image: "nginx:1.25", args: [a, b], ports: [{containerPort: 80}, {containerPort: 80, protocol: UDP}]}]`
	webRes      = `[{name: web, image: "nginx:1.25", args: [a, b], resources: {requests: {cpu: "1", memory: 1Gi}}}]`
	webResSame  = `[{name: web, image: "nginx:1.25", args: [a, b], resources: {requests: {cpu: 1000m, memory: 1024Mi}}}]`
	webRes2     = `[{name: web, image: "nginx:1.25", args: [a, b], resources: {requests: {cpu: "2", memory: 1Gi}}}]`
	webDefaults = `[{name: web, image: "nginx:1.25", args: [a, b], imagePullPolicy: IfNotPresent, terminationMessagePath: /dev/termination-log}]`
	webEmpty    = `[{name: web, image: "nginx:1.25", args: [a, b], env: [], volumeMounts: [{name: data, mountPath: /data, readOnly: false}]}]`
	webMount    = `[{name: web, image: "nginx:1.25", args: [a, b], volumeMounts: [{name: data, mountPath: /data}]}]`
)

const (
	webFieldRef = `[{name: web, image: "nginx:1.25", args: [a, b], env: [{name: NS, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}]}]`
	webToken    = `[{name: web, image: "nginx:1.25", args: [a, b], volumeMounts: [{name: token, mountPath: /token}]}]`
)

const projectedToken = `volumes: [{name: token, projected: {sources: [{serviceAccountToken: {path: token, audience: gardener}}]}}]`

func deploymentStrategy(strategy string) string {
	if strategy != "" {
		strategy = "strategy: " + strategy
	}
	return fmt.Sprintf(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: obj, labels: {app: web}}
spec:
  replicas: 1
  %s
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:1.25"}]
`, strategy)
}

const networkPolicy = `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: obj}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress: [{ports: [{port: 443}], from: [{podSelector: {matchLabels: {app: client}}}]}]
`

const networkPolicy8443 = `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: obj}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress: [{ports: [{port: 8443}], from: [{podSelector: {matchLabels: {app: client}}}]}]
`

const webhook = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: corpus-obj}
webhooks:
- name: validate.corpus.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig: {url: "https://example.com/validate"}
  rules: [{apiGroups: [corpus.example.com], apiVersions: [v1], operations: [CREATE], resources: [nothings]}]
`

const clusterRoleBinding = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: corpus-obj}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: User, name: alice}, {kind: ServiceAccount, name: default, namespace: default}]
`

func statefulSet(size string) string {
	return fmt.Sprintf(`
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: obj}
spec:
  serviceName: obj
  replicas: 1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: "busybox:1", volumeMounts: [{name: data, mountPath: /data}]}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: %s}}}
`, size)
}

// gadgetCRD is a CRD named after plural, so that parallel scenarios do not share one.
func gadgetCRD(plural, scope string) string {
	return fmt.Sprintf(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: %[1]s.corpus.gardener.cloud}
spec:
  group: corpus.gardener.cloud
  names: {kind: %[1]s, plural: %[1]s}
  scope: %[2]s
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns: [{name: Size, type: integer, jsonPath: .spec.size}]
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 1}
              mode: {type: string, enum: [a, b]}
`, plural, scope)
}

// deploymentVolumes is a Deployment whose pod has an emptyDir volume "data" and the given
// containers and extra pod spec entries.
func deploymentVolumes(containers, podExtra string) string {
	return fmt.Sprintf(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: obj, labels: {app: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      volumes: [{name: data, emptyDir: {}}]
      containers: %s
      %s
`, containers, podExtra)
}

const service = `
apiVersion: v1
kind: Service
metadata: {name: obj}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 8080}]
`

const serviceTarget9090 = `
apiVersion: v1
kind: Service
metadata: {name: obj}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 9090}]
`

const headless = `
apiVersion: v1
kind: Service
metadata: {name: obj}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{name: http, port: 80}]
`

const headlessToIP = `
apiVersion: v1
kind: Service
metadata: {name: obj}
spec:
  clusterIP: 10.96.77.77
  selector: {app: web}
  ports: [{name: http, port: 80}]
`

func configMap(extra, data string) string {
	return fmt.Sprintf(`
apiVersion: v1
kind: ConfigMap
metadata: {name: obj}
%s
data: %s
`, extra, data)
}

func secret(fields string) string {
	return fmt.Sprintf(`
apiVersion: v1
kind: Secret
metadata: {name: obj}
type: Opaque
%s
`, fields)
}

// etcd is an Etcd with the given spec. etcd-druid's CRD requires backup, etcd, labels and replicas,
// and its replicas may only grow or drop to 0.
func etcd(spec string) string {
	return fmt.Sprintf(`
apiVersion: druid.gardener.cloud/v1alpha1
kind: Etcd
metadata: {name: obj}
spec: %s
`, spec)
}

func widget(spec string) string {
	return fmt.Sprintf(`
apiVersion: difftest.gardener.cloud/v1
kind: Widget
metadata: {name: obj}
spec: %s
`, spec)
}

func roleBinding(role string) string {
	return fmt.Sprintf(`
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: obj}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: %s}
subjects: [{kind: ServiceAccount, name: default}]
`, role)
}

// setContainerImage edits the image of container "web", as `kubectl edit` or `kubectl set image`.
func setContainerImage(image string) func(u *unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
		for _, c := range containers {
			if m := c.(map[string]any); m["name"] == "web" {
				m["image"] = image
			}
		}
		_ = unstructured.SetNestedSlice(u.Object, containers, "spec", "template", "spec", "containers")
	}
}

func setAnnotation(k, v string) func(u *unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		a := u.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[k] = v
		u.SetAnnotations(a)
	}
}

const (
	containerPath = ".spec.template.spec.containers[name=web]"
	gardener      = "gardener"
)

func corpus() []scenario {
	base := deployment(1, "", web)
	return []scenario{
		{name: "no-op re-apply", setup: []setupStep{apply(gardener, base)}, desired: base},
		{name: "field added", setup: []setupStep{apply(gardener, base)},
			desired: deployment(1, "", `[{name: web, image: "nginx:1.25", args: [a, b], workingDir: /srv}]`),
			want:    []string{containerPath + ".workingDir"}},
		{name: "field changed", setup: []setupStep{apply(gardener, base)},
			desired: deployment(3, "", web), want: []string{".spec.replicas"}},
		{name: "owned field removed", setup: []setupStep{apply(gardener, deployment(1, "", webWorkdir))},
			desired: base, want: []string{containerPath + ".workingDir"}},
		{name: "keyed list item added", setup: []setupStep{apply(gardener, base)},
			desired: deployment(1, "", webSidecar), want: []string{".spec.template.spec.containers[name=side]"}},
		{name: "keyed list item removed", setup: []setupStep{apply(gardener, deployment(1, "", webSidecar))},
			desired: base, want: []string{".spec.template.spec.containers[name=side]"}},
		{name: "keyed list reordered", setup: []setupStep{apply(gardener, deployment(1, "", webSidecar))},
			desired: deployment(1, "", sidecarWeb)},
		{name: "env item value changed", setup: []setupStep{apply(gardener, deployment(1, "", webEnvAB))},
			desired: deployment(1, "", webEnvAB3), want: []string{containerPath + ".env[name=B].value"}},
		{name: "env item removed", setup: []setupStep{apply(gardener, deployment(1, "", webEnvAB))},
			desired: deployment(1, "", webEnvA), want: []string{containerPath + ".env[name=B]"}},
		{name: "port with defaulted protocol, UDP port added", setup: []setupStep{apply(gardener, deployment(1, "", webPort))},
			desired: deployment(1, "", webPortUDP), want: []string{containerPath + ".ports[containerPort=80,protocol=UDP]"}},
		{name: "port with defaulted protocol re-applied", setup: []setupStep{apply(gardener, deployment(1, "", webPort))},
			desired: deployment(1, "", webPort)},
		{name: "service port target changed", setup: []setupStep{apply(gardener, service)},
			desired: serviceTarget9090, want: []string{".spec.ports[port=80,protocol=TCP].targetPort"}},
		{name: "atomic list item changed", setup: []setupStep{apply(gardener, base)},
			desired: deployment(1, "", webArgsAC), want: []string{containerPath + ".args[1]"}},
		{name: "atomic list reordered", setup: []setupStep{apply(gardener, base)},
			desired: deployment(1, "", webArgsBA), want: []string{containerPath + ".args[0]", containerPath + ".args[1]"}},
		{name: "atomic list item appended", setup: []setupStep{apply(gardener, base)},
			desired: deployment(1, "", webArgsABC), want: []string{containerPath + ".args[2]"}},
		{name: "set-like list", setup: []setupStep{apply(gardener, deployment(1, `finalizers: [example.com/a, example.com/b]`, web))},
			desired: deployment(1, `finalizers: [example.com/b, example.com/c]`, web),
			want:    []string{".metadata.finalizers[example.com/a]", ".metadata.finalizers[example.com/c]"}},
		{name: "labels added changed removed", setup: []setupStep{apply(gardener, deployment(1, `annotations: {}`, web)), apply(gardener, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: obj, labels: {app: web, team: a, old: x}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:1.25", args: [a, b]}]
`)}, desired: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: obj, labels: {app: web, team: b, tier: fe}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:1.25", args: [a, b]}]
`, want: []string{".metadata.labels[old]", ".metadata.labels[team]", ".metadata.labels[tier]"}},
		{name: "annotations added changed removed", setup: []setupStep{apply(gardener, deployment(1, `annotations: {example.com/owner: a, example.com/old: x}`, web))},
			desired: deployment(1, `annotations: {example.com/owner: b, example.com/new: "y"}`, web),
			want:    []string{".metadata.annotations[example.com/new]", ".metadata.annotations[example.com/old]", ".metadata.annotations[example.com/owner]"}},
		{name: "quantities written differently", setup: []setupStep{apply(gardener, deployment(1, "", webRes))},
			desired: deployment(1, "", webResSame)},
		{name: "quantity really changed", setup: []setupStep{apply(gardener, deployment(1, "", webRes))},
			desired: deployment(1, "", webRes2), want: []string{containerPath + ".resources.requests[cpu]"}},
		{name: "float number equal to int", setup: []setupStep{apply(gardener, base)},
			desired: deployment(1, "", web) + "  minReadySeconds: 0.0\n"},
		{name: "other manager's field kept", setup: []setupStep{apply(gardener, base), apply("other-controller", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: obj, annotations: {other.example.com/x: "1"}}
`)}, desired: base},
		{name: "conflict with other manager", setup: []setupStep{apply(gardener, base), apply("other-controller", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: obj}
spec: {replicas: 5}
`)}, desired: base, want: []string{".spec.replicas"},
			conflicts: []Conflict{{Path: ".spec.replicas", Manager: "other-controller"}}},
		{name: "forced take-over from other manager", setup: []setupStep{apply(gardener, base), apply("other-controller", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: obj}
spec: {replicas: 5}
`)}, desired: base, force: true, want: []string{".spec.replicas"}},
		{name: "co-owned field dropped stays", setup: []setupStep{apply(gardener, deployment(1, `annotations: {shared: "1"}`, web)), apply("other-controller", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: obj, annotations: {shared: "1"}}
`)}, desired: base},
		{name: "out-of-band edit of owned field conflicts", setup: []setupStep{apply(gardener, base), update("kubectl-edit", base, setContainerImage("nginx:evil"))},
			desired: base, want: []string{containerPath + ".image"},
			conflicts: []Conflict{{Path: containerPath + ".image", Manager: "kubectl-edit"}}},
		{name: "out-of-band edit drift forced back", setup: []setupStep{apply(gardener, base), update("kubectl-edit", base, setContainerImage("nginx:evil"))},
			desired: base, force: true, want: []string{containerPath + ".image"}},
		{name: "out-of-band annotation kept", setup: []setupStep{apply(gardener, base), update("kubectl-annotate", base, setAnnotation("note", "hi"))},
			desired: base},
		{name: "our change plus other edit", setup: []setupStep{apply(gardener, base), update("kubectl-edit", base, setAnnotation("note", "hi"))},
			desired: deployment(1, "", webImage2), want: []string{containerPath + ".image"}},
		{name: "defaulted field set to default", setup: []setupStep{apply(gardener, base)},
			desired: deployment(1, "", webDefaults)},
		{name: "empty values the server drops", setup: []setupStep{apply(gardener, deploymentVolumes(webMount, ""))},
			desired: deploymentVolumes(webEmpty, "hostNetwork: false")},
		{name: "created by kubectl create then applied", setup: []setupStep{create("kubectl-create", base)},
			desired: deployment(2, "", web), want: []string{".spec.replicas"},
			conflicts: []Conflict{{Path: ".spec.replicas", Manager: "kubectl-create"}}},
		{name: "object without managed fields", setup: []setupStep{create("kubectl-create", base), reset(base)},
			desired: deployment(2, "", web), want: []string{".spec.replicas"},
			conflicts: []Conflict{{Path: ".spec.replicas", Manager: "before-first-apply"}}},
		{name: "immutable deployment selector", setup: []setupStep{apply(gardener, base)}, desired: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: obj, labels: {app: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web2}}
  template:
    metadata: {labels: {app: web2}}
    spec:
      containers: [{name: web, image: "nginx:1.25", args: [a, b]}]
`, want: []string{".spec.selector.matchLabels[app]", ".spec.template.metadata.labels[app]"}, immutable: []string{".spec.selector"}},
		{name: "immutable service clusterIP", setup: []setupStep{apply(gardener, headless)},
			desired: headlessToIP, want: []string{".spec.clusterIP"}, immutable: []string{".spec.clusterIP"}},
		{name: "immutable configmap", setup: []setupStep{apply(gardener, configMap("immutable: true", `{a: "1"}`))},
			desired: configMap("immutable: true", `{a: "2"}`), want: []string{".data[a]"}, immutable: []string{".data"}},
		{name: "configmap data changed", setup: []setupStep{apply(gardener, configMap("", `{a: "1", b: "2"}`))},
			desired: configMap("", `{a: "1", b: "3", c: "4"}`), want: []string{".data[b]", ".data[c]"}},
		{name: "immutable rolebinding roleRef", setup: []setupStep{apply(gardener, roleBinding("a"))},
			desired: roleBinding("b"), want: []string{".roleRef.name"}, immutable: []string{".roleRef"}},
		{name: "secret data changed", setup: []setupStep{apply(gardener, secret(`data: {password: c2VjcmV0}`))},
			desired: secret(`data: {password: bmV3}`), want: []string{".data[password]"}, sensitive: true},
		{name: "secret stringData equal to data", setup: []setupStep{apply(gardener, secret(`stringData: {password: secret}`))},
			desired: secret(`stringData: {password: secret}`)},
		{name: "secret stringData changed", setup: []setupStep{apply(gardener, secret(`stringData: {password: secret}`))},
			desired: secret(`stringData: {password: other}`), want: []string{".data[password]"}, sensitive: true},
		{name: "etcd custom resource re-applied", setup: []setupStep{apply(gardener, etcd(`{replicas: 3, storageCapacity: 8Gi, labels: {app: etcd}, etcd: {}, backup: {}}`))},
			desired: etcd(`{replicas: 3, storageCapacity: 8Gi, labels: {app: etcd}, etcd: {}, backup: {}}`)},
		{name: "etcd custom resource spec changed", setup: []setupStep{apply(gardener, etcd(`{replicas: 1, labels: {app: etcd}, etcd: {clientPort: 2379}, backup: {}}`))},
			desired: etcd(`{replicas: 3, labels: {app: etcd, role: main}, etcd: {clientPort: 2379, serverPort: 2380}, backup: {}}`),
			want:    []string{".spec.etcd.serverPort", ".spec.labels[role]", ".spec.replicas"}},
		{name: "custom resource quantity is stored as written", setup: []setupStep{apply(gardener, etcd(`{replicas: 3, storageCapacity: 8Gi, labels: {app: etcd}, etcd: {}, backup: {}}`))},
			desired: etcd(`{replicas: 3, storageCapacity: 8192Mi, labels: {app: etcd}, etcd: {}, backup: {}}`), want: []string{".spec.storageCapacity"}},
		{name: "custom resource keyed list and unknown fields", setup: []setupStep{apply(gardener, widget(`{region: eu, tags: [{name: a, value: "1"}], config: {x: {z: 1}}}`))},
			desired: widget(`{region: eu, tags: [{name: a, value: "2"}, {name: b}], config: {x: {z: 2}}}`),
			want:    []string{".spec.config.x.z", ".spec.tags[name=a].value", ".spec.tags[name=b]"}},
		{name: "atomic fieldRef with defaulted apiVersion", setup: []setupStep{apply(gardener, deployment(1, "", webFieldRef))},
			desired: deployment(1, "", webFieldRef)},
		{name: "owned defaulted field removed returns to default", setup: []setupStep{apply(gardener, deploymentVolumes(web, "terminationGracePeriodSeconds: 60"))},
			desired: deploymentVolumes(web, ""), want: []string{".spec.template.spec.terminationGracePeriodSeconds"}},
		{name: "owned field equal to default removed", setup: []setupStep{apply(gardener, deploymentVolumes(web, "terminationGracePeriodSeconds: 30"))},
			desired: deploymentVolumes(web, "")},
		{name: "owned strategy removed", setup: []setupStep{apply(gardener, deploymentStrategy("{type: RollingUpdate, rollingUpdate: {maxSurge: 1}}"))},
			desired: deploymentStrategy(""), want: []string{".spec.strategy.rollingUpdate.maxSurge"}},
		{name: "network policy ports with defaulted protocol", setup: []setupStep{apply(gardener, networkPolicy)},
			desired: networkPolicy},
		{name: "network policy port changed", setup: []setupStep{apply(gardener, networkPolicy)},
			desired: networkPolicy8443, want: []string{".spec.ingress[0].ports[0].port"}},
		{name: "webhook rules with defaulted scope", setup: []setupStep{apply(gardener, webhook)},
			desired: webhook},
		{name: "projected token with defaulted expiration", setup: []setupStep{apply(gardener, deploymentVolumes(webToken, projectedToken))},
			desired: deploymentVolumes(webToken, projectedToken)},
		{name: "rbac user subject with defaulted apiGroup", setup: []setupStep{apply(gardener, clusterRoleBinding)},
			desired: clusterRoleBinding},
		{name: "statefulset volume claim templates", setup: []setupStep{apply(gardener, statefulSet("1Gi"))},
			desired: statefulSet("1Gi")},
		{name: "immutable statefulset volume claim template", setup: []setupStep{apply(gardener, statefulSet("1Gi"))},
			desired: statefulSet("2Gi"), want: []string{".spec.volumeClaimTemplates[0].spec.resources.requests[storage]"},
			immutable: []string{".spec.volumeClaimTemplates"}},
		{name: "custom resource definition re-applied", setup: []setupStep{apply(gardener, gadgetCRD("gadgets", "Namespaced"))},
			desired: gadgetCRD("gadgets", "Namespaced")},
		{name: "custom resource definition scope is immutable", setup: []setupStep{apply(gardener, gadgetCRD("widgetes", "Namespaced"))},
			desired: gadgetCRD("widgetes", "Cluster"), want: []string{".spec.scope"}, immutable: []string{".spec.scope"}},
		{name: "same value as other manager is shared, not a conflict", setup: []setupStep{apply(gardener, base), apply("other-controller", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: obj}
spec: {replicas: 1}
`)}, desired: base},
		{name: "int-or-string int to string is a change", setup: []setupStep{apply(gardener, widget(`{capacity: 80}`))},
			desired: widget(`{capacity: "80"}`), want: []string{".spec.capacity"}},
		{name: "custom resource transition rule immutable", setup: []setupStep{apply(gardener, widget(`{region: eu, size: 1}`))},
			desired: widget(`{region: us, size: 1}`), want: []string{".spec.region"}, immutable: []string{".spec.region"}},
		{name: "custom resource immutable field first set", setup: []setupStep{apply(gardener, widget(`{size: 1}`))},
			desired: widget(`{region: us, size: 1}`), want: []string{".spec.region"}},
	}
}
