package diff

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/openapi"
)

// liveOf returns doc as the server would store it after `gardener` applied it: the object plus
// gardener's Apply entry. extra edits the stored object afterwards (defaults, other writers).
func liveOf(t *testing.T, d *Differ, doc string, extra ...func(u *unstructured.Unstructured)) *unstructured.Unstructured {
	t.Helper()
	u := obj(t, doc)
	typ, err := d.schemas.Type(context.Background(), u.GroupVersionKind())
	require.NoError(t, err)
	tv, err := typ.Parseable().FromUnstructured(u.Object)
	require.NoError(t, err)
	set, err := tv.ToFieldSet()
	require.NoError(t, err)
	raw, err := set.RecursiveDifference(resetSet).Difference(stripSet).ToJSON()
	require.NoError(t, err)
	addEntry(t, u, metav1.ManagedFieldsEntry{Manager: gardener, Operation: metav1.ManagedFieldsOperationApply,
		APIVersion: u.GetAPIVersion(), FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: raw}})
	for _, e := range extra {
		e(u)
	}
	return u
}

func addEntry(t *testing.T, u *unstructured.Unstructured, e metav1.ManagedFieldsEntry) {
	t.Helper()
	u.SetManagedFields(append(u.GetManagedFields(), e))
}

// owner adds a managedFields entry of another manager owning the given FieldsV1 JSON.
func owner(t *testing.T, manager string, op metav1.ManagedFieldsOperationType, fields string) func(u *unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		addEntry(t, u, metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: u.GetAPIVersion(),
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}})
	}
}

func set(path []string, v any) func(u *unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) { _ = unstructured.SetNestedField(u.Object, v, path...) }
}

const cmDoc = `
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: ns, labels: {app.kubernetes.io/name: x}}
data: {a: "1"}
`

const crdDoc = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.corpus.gardener.cloud}
spec:
  group: corpus.gardener.cloud
  names: {kind: Gadget, plural: gadgets, singular: gadget, listKind: GadgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object}}
`

// established reports a CustomResourceDefinition's Established condition.
func established(status string) func(u *unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		u.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "NamesAccepted", "status": "True"}, map[string]any{"type": "Established", "status": status}}}
	}
}

const deployDoc = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: ns}
spec:
  replicas: 1
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers:
      - name: c
        image: "nginx:1"
        resources: {requests: {cpu: "1", memory: 1Gi}}
        ports: [{containerPort: 80}]
        env: [{name: NS, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}]
        volumeMounts: [{name: v, mountPath: /v}]
      volumes: [{name: v, emptyDir: {}}]
`

// serverDefaults adds what the API server defaults in deployDoc.
func serverDefaults(u *unstructured.Unstructured) {
	c := u.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	c["imagePullPolicy"] = "IfNotPresent"
	c["ports"].([]any)[0].(map[string]any)["protocol"] = "TCP"
	c["env"].([]any)[0].(map[string]any)["valueFrom"].(map[string]any)["fieldRef"].(map[string]any)["apiVersion"] = "v1"
	u.Object["spec"].(map[string]any)["revisionHistoryLimit"] = int64(10)
}

