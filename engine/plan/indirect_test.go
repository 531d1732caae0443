package plan

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
)

func managedResource(name string, secrets ...string) *unstructured.Unstructured {
	var refs []any
	for _, s := range secrets {
		refs = append(refs, map[string]any{"name": s})
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "resources.gardener.cloud/v1alpha1", "kind": "ManagedResource",
		"metadata": map[string]any{"name": name, "namespace": "shoot--dev--a"},
		"spec":     map[string]any{"secretRefs": refs},
	}}
}

// contents is a ManagedResource's Secret named name with docs by data key, as rendered
// (stringData) or live (base64 data).
func contents(name string, live bool, docs map[string]string) *unstructured.Unstructured {
	data := map[string]any{}
	for k, v := range docs {
		if live {
			data[k] = base64.StdEncoding.EncodeToString([]byte(v))
		} else {
			data[k] = v
		}
	}
	field := "stringData"
	if live {
		field = "data"
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": name, "namespace": "shoot--dev--a", "labels": map[string]any{render.ManagedResourceContentsLabel: "true"}},
		field:      data,
	}}
}

func pools(apiVersion, kind string, path []string, names ...string) *unstructured.Unstructured {
	var list []any
	for _, n := range names {
		list = append(list, map[string]any{"name": n, "minimum": int64(1), "maximum": int64(2)})
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": "a", "namespace": "shoot--dev--a"}}}
	_ = unstructured.SetNestedSlice(u.Object, list, path...)
	return u
}

func worker(names ...string) *unstructured.Unstructured {
	return pools("extensions.gardener.cloud/v1alpha1", "Worker", []string{"spec", "pools"}, names...)
}

func shoot(names ...string) *unstructured.Unstructured {
	return pools("core.gardener.cloud/v1beta1", "Shoot", []string{"spec", "provider", "workers"}, names...)
}

const (
	coredns  = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coredns\n  namespace: kube-system\n"
	oldSvc   = "apiVersion: v1\nkind: Service\nmetadata:\n  name: old\n  namespace: kube-system\n"
	keptSvc  = "apiVersion: v1\nkind: Service\nmetadata:\n  name: old\n  namespace: kube-system\n  annotations:\n    resources.gardener.cloud/keep-object: \"true\"\n"
	twoInOne = coredns + "---\n" + oldSvc
)

// What other controllers delete because of a change: the resource manager the objects dropped
// from a ManagedResource's contents, machine-controller-manager the machines of a removed pool.
func TestIndirectDeletions(t *testing.T) {
	mr := managedResource("shoot-core-coredns", "managedresource-shoot-core-coredns-new")
	liveMR := managedResource("shoot-core-coredns", "managedresource-shoot-core-coredns-old")
	tests := []struct {
		name    string
		desired []*unstructured.Unstructured
		live    []*unstructured.Unstructured
		changed []*unstructured.Unstructured // the objects the plan changes
		want    []string
	}{
		{
			name:    "an object dropped from the contents, under a new Secret",
			desired: []*unstructured.Unstructured{mr, contents("managedresource-shoot-core-coredns-new", false, map[string]string{"a.yaml": coredns})},
			live:    []*unstructured.Unstructured{liveMR, contents("managedresource-shoot-core-coredns-old", true, map[string]string{"a.yaml": coredns, "b.yaml": oldSvc})},
			changed: []*unstructured.Unstructured{mr},
			want:    []string{"gardener-resource-manager deletes Service kube-system/old (ManagedResource.resources.gardener.cloud shoot--dev--a/shoot-core-coredns in cluster seed, component.c.c)"},
		},
		{
			name:    "dropped from a YAML stream under one key",
			desired: []*unstructured.Unstructured{mr, contents("managedresource-shoot-core-coredns-new", false, map[string]string{"a.yaml": coredns})},
			live:    []*unstructured.Unstructured{liveMR, contents("managedresource-shoot-core-coredns-old", true, map[string]string{"a.yaml": twoInOne})},
			changed: []*unstructured.Unstructured{mr},
			want:    []string{"gardener-resource-manager deletes Service kube-system/old (ManagedResource.resources.gardener.cloud shoot--dev--a/shoot-core-coredns in cluster seed, component.c.c)"},
		},
		{
			name:    "an object kept by its annotation",
			desired: []*unstructured.Unstructured{mr, contents("managedresource-shoot-core-coredns-new", false, map[string]string{"a.yaml": coredns})},
			live:    []*unstructured.Unstructured{liveMR, contents("managedresource-shoot-core-coredns-old", true, map[string]string{"a.yaml": coredns, "b.yaml": keptSvc})},
			changed: []*unstructured.Unstructured{mr},
		},
		{
			name:    "an object under another key is not dropped",
			desired: []*unstructured.Unstructured{mr, contents("managedresource-shoot-core-coredns-new", false, map[string]string{"renamed.yaml": coredns, "b.yaml": oldSvc})},
			live:    []*unstructured.Unstructured{liveMR, contents("managedresource-shoot-core-coredns-old", true, map[string]string{"a.yaml": coredns, "b.yaml": oldSvc})},
			changed: []*unstructured.Unstructured{mr},
		},
		{
			name:    "a change held until the maintenance window is not made now",
			desired: []*unstructured.Unstructured{mr, contents("managedresource-shoot-core-coredns-new", false, map[string]string{"a.yaml": coredns})},
			live:    []*unstructured.Unstructured{liveMR, contents("managedresource-shoot-core-coredns-old", true, map[string]string{"a.yaml": coredns, "b.yaml": oldSvc})},
		},
		{
			name:    "contents that cannot be read are not guessed at",
			desired: []*unstructured.Unstructured{mr, contents("managedresource-shoot-core-coredns-new", false, map[string]string{"a.yaml": coredns})},
			live:    []*unstructured.Unstructured{liveMR},
			changed: []*unstructured.Unstructured{mr},
		},
		{
			name:    "a worker pool removed from a Worker",
			desired: []*unstructured.Unstructured{worker("a")},
			live:    []*unstructured.Unstructured{worker("a", "b")},
			changed: []*unstructured.Unstructured{worker("a")},
			want:    []string{"machine-controller-manager deletes the machines of worker pool b (Worker.extensions.gardener.cloud shoot--dev--a/a in cluster seed, component.c.c)"},
		},
		{
			name:    "and from a Shoot",
			desired: []*unstructured.Unstructured{shoot("b")},
			live:    []*unstructured.Unstructured{shoot("a", "b")},
			changed: []*unstructured.Unstructured{shoot("b")},
			want:    []string{"machine-controller-manager deletes the machines of worker pool a (Shoot.core.gardener.cloud shoot--dev--a/a in cluster seed, component.c.c)"},
		},
		{
			name:    "a pool scaled down (hibernation) deletes no pool",
			desired: []*unstructured.Unstructured{worker("a", "b")},
			live:    []*unstructured.Unstructured{worker("a", "b")},
			changed: []*unstructured.Unstructured{worker("a", "b")},
		},
		{
			name:    "a new Worker deletes nothing",
			desired: []*unstructured.Unstructured{worker("a")},
			changed: []*unstructured.Unstructured{worker("a")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var desired []*Desired
			for _, u := range tt.desired {
				desired = append(desired, &Desired{Cluster: "seed", Component: "component.c.c", Object: u})
			}
			obs := &observe.Observed{Objects: map[object.Ref]*unstructured.Unstructured{}}
			for _, u := range tt.live {
				obs.Objects[object.RefOf(u)] = u
			}
			comp := &Component{Address: "component.c.c"}
			for _, u := range tt.changed {
				comp.Objects = append(comp.Objects, &ObjectChange{Cluster: "seed", Ref: object.RefOf(u), Action: Update})
			}
			var got []string
			for _, d := range indirectDeletions([]*Component{comp}, desired, map[string]*observe.Observed{"seed": obs}, render.NewRedactor(nil)) {
				got = append(got, d.String())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// A plan that removes a worker pool lists the deletion machine-controller-manager makes, and
// so does its JSON form.
func TestBuildListsIndirectDeletions(t *testing.T) {
	have := live(t, worker("a", "b"), "component.manifests.a")
	want := worker("a")
	want.SetLabels(map[string]string{"changed": "true"}) // fakeDiffer sees labels and data only
	res := buildPlan(t, &fakeCluster{objects: []*unstructured.Unstructured{have}}, map[config.InstanceAddress]*rendering.Rendered{
		"component.manifests.a": {Address: "component.manifests.a", Type: "manifests", Objects: objects(want)},
	}, nil)
	assert.Equal(t, map[string]string{"component.manifests.a Worker.extensions.gardener.cloud shoot--dev--a/a": "update config_changed"}, actions(res.Plan))
	assert.Equal(t, []IndirectDeletion{{
		Address: "component.manifests.a", Cluster: "runtime", Ref: object.RefOf(have),
		Controller: "machine-controller-manager", Deletes: "the machines of worker pool b",
	}}, res.Plan.IndirectDeletions)
	js, err := json.Marshal(res.Plan)
	require.NoError(t, err)
	assert.Contains(t, string(js), `"indirect_deletions":[{"address":"component.manifests.a","cluster":"runtime","ref":{"group":"extensions.gardener.cloud","kind":"Worker","namespace":"shoot--dev--a","name":"a"},"controller":"machine-controller-manager","deletes":"the machines of worker pool b"}]`)
}