func TestDiff(t *testing.T) {
	d := embeddedDiffer()
	tests := []struct {
		name      string
		desired   string
		edit      func(u *unstructured.Unstructured) // applied to the desired object
		live      []func(u *unstructured.Unstructured)
		force     bool
		want      []Change
		action    Action
		conflicts []Conflict
		immutable []string
	}{
		{name: "no-op", desired: deployDoc, live: []func(*unstructured.Unstructured){serverDefaults}, action: NoOp},
		{name: "map key with dots", desired: cmDoc, edit: func(u *unstructured.Unstructured) {
			u.SetLabels(map[string]string{"app.kubernetes.io/name": "y"})
		}, action: Update, want: []Change{{Path: ".metadata.labels[app.kubernetes.io/name]", Old: "x", New: "y"}}},
		{name: "data key added", desired: cmDoc, edit: set([]string{"data", "b"}, "2"), action: Update,
			want: []Change{{Path: ".data[b]", New: "2"}}},
		{name: "quantities spelled differently", desired: deployDoc, edit: func(u *unstructured.Unstructured) {
			containerOf(u)["resources"] = map[string]any{"requests": map[string]any{"cpu": "1000m", "memory": "1024Mi"}}
		}, live: []func(*unstructured.Unstructured){serverDefaults}, action: NoOp},
		{name: "quantity changed", desired: deployDoc, edit: func(u *unstructured.Unstructured) {
			containerOf(u)["resources"] = map[string]any{"requests": map[string]any{"cpu": "2", "memory": "1Gi"}}
		}, live: []func(*unstructured.Unstructured){serverDefaults}, action: Update,
			want: []Change{{Path: ".spec.template.spec.containers[name=c].resources.requests[cpu]", Old: "1", New: "2"}}},
		{name: "empty values dropped by the server", desired: deployDoc, edit: func(u *unstructured.Unstructured) {
			c := containerOf(u)
			c["volumeMounts"].([]any)[0].(map[string]any)["readOnly"] = false
			c["args"] = []any{}
		}, live: []func(*unstructured.Unstructured){serverDefaults}, action: NoOp},
		{name: "number as float", desired: deployDoc, edit: set([]string{"spec", "replicas"}, 1.0),
			live: []func(*unstructured.Unstructured){serverDefaults}, action: NoOp},
		{name: "owned field removed", desired: deployDoc, edit: func(u *unstructured.Unstructured) {
			delete(containerOf(u), "env")
		}, live: []func(*unstructured.Unstructured){serverDefaults}, action: Update,
			want: []Change{{Path: ".spec.template.spec.containers[name=c].env",
				Old: []any{map[string]any{"name": "NS", "valueFrom": map[string]any{"fieldRef": map[string]any{"apiVersion": "v1", "fieldPath": "metadata.namespace"}}}}}}},
		{name: "conflict", desired: deployDoc, edit: set([]string{"spec", "replicas"}, int64(3)),
			live: []func(*unstructured.Unstructured){serverDefaults, set([]string{"spec", "replicas"}, int64(2)),
				owner(t, "hpa", metav1.ManagedFieldsOperationUpdate, `{"f:spec":{"f:replicas":{}}}`)},
			action: Update, want: []Change{{Path: ".spec.replicas", Old: int64(2), New: int64(3)}},
			conflicts: []Conflict{{Path: ".spec.replicas", Manager: "hpa"}}},
		{name: "forced", desired: deployDoc, edit: set([]string{"spec", "replicas"}, int64(3)), force: true,
			live: []func(*unstructured.Unstructured){serverDefaults, set([]string{"spec", "replicas"}, int64(2)),
				owner(t, "hpa", metav1.ManagedFieldsOperationUpdate, `{"f:spec":{"f:replicas":{}}}`)},
			action: Update, want: []Change{{Path: ".spec.replicas", Old: int64(2), New: int64(3)}}},
		{name: "immutable selector", desired: deployDoc, edit: func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedStringMap(u.Object, map[string]string{"app": "e"}, "spec", "selector", "matchLabels")
			_ = unstructured.SetNestedStringMap(u.Object, map[string]string{"app": "e"}, "spec", "template", "metadata", "labels")
		}, live: []func(*unstructured.Unstructured){serverDefaults}, action: Update,
			want:      []Change{{Path: ".spec.selector.matchLabels[app]", Old: "d", New: "e"}, {Path: ".spec.template.metadata.labels[app]", Old: "d", New: "e"}},
			immutable: []string{".spec.selector"}},
		{name: "immutable configmap", desired: cmDoc, edit: func(u *unstructured.Unstructured) {
			u.Object["immutable"] = true
			u.Object["data"] = map[string]any{"a": "2"}
		}, live: []func(*unstructured.Unstructured){func(u *unstructured.Unstructured) { u.Object["immutable"] = true }},
			action: Update, want: []Change{{Path: ".data[a]", Old: "1", New: "2"}}, immutable: []string{".data"}},
		{name: "established crd scope", desired: crdDoc, edit: set([]string{"spec", "scope"}, "Cluster"),
			live: []func(*unstructured.Unstructured){established("True")}, action: Update,
			want: []Change{{Path: ".spec.scope", Old: "Namespaced", New: "Cluster"}}, immutable: []string{".spec.scope"}},
		{name: "crd scope before it is established", desired: crdDoc, edit: set([]string{"spec", "scope"}, "Cluster"),
			live: []func(*unstructured.Unstructured){established("False")}, action: Update,
			want: []Change{{Path: ".spec.scope", Old: "Namespaced", New: "Cluster"}}},
		{name: "crd plural is always immutable", desired: crdDoc, edit: set([]string{"spec", "names", "plural"}, "gizmos"),
			live: []func(*unstructured.Unstructured){established("False")}, action: Update,
			want: []Change{{Path: ".spec.names.plural", Old: "gadgets", New: "gizmos"}}, immutable: []string{".spec.names.plural"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			desired := obj(t, tt.desired)
			live := liveOf(t, d, tt.desired, tt.live...)
			if tt.edit != nil {
				tt.edit(desired)
			}
			for _, differ := range []*Differ{d, slowDiffer()} {
				r, err := differ.Diff(desired, live, tt.force)
				require.NoError(t, err)
				assert.Equal(t, tt.action, r.Action)
				assert.Equal(t, tt.want, r.Changes)
				assert.Equal(t, tt.conflicts, r.Conflicts)
				assert.Equal(t, tt.immutable, r.Immutable)
			}
		})
	}
}

func slowDiffer() *Differ {
	d := embeddedDiffer()
	d.slowOnly = true
	return d
}

func containerOf(u *unstructured.Unstructured) map[string]any {
	return u.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
}

func TestDiffCreate(t *testing.T) {
	r, err := embeddedDiffer().Diff(obj(t, cmDoc), nil, false)
	require.NoError(t, err)
	assert.Equal(t, &Result{Action: Create}, r)
}

func TestDiffErrors(t *testing.T) {
	d := embeddedDiffer()
	live := liveOf(t, d, cmDoc)
	bad := obj(t, cmDoc)
	bad.Object["spec"] = map[string]any{"x": int64(1)}
	_, err := d.Diff(bad, live, false)
	assert.ErrorContains(t, err, "diff ConfigMap c")

	other := obj(t, cmDoc)
	other.SetAPIVersion("v2")
	_, err = d.Diff(other, live, false)
	assert.ErrorContains(t, err, "diff needs both in one version")
}

func TestDiffSecrets(t *testing.T) {
	d := embeddedDiffer()
	const doc = `
apiVersion: v1
kind: Secret
metadata: {name: s, namespace: ns}
type: Opaque
data: {password: c2VjcmV0}
`
	live := liveOf(t, d, doc)
	// stringData is folded into data the way the server stores it.
	same := obj(t, doc)
	delete(same.Object, "data")
	same.Object["stringData"] = map[string]any{"password": "secret"}
	r, err := d.Diff(same, live, false)
	require.NoError(t, err)
	assert.Equal(t, NoOp, r.Action)
	assert.Empty(t, r.Changes)

	changed := obj(t, doc)
	changed.Object["data"] = map[string]any{"password": "bmV3"}
	changed.Object["type"] = "kubernetes.io/tls"
	r, err = d.Diff(changed, live, false)
	require.NoError(t, err)
	assert.Equal(t, []Change{
		{Path: ".data[password]", Old: "c2VjcmV0", New: "bmV3", Sensitive: true},
		{Path: ".type", Old: "Opaque", New: "kubernetes.io/tls"},
	}, r.Changes)
	assert.Equal(t, []string{".type"}, r.Immutable)
}

func TestDiffServiceClusterIP(t *testing.T) {
	d := embeddedDiffer()
	const doc = `
apiVersion: v1
kind: Service
metadata: {name: s, namespace: ns}
spec: {ports: [{port: 80}]}
`
	allocated := func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, "10.0.0.1", "spec", "clusterIP")
	}
	live := liveOf(t, d, doc, allocated)
	r, err := d.Diff(obj(t, doc), live, false)
	require.NoError(t, err)
	assert.Equal(t, NoOp, r.Action, "an allocated clusterIP we do not set is kept")

	changed := obj(t, doc)
	_ = unstructured.SetNestedField(changed.Object, "10.0.0.2", "spec", "clusterIP")
	r, err = d.Diff(changed, live, false)
	require.NoError(t, err)
	assert.Equal(t, []string{".spec.clusterIP"}, r.Immutable)
}

// transitionDoc is a custom resource whose spec.region is immutable through self == oldSelf.
const transitionDoc = `{"components": {"schemas": {"com.example.v1.Thing": {
  "type": "object",
  "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Thing"}],
  "properties": {
    "apiVersion": {"type": "string"}, "kind": {"type": "string"},
    "metadata": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
    "spec": {"type": "object", "properties": {
      "region": {"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf"}]},
      "size": {"type": "integer", "default": 1}}}}}}}}`

type staticFetcher map[string]string

func (f staticFetcher) OpenAPIV3Index(context.Context) (map[string]string, error) {
	out := map[string]string{}
	for p := range f {
		out[p] = "/openapi/v3/" + p + "?hash=1"
	}
	return out, nil
}

func (f staticFetcher) OpenAPIV3(_ context.Context, p string) ([]byte, error) {
	return []byte(f[p]), nil
}

func TestDiffCustomResource(t *testing.T) {
	d := New(openapi.New(staticFetcher{"apis/example.com/v1": transitionDoc}, ""), gardener)
	const doc = `
apiVersion: example.com/v1
kind: Thing
metadata: {name: t, namespace: ns}
spec: {region: eu, size: 3}
`
	live := liveOf(t, d, doc)
	desired := obj(t, doc)
	_ = unstructured.SetNestedField(desired.Object, "us", "spec", "region")
	delete(desired.Object["spec"].(map[string]any), "size")
	r, err := d.Diff(desired, live, false)
	require.NoError(t, err)
	assert.Equal(t, []Change{
		{Path: ".spec.region", Old: "eu", New: "us"},
		{Path: ".spec.size", Old: float64(3), New: float64(1)}, // removed, and defaulted by the schema
	}, r.Changes)
	assert.Equal(t, []string{".spec.region"}, r.Immutable)
}

func TestConvertSMDString(t *testing.T) {
	typ, err := embeddedDiffer().schemas.Type(context.Background(), schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	require.NoError(t, err)
	p := typ.Parseable()
	tests := map[string]string{
		`.spec.replicas`: `.spec.replicas`,
		`.spec.template.spec.containers[name="nginx"].image`:                              `.spec.template.spec.containers[name=nginx].image`,
		`.spec.template.spec.containers[name="a"].ports[containerPort=80,protocol="TCP"]`: `.spec.template.spec.containers[name=a].ports[containerPort=80,protocol=TCP]`,
		`.metadata.labels.app.kubernetes.io/name`:                                         `.metadata.labels[app.kubernetes.io/name]`,
		`.metadata.finalizers[="example.com/a"]`:                                          `.metadata.finalizers[example.com/a]`,
		`.spec.template.spec.containers[name="a"].args`:                                   `.spec.template.spec.containers[name=a].args`,
		`.spec.template.spec.containers[name="a"].resources.requests.cpu`:                 `.spec.template.spec.containers[name=a].resources.requests[cpu]`,
	}
	for in, want := range tests {
		assert.Equal(t, want, convertSMDString(p.Schema, p.TypeRef, in), in)
	}
}

func TestServerConflicts(t *testing.T) {
	d := embeddedDiffer()
	err := apierrors.NewApplyConflict([]metav1.StatusCause{
		{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "kubectl-edit" using apps/v1`, Field: `.spec.template.spec.containers[name="web"].image`},
		{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "hpa"`, Field: `.spec.replicas`},
	}, "Apply failed with 2 conflicts")
	got, ok := d.ServerConflicts(context.Background(), schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, err)
	require.True(t, ok)
	assert.Equal(t, []Conflict{
		{Path: ".spec.replicas", Manager: "hpa"},
		{Path: ".spec.template.spec.containers[name=web].image", Manager: "kubectl-edit"},
	}, got)
	_, ok = d.ServerConflicts(context.Background(), schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, apierrors.NewBadRequest("x"))
	assert.False(t, ok)
}

func TestManagedFieldsRoundTrip(t *testing.T) {
	live := loadFile(t, "deployment-live.yaml")
	entries, err := managedEntries(live.Object)
	require.NoError(t, err)
	m, err := decodeManaged(entries)
	require.NoError(t, err)
	encoded, err := encodeManaged(m)
	require.NoError(t, err)
	want, _ := json.Marshal(live.Object["metadata"].(map[string]any)["managedFields"])
	got, _ := json.Marshal(encoded)
	assert.JSONEq(t, string(want), string(got))
}

func TestFromServer(t *testing.T) {
	d := embeddedDiffer()
	live := liveOf(t, d, cmDoc)
	dry := liveOf(t, d, cmDoc, set([]string{"data", "a"}, "2"), set([]string{"metadata", "resourceVersion"}, "9"))
	r, err := d.FromServer(context.Background(), live, dry)
	require.NoError(t, err)
	assert.Equal(t, Update, r.Action)
	assert.Equal(t, []Change{{Path: ".data[a]", Old: "1", New: "2"}}, r.Changes)

	r, err = d.FromServer(context.Background(), nil, dry)
	require.NoError(t, err)
	assert.Equal(t, Create, r.Action)
}

func TestPathString(t *testing.T) {
	p := fieldPath{{kind: stepField, name: "spec"}, {kind: stepListKey, name: "port=80,protocol=TCP"},
		{kind: stepIndex, index: 2}, {kind: stepSetItem, name: "a/b"}, {kind: stepMapKey, name: "x.y"}}
	assert.Equal(t, ".spec[port=80,protocol=TCP][2][a/b][x.y]", p.String())
}

func TestFieldsOfANewObject(t *testing.T) {
	d := New(openapi.New(nil, ""), "gardener")
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "apps", "labels": map[string]any{"app.kubernetes.io/name": "web"}},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"spec": map[string]any{"containers": []any{
				map[string]any{"name": "web", "image": "web:1", "args": []any{"--a", "--b"}},
			}}},
		},
		"status": map[string]any{"replicas": int64(1)},
	}}
	changes, err := d.Fields(context.Background(), obj)
	require.NoError(t, err)
	var paths []string
	for _, c := range changes {
		assert.Nil(t, c.Old)
		paths = append(paths, c.Path)
	}
	assert.Equal(t, []string{
		".apiVersion",
		".kind",
		".metadata.labels[app.kubernetes.io/name]",
		".metadata.name",
		".metadata.namespace",
		".spec.selector.matchLabels[app]",
		".spec.template.spec.containers[name=web].args[0]",
		".spec.template.spec.containers[name=web].args[1]",
		".spec.template.spec.containers[name=web].image",
		".spec.template.spec.containers[name=web].name",
	}, paths)
}

// TestFieldsRenderedAsFound: the fields of a new object, each path rendered as the walk finds
// it, are what rendering the recorded changes gives (render), sensitive Secret data included.
func TestFieldsRenderedAsFound(t *testing.T) {
	d := embeddedDiffer()
	for name, doc := range map[string]string{
		"a Deployment": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: apps\n  labels: {app: web}\nspec:\n" +
			"  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    spec:\n      containers:\n      - name: web\n        image: web:1\n" +
			"        ports: [{containerPort: 443}]\n        env: [{name: A, value: a}, {name: B}]\n      volumes: [{name: tmp, emptyDir: {}}]\n",
		"a Secret":    "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: apps}\ndata: {key: dmFsdWU=}\nstringData: {other: text}\n",
		"a ConfigMap": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: apps}\ndata: {a: b, empty: \"\"}\n",
	} {
		t.Run(name, func(t *testing.T) {
			u := obj(t, doc)
			typ, err := d.schemas.Type(context.Background(), u.GroupVersionKind())
			require.NoError(t, err)
			p := typ.Parseable()
			recorded := comparer{sc: p.Schema, expand: true}
			recorded.value(map[string]any{}, diffable(u.Object), p.TypeRef)
			want := render(u.GroupVersionKind(), recorded.changes)
			require.NotEmpty(t, want)
			assert.Equal(t, want, objectFields(u.GroupVersionKind(), p.Schema, p.TypeRef, u.Object))
		})
	}
}
