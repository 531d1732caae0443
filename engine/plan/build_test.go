package plan

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
)

// fakeCluster serves ConfigMaps, Namespaces and Deployments from memory.
type fakeCluster struct{ objects []*unstructured.Unstructured }

var fakeResources = []observe.Resource{
	{GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: "configmaps", Namespaced: true, Verbs: []string{"get", "list", "patch"}},
	{GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, Resource: "namespaces", Verbs: []string{"get", "list", "patch"}},
	{GroupVersionKind: schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}, Resource: "customresourcedefinitions", Verbs: []string{"get", "list", "patch"}},
	// Gardener kinds, for the forbidden replacements (forbidden_test.go).
	{GroupVersionKind: schema.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Shoot"}, Resource: "shoots", Namespaced: true, Verbs: []string{"get", "list", "patch"}},
	{GroupVersionKind: schema.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Seed"}, Resource: "seeds", Verbs: []string{"get", "list", "patch"}},
	{GroupVersionKind: schema.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Project"}, Resource: "projects", Verbs: []string{"get", "list", "patch"}},
	{GroupVersionKind: schema.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "ExposureClass"}, Resource: "exposureclasses", Verbs: []string{"get", "list", "patch"}},
	{GroupVersionKind: schema.GroupVersionKind{Group: "operator.gardener.cloud", Version: "v1alpha1", Kind: "Garden"}, Resource: "gardens", Verbs: []string{"get", "list", "patch"}},
	{GroupVersionKind: schema.GroupVersionKind{Group: "seedmanagement.gardener.cloud", Version: "v1alpha1", Kind: "ManagedSeed"}, Resource: "managedseeds", Namespaced: true, Verbs: []string{"get", "list", "patch"}},
	{GroupVersionKind: schema.GroupVersionKind{Group: "extensions.gardener.cloud", Version: "v1alpha1", Kind: "Infrastructure"}, Resource: "infrastructures", Namespaced: true, Verbs: []string{"get", "list", "patch"}},
	{GroupVersionKind: schema.GroupVersionKind{Group: "extensions.gardener.cloud", Version: "v1alpha1", Kind: "Worker"}, Resource: "workers", Namespaced: true, Verbs: []string{"get", "list", "patch"}},
	{GroupVersionKind: schema.GroupVersionKind{Group: "extensions.gardener.cloud", Version: "v1alpha1", Kind: "BackupEntry"}, Resource: "backupentries", Verbs: []string{"get", "list", "patch"}},
}

func (f *fakeCluster) ServerVersion(context.Context) (string, error) { return "v1.37.1", nil }
func (f *fakeCluster) Resources(context.Context) ([]observe.Resource, error) {
	return fakeResources, nil
}
func (f *fakeCluster) kindOf(gvr schema.GroupVersionResource) string {
	for _, r := range fakeResources {
		if r.Resource == gvr.Resource {
			return r.Kind
		}
	}
	return ""
}
func (f *fakeCluster) List(_ context.Context, gvr schema.GroupVersionResource, ns, selector string) ([]unstructured.Unstructured, error) {
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, err
	}
	var out []unstructured.Unstructured
	for _, o := range f.objects {
		if o.GetKind() == f.kindOf(gvr) && (ns == "" || o.GetNamespace() == ns) && sel.Matches(labels.Set(o.GetLabels())) {
			out = append(out, *o.DeepCopy())
		}
	}
	return out, nil
}
func (f *fakeCluster) Get(_ context.Context, gvr schema.GroupVersionResource, ns, name string) (*unstructured.Unstructured, error) {
	for _, o := range f.objects {
		if o.GetKind() == f.kindOf(gvr) && o.GetNamespace() == ns && o.GetName() == name {
			return o.DeepCopy(), nil
		}
	}
	return nil, nil
}
func (f *fakeCluster) OpenAPIV3Index(context.Context) (map[string]string, error) { return nil, nil }
func (f *fakeCluster) OpenAPIV3(context.Context, string) ([]byte, error) {
	return nil, fmt.Errorf("none")
}

// fakeDiffer compares .data maps only, and reports a conflict for data keys named "owned".
type fakeDiffer struct{}

func (fakeDiffer) Fields(context.Context, *unstructured.Unstructured) ([]diff.Change, error) {
	return nil, fmt.Errorf("no schemas in this test")
}

func (fakeDiffer) Diff(desired, live *unstructured.Unstructured, _ bool) (*diff.Result, error) {
	r := &diff.Result{Action: diff.NoOp}
	want, _, _ := unstructured.NestedStringMap(desired.Object, "data")
	have, _, _ := unstructured.NestedStringMap(live.Object, "data")
	for k, v := range want {
		if have[k] != v {
			c := diff.Change{Path: ".data[" + k + "]", New: v}
			if old, ok := have[k]; ok {
				c.Old = old
			}
			r.Changes = append(r.Changes, c)
			switch k {
			case "owned": // a controller's field
				r.Conflicts = append(r.Conflicts, diff.Conflict{Path: c.Path, Manager: "kube-controller-manager"})
			case "edited": // a person's
				r.Conflicts = append(r.Conflicts, diff.Conflict{Path: c.Path, Manager: "kubectl-edit"})
			}
			if k == "immutable" {
				r.Immutable = append(r.Immutable, c.Path)
			}
		}
	}
	wantLabels, haveLabels := desired.GetLabels(), live.GetLabels()
	for _, k := range slices.Sorted(maps.Keys(wantLabels)) {
		if v, ok := haveLabels[k]; !ok || v != wantLabels[k] {
			c := diff.Change{Path: ".metadata.labels[" + k + "]", New: wantLabels[k]}
			if ok {
				c.Old = v
			}
			r.Changes = append(r.Changes, c)
		}
	}
	if len(r.Changes) > 0 {
		r.Action = diff.Update
	}
	return r, nil
}

func cm(ns, name string, data map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"data":     data,
	}}
}

// live returns an object as the landscape applied it: stamped.
func live(t *testing.T, u *unstructured.Unstructured, component string) *unstructured.Unstructured {
	t.Helper()
	require.NoError(t, inventory.Stamp(u, "test", component, nil))
	u.SetResourceVersion("7")
	return u
}

func buildPlan(t *testing.T, c *fakeCluster, rendered map[config.InstanceAddress]*rendering.Rendered, mutate func(*Options)) *Result {
	t.Helper()
	var order []config.InstanceAddress
	for _, a := range []config.InstanceAddress{"component.manifests.a", "component.manifests.b", "component.manifests.crd"} {
		if rendered[a] != nil {
			order = append(order, a)
		}
	}
	opts := Options{
		Landscape: "test", Order: order, Rendered: rendered,
		Clusters: map[string]observe.Cluster{"runtime": c},
		Differs:  func(string) (Differ, error) { return fakeDiffer{}, nil },
		// Without a state, as a library caller plans: deletions need the word of the caller.
		PruneWithoutState: true,
	}
	if mutate != nil {
		mutate(&opts)
	}
	res, err := Build(context.Background(), opts)
	require.NoError(t, err)
	return res
}

func objects(objs ...*unstructured.Unstructured) []render.Object {
	var out []render.Object
	for _, o := range objs {
		out = append(out, render.Object{Cluster: "runtime", Object: o, DefaultNamespace: "apps"})
	}
	return out
}

func actions(p *Plan) map[string]string {
	out := map[string]string{}
	for _, c := range p.Components {
		for _, o := range c.Objects {
			out[c.Address+" "+o.Ref.String()] = string(o.Action) + " " + o.Reason.String()
		}
	}
	return out
}

func TestBuildActionsAndReasons(t *testing.T) {
	// What the cluster holds: objects applied by the landscape before, one edited out of band,
	// one of a component that is gone, and one the landscape never applied.
	drifted := live(t, cm("apps", "drifted", map[string]any{"k": "v"}), "component.manifests.a")
	drifted.Object["data"] = map[string]any{"k": "edited"}
	foreign := cm("apps", "foreign", map[string]any{"k": "v"})
	foreign.SetResourceVersion("7")
	// Edited by a person (kubectl edit), alone and beside a controller's field.
	edited := live(t, cm("apps", "edited", map[string]any{"edited": "v"}), "component.manifests.a")
	edited.Object["data"] = map[string]any{"edited": "by hand"}
	mixed := live(t, cm("apps", "mixed", map[string]any{"edited": "v", "owned": "ours"}), "component.manifests.a")
	mixed.Object["data"] = map[string]any{"edited": "by hand", "owned": "theirs"}
	c := &fakeCluster{objects: []*unstructured.Unstructured{
		live(t, cm("apps", "same", map[string]any{"k": "v"}), "component.manifests.a"),
		live(t, cm("apps", "changed", map[string]any{"k": "old"}), "component.manifests.a"),
		drifted, edited, mixed,
		live(t, cm("apps", "conflicting", map[string]any{"owned": "theirs"}), "component.manifests.a"),
		live(t, cm("apps", "immutable", map[string]any{"immutable": "1"}), "component.manifests.a"),
		live(t, cm("apps", "gone", map[string]any{}), "component.manifests.removed"),
		live(t, cm("apps", "dropped", map[string]any{}), "component.manifests.a"),
		foreign,
	}}
	rendered := map[config.InstanceAddress]*rendering.Rendered{
		"component.manifests.a": {Address: "component.manifests.a", Type: "manifests", Objects: objects(
			cm("", "same", map[string]any{"k": "v"}),
			cm("", "changed", map[string]any{"k": "new"}),
			cm("", "drifted", map[string]any{"k": "v"}),
			cm("", "edited", map[string]any{"edited": "v"}),
			cm("", "mixed", map[string]any{"edited": "v", "owned": "ours"}),
			cm("", "conflicting", map[string]any{"owned": "ours"}),
			cm("", "immutable", map[string]any{"immutable": "2"}),
			cm("", "new", map[string]any{"k": "v"}),
		)},
		"component.manifests.b": {Address: "component.manifests.b", Type: "manifests", Objects: objects(
			cm("apps", "foreign", map[string]any{"k": "v"}),
		)},
	}
	res := buildPlan(t, c, rendered, nil)
	assert.Equal(t, map[string]string{
		"component.manifests.a ConfigMap apps/same":        "no-op ",
		"component.manifests.a ConfigMap apps/changed":     "update config_changed",
		"component.manifests.a ConfigMap apps/drifted":     "update drift",
		"component.manifests.a ConfigMap apps/edited":      "update drift",
		"component.manifests.a ConfigMap apps/mixed":       "update conflict:kube-controller-manager",
		"component.manifests.a ConfigMap apps/conflicting": "update conflict:kube-controller-manager",
		"component.manifests.a ConfigMap apps/immutable":   "replace immutable_field:.data[immutable]",
		"component.manifests.a ConfigMap apps/new":         "create missing",
		"component.manifests.a ConfigMap apps/dropped":     "delete removed_from_landscape",
		"component.manifests.b ConfigMap apps/foreign":     "update adopt",
		"component.manifests.removed ConfigMap apps/gone":  "delete removed_from_landscape",
	}, actions(res.Plan))
	assert.Equal(t, Summary{Add: 1, Change: 6, Replace: 1, Destroy: 2}, res.Plan.Summary)
	byName := map[string]*ObjectChange{}
	for _, o := range res.Plan.Components[0].Objects {
		byName[o.Ref.Name] = o
	}
	// A person's field is drift apply takes back; beside a controller's it is a conflict too.
	assert.Equal(t, []Conflict{{Path: ".data[edited]", Manager: "kubectl-edit"}}, byName["edited"].Drift)
	assert.Empty(t, byName["edited"].Conflicts)
	assert.Empty(t, byName["mixed"].Drift)
	assert.ElementsMatch(t, []Conflict{{Path: ".data[edited]", Manager: "kubectl-edit"}, {Path: ".data[owned]", Manager: "kube-controller-manager"}}, byName["mixed"].Conflicts, "the fake differ does not sort")
	assert.False(t, res.Plan.StrictConflicts)
	// Components in graph order; removed ones last.
	var addrs []string
	for _, c := range res.Plan.Components {
		addrs = append(addrs, c.Address)
	}
	assert.Equal(t, []string{"component.manifests.a", "component.manifests.b", "component.manifests.removed"}, addrs)
	// Observed resourceVersions are recorded for saved plans.
	for _, c := range res.Plan.Components {
		for _, o := range c.Objects {
			if o.Action != Create {
				assert.Equal(t, "7", o.ResourceVersion, o.Ref.String())
			}
		}
	}
	// Desired objects are stamped and namespaced.
	for _, d := range res.Desired {
		assert.Equal(t, "apps", d.Object.GetNamespace())
		assert.Equal(t, "test", d.Object.GetLabels()[inventory.LandscapeLabel])
		assert.NotEmpty(t, inventory.AppliedHash(d.Object))
	}
}

func TestBuildLeavesAloneWhatItDidNotApply(t *testing.T) {
	labelled := cm("apps", "labelled", nil)
	labelled.SetLabels(map[string]string{inventory.LandscapeLabel: "test"})
	copied := live(t, cm("apps", "copied", nil), "component.manifests.a")
	copied.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "1", Controller: ptr(true)}})
	res := buildPlan(t, &fakeCluster{objects: []*unstructured.Unstructured{labelled, copied}},
		map[config.InstanceAddress]*rendering.Rendered{"component.manifests.a": {Address: "component.manifests.a", Type: "manifests", Objects: objects(cm("", "x", nil))}}, nil)
	assert.Equal(t, map[string]string{"component.manifests.a ConfigMap apps/x": "create missing"}, actions(res.Plan))
	assert.Equal(t, []string{
		"ConfigMap apps/copied in cluster runtime carries the label declarative-gardener.io/landscape=test but was not applied by gardener; it is left alone",
		"ConfigMap apps/labelled in cluster runtime carries the label declarative-gardener.io/landscape=test but was not applied by gardener; it is left alone",
	}, res.Plan.Warnings)
}

func TestBuildRefusesToTakeOver(t *testing.T) {
	other := cm("apps", "theirs", map[string]any{"k": "v"})
	require.NoError(t, inventory.Stamp(other, "other", "component.manifests.a", nil))
	foreign := cm("apps", "foreign", map[string]any{"immutable": "1"})
	for name, tt := range map[string]struct {
		live   *unstructured.Unstructured
		render *unstructured.Unstructured
		want   string
	}{
		"another landscape's object":   {other, cm("", "theirs", map[string]any{"k": "v"}), `belongs to landscape "other"`},
		"an unowned object to replace": {foreign, cm("", "foreign", map[string]any{"immutable": "2"}), "adopting it would replace it"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Build(context.Background(), Options{
				Landscape: "test", Order: []config.InstanceAddress{"component.manifests.a"},
				Rendered: map[config.InstanceAddress]*rendering.Rendered{"component.manifests.a": {Type: "manifests", Objects: objects(tt.render)}},
				Clusters: map[string]observe.Cluster{"runtime": &fakeCluster{objects: []*unstructured.Unstructured{tt.live}}},
				Differs:  func(string) (Differ, error) { return fakeDiffer{}, nil },
			})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestBuildDestroyTargetsAndDeferred(t *testing.T) {
	c := &fakeCluster{objects: []*unstructured.Unstructured{
		live(t, cm("apps", "a1", nil), "component.manifests.a"),
		live(t, cm("apps", "b1", nil), "component.manifests.b"),
	}}
	rendered := map[config.InstanceAddress]*rendering.Rendered{
		"component.manifests.a": {Address: "component.manifests.a", Type: "manifests", Objects: objects(cm("", "a1", nil))},
		"component.manifests.b": {Address: "component.manifests.b", Type: "manifests", Deferred: []string{".objects"}},
	}
	t.Run("destroy deletes everything the landscape owns", func(t *testing.T) {
		res := buildPlan(t, c, rendered, func(o *Options) { o.Destroy = true })
		assert.Equal(t, map[string]string{
			"component.manifests.a ConfigMap apps/a1": "delete destroy",
			"component.manifests.b ConfigMap apps/b1": "delete destroy",
		}, actions(res.Plan))
		assert.Empty(t, res.Desired)
	})
	t.Run("a deferred component keeps its objects", func(t *testing.T) {
		res := buildPlan(t, c, rendered, nil)
		assert.Equal(t, map[string]string{"component.manifests.a ConfigMap apps/a1": "no-op "}, actions(res.Plan))
		assert.Equal(t, Read, res.Plan.Components[1].Action)
		assert.Equal(t, 1, res.Plan.Summary.Deferred)
		assert.True(t, res.Plan.HasChanges())
	})
	t.Run("targets limit deletions", func(t *testing.T) {
		only := map[config.InstanceAddress]*rendering.Rendered{"component.manifests.a": {Address: "component.manifests.a", Type: "manifests"}}
		res := buildPlan(t, c, only, func(o *Options) {
			o.Targets = []string{"component.manifests.a"}
			o.TargetAddrs = []config.InstanceAddress{"component.manifests.a"}
			o.PreviousKinds = map[string][]schema.GroupKind{"runtime": {{Kind: "ConfigMap"}}}
		})
		assert.Equal(t, map[string]string{"component.manifests.a ConfigMap apps/a1": "delete removed_from_landscape"}, actions(res.Plan))
	})
}

func TestBuildKinds(t *testing.T) {
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "etcds.druid.gardener.cloud"},
		"spec": map[string]any{"group": "druid.gardener.cloud", "scope": "Namespaced",
			"names":    map[string]any{"kind": "Etcd", "plural": "etcds"},
			"versions": []any{map[string]any{"name": "v1alpha1", "storage": true}}},
	}}
	etcd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "druid.gardener.cloud/v1alpha1", "kind": "Etcd", "metadata": map[string]any{"name": "etcd-main"},
	}}
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "apps"}}}
	res := buildPlan(t, &fakeCluster{}, map[config.InstanceAddress]*rendering.Rendered{
		"component.manifests.crd": {Address: "component.manifests.crd", Type: "manifests", Objects: objects(crd, ns)},
		"component.manifests.a":   {Address: "component.manifests.a", Type: "manifests", Objects: objects(etcd)},
	}, nil)
	assert.Equal(t, map[string]string{
		"component.manifests.a Etcd.druid.gardener.cloud apps/etcd-main":                                   "create missing",
		"component.manifests.crd CustomResourceDefinition.apiextensions.k8s.io etcds.druid.gardener.cloud": "create missing",
		"component.manifests.crd Namespace apps":                                                           "create missing",
	}, actions(res.Plan), "a kind whose CRD is in the plan is planned as create; cluster-scoped objects lose the default namespace")

	_, err := Build(context.Background(), Options{
		Landscape: "test", Order: []config.InstanceAddress{"component.manifests.a"},
		Rendered: map[config.InstanceAddress]*rendering.Rendered{"component.manifests.a": {Type: "manifests", Objects: objects(etcd)}},
		Clusters: map[string]observe.Cluster{"runtime": &fakeCluster{}},
		Differs:  func(string) (Differ, error) { return fakeDiffer{}, nil },
	})
	assert.ErrorContains(t, err, "does not serve Etcd.druid.gardener.cloud (used by component.manifests.a etcd-main)")

	_, err = Build(context.Background(), Options{
		Landscape: "test", Order: []config.InstanceAddress{"component.manifests.a", "component.manifests.b"},
		Rendered: map[config.InstanceAddress]*rendering.Rendered{
			"component.manifests.a": {Type: "manifests", Objects: objects(cm("", "x", nil))},
			"component.manifests.b": {Type: "manifests", Objects: objects(cm("", "x", nil))},
		},
		Clusters: map[string]observe.Cluster{"runtime": &fakeCluster{}},
		Differs:  func(string) (Differ, error) { return fakeDiffer{}, nil },
	})
	assert.ErrorContains(t, err, "ConfigMap apps/x in cluster runtime is rendered twice, by component.manifests.a and component.manifests.b")

	_, err = Build(context.Background(), Options{Landscape: "not a label"})
	assert.ErrorContains(t, err, "cannot label the objects it owns")
}

func TestCreationRedactsSecrets(t *testing.T) {
	secret := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s", "namespace": "apps"},
		"data":       map[string]any{"token": "c2VjcmV0"},
		"stringData": map[string]any{"password": "hunter22"},
	}}
	config := cm("apps", "c", map[string]any{"dsn": "postgres://u:hunter22@db", "url": "https://" + render.UnknownString})
	red := render.NewRedactor([]string{"hunter22"})
	for _, u := range []*unstructured.Unstructured{secret, config} {
		for _, c := range creation(u, red) {
			assert.NotContains(t, fmt.Sprint(c.Before, c.After), "hunter22")
			assert.NotContains(t, fmt.Sprint(c.After), "c2VjcmV0")
			switch c.Path {
			case ".data[token]", ".stringData[password]", ".data[dsn]":
				assert.True(t, c.Sensitive, c.Path)
			case ".data[url]":
				assert.True(t, c.Unknown, c.Path)
			}
		}
	}
}

// versionedCluster serves Deployments in apps/v1 (preferred) and, on GET, in apps/v1beta2.
type versionedCluster struct {
	fakeCluster
	gets int
}

func (v *versionedCluster) Resources(context.Context) ([]observe.Resource, error) {
	return []observe.Resource{{GroupVersionKind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Resource: "deployments", Namespaced: true, Verbs: []string{"get", "list"}}}, nil
}

func (v *versionedCluster) List(_ context.Context, _ schema.GroupVersionResource, _, _ string) ([]unstructured.Unstructured, error) {
	return []unstructured.Unstructured{*v.objects[0].DeepCopy()}, nil
}

func (v *versionedCluster) Get(_ context.Context, gvr schema.GroupVersionResource, _, _ string) (*unstructured.Unstructured, error) {
	v.gets++
	u := v.objects[0].DeepCopy()
	u.SetAPIVersion(gvr.Group + "/" + gvr.Version)
	return u, nil
}

// versionDiffer fails unless both objects are in one version, like engine/diff.
type versionDiffer struct{}

func (versionDiffer) Fields(context.Context, *unstructured.Unstructured) ([]diff.Change, error) {
	return nil, nil
}

func (versionDiffer) Diff(desired, live *unstructured.Unstructured, _ bool) (*diff.Result, error) {
	if desired.GroupVersionKind() != live.GroupVersionKind() {
		return nil, fmt.Errorf("versions differ")
	}
	return &diff.Result{Action: diff.NoOp}, nil
}

func TestBuildReadsObjectsInTheLandscapesVersion(t *testing.T) {
	deploy := func(version string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apps/" + version, "kind": "Deployment", "metadata": map[string]any{"name": "d", "namespace": "apps"},
		}}
	}
	c := &versionedCluster{fakeCluster: fakeCluster{objects: []*unstructured.Unstructured{live(t, deploy("v1"), "component.manifests.a")}}}
	res, err := Build(context.Background(), Options{
		Landscape: "test", Order: []config.InstanceAddress{"component.manifests.a"},
		Rendered: map[config.InstanceAddress]*rendering.Rendered{"component.manifests.a": {Type: "manifests", Objects: objects(deploy("v1beta2"))}},
		Clusters: map[string]observe.Cluster{"runtime": c},
		Differs:  func(string) (Differ, error) { return versionDiffer{}, nil },
	})
	require.NoError(t, err)
	assert.Equal(t, 1, c.gets, "one GET for the object written in another version")
	assert.Equal(t, "apps/v1beta2", res.Plan.Components[0].Objects[0].APIVersion)
}

// staleCluster serves Etcd only after its discovery is refreshed, like a disk cache written
// before the CRD was installed.
type staleCluster struct {
	fakeCluster
	refreshed bool
}

func (s *staleCluster) Resources(ctx context.Context) ([]observe.Resource, error) {
	res, _ := s.fakeCluster.Resources(ctx)
	if s.refreshed {
		res = append(res, observe.Resource{GroupVersionKind: schema.GroupVersionKind{Group: "druid.gardener.cloud", Version: "v1alpha1", Kind: "Etcd"}, Resource: "etcds", Namespaced: true, Verbs: []string{"get", "list"}})
	}
	return res, nil
}

func (s *staleCluster) RefreshDiscovery(context.Context) error { s.refreshed = true; return nil }

func TestBuildRefreshesStaleDiscovery(t *testing.T) {
	etcd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "druid.gardener.cloud/v1alpha1", "kind": "Etcd", "metadata": map[string]any{"name": "etcd-main"},
	}}
	c := &staleCluster{}
	res, err := Build(context.Background(), Options{
		Landscape: "test", Order: []config.InstanceAddress{"component.manifests.a"},
		Rendered: map[config.InstanceAddress]*rendering.Rendered{"component.manifests.a": {Type: "manifests", Objects: objects(etcd)}},
		Clusters: map[string]observe.Cluster{"runtime": c},
		Differs:  func(string) (Differ, error) { return fakeDiffer{}, nil },
	})
	require.NoError(t, err)
	assert.True(t, c.refreshed)
	assert.Equal(t, map[string]string{"component.manifests.a Etcd.druid.gardener.cloud apps/etcd-main": "create missing"}, actions(res.Plan))
}

func TestBuildWarnsAboutProtectedDeletions(t *testing.T) {
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "etcds.druid.gardener.cloud"},
	}}
	c := &fakeCluster{objects: []*unstructured.Unstructured{live(t, crd.DeepCopy(), "component.manifests.crd"), live(t, cm("apps", "a1", nil), "component.manifests.a")}}
	res := buildPlan(t, c, map[config.InstanceAddress]*rendering.Rendered{
		"component.manifests.crd": {Address: "component.manifests.crd", Type: "manifests", Objects: objects(crd)},
		"component.manifests.a":   {Address: "component.manifests.a", Type: "manifests", Objects: objects(cm("", "a1", nil))},
	}, func(o *Options) {
		o.Destroy = true
		o.PreventDestroy = map[string]bool{"component.manifests.a": true}
	})
	assert.Equal(t, []string{
		"ConfigMap apps/a1 in cluster runtime is protected: apply will delete it only with --allow-destroy component.manifests.a",
		"CustomResourceDefinition.apiextensions.k8s.io etcds.druid.gardener.cloud in cluster runtime is protected: apply will delete it only with --allow-destroy component.manifests.crd",
	}, res.Plan.Warnings)
}

func TestBuildKeepsWhatIsStillNeeded(t *testing.T) {
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "apps"}}}
	c := &fakeCluster{objects: []*unstructured.Unstructured{
		live(t, ns, "component.manifests.gone"),
		live(t, cm("apps", "moved", nil), "component.manifests.b"),
	}}
	t.Run("a namespace desired objects live in", func(t *testing.T) {
		res := buildPlan(t, c, map[config.InstanceAddress]*rendering.Rendered{
			"component.manifests.a": {Address: "component.manifests.a", Type: "manifests", Objects: objects(cm("", "moved", nil))},
		}, func(o *Options) { o.PreviousKinds = map[string][]schema.GroupKind{"runtime": {{Kind: "Namespace"}}} })
		for _, comp := range res.Plan.Components {
			for _, o := range comp.Objects {
				assert.NotEqual(t, Delete, o.Action, o.Ref.String())
			}
		}
		assert.Contains(t, res.Plan.Warnings, "Namespace apps in cluster runtime is no longer rendered but objects of the landscape still live in it; it is kept")
	})
	t.Run("an object moved to a component outside --target", func(t *testing.T) {
		res := buildPlan(t, c, map[config.InstanceAddress]*rendering.Rendered{
			"component.manifests.a": {Address: "component.manifests.a", Type: "manifests", Objects: objects(cm("", "moved", nil))},
			"component.manifests.b": {Address: "component.manifests.b", Type: "manifests"},
		}, func(o *Options) {
			o.Order = []config.InstanceAddress{"component.manifests.b"}
			o.TargetAddrs = []config.InstanceAddress{"component.manifests.b"}
			o.PreviousKinds = map[string][]schema.GroupKind{"runtime": {{Kind: "ConfigMap"}}}
		})
		assert.Empty(t, actions(res.Plan), "component.manifests.b no longer renders it, but component.manifests.a does")
	})
}

// The parts of a composite whose lifetime ended are deleted with the reason lifetime_ended, a
// targeted plan of the composite included; the retirement is listed for apply to record.
func TestBuildRetiredComposite(t *testing.T) {
	c := &fakeCluster{objects: []*unstructured.Unstructured{
		live(t, cm("apps", "kept", nil), "component.manifests.a"),
		live(t, cm("apps", "cp", nil), "shoot.trial.control_plane"),
		live(t, cm("apps", "gone", nil), "component.manifests.removed"),
	}}
	retirement := &rendering.Retirement{Address: "shoot.trial", Ended: "2026-11-20T08:00:00Z", Reason: "the cluster lifetime of Quota garden-dev/trial, 7 days"}
	rendered := map[config.InstanceAddress]*rendering.Rendered{
		"component.manifests.a": {Address: "component.manifests.a", Type: "manifests", Objects: objects(cm("", "kept", nil))},
		"shoot.trial":           {Address: "shoot.trial", Type: "shoot", Retired: retirement},
	}
	order := func(o *Options) {
		o.Order = []config.InstanceAddress{"component.manifests.a", "shoot.trial"}
	}
	res := buildPlan(t, c, rendered, order)
	assert.Equal(t, map[string]string{
		"component.manifests.a ConfigMap apps/kept":       "no-op ",
		"shoot.trial.control_plane ConfigMap apps/cp":     "delete lifetime_ended",
		"component.manifests.removed ConfigMap apps/gone": "delete removed_from_landscape",
	}, actions(res.Plan))
	notes := map[string]Note{}
	for _, comp := range res.Plan.Components {
		notes[comp.Address] = comp.Note
		assert.Equal(t, comp.Address != "component.manifests.a" && comp.Address != "shoot.trial", comp.Removed(), comp.Address)
	}
	assert.Equal(t, Note{Kind: NoteLifetimeEnded, Text: "lifetime ended"}, notes["shoot.trial.control_plane"])
	assert.Equal(t, Note{Kind: NoteRetired, Text: "lifetime ended at 2026-11-20T08:00:00Z: its parts are deleted"}, notes["shoot.trial"])
	assert.Equal(t, Note{Kind: NoteRemoved, Text: "removed from the landscape"}, notes["component.manifests.removed"])
	assert.Equal(t, []Retirement{Retirement(*retirement)}, res.Plan.Retired)

	targeted := buildPlan(t, c, rendered, func(o *Options) {
		o.Order = []config.InstanceAddress{"shoot.trial"}
		o.Targets = []string{"shoot.trial"}
		o.TargetAddrs = []config.InstanceAddress{"shoot.trial"}
		o.PreviousKinds = map[string][]schema.GroupKind{"runtime": {{Kind: "ConfigMap"}}}
	})
	assert.Equal(t, map[string]string{"shoot.trial.control_plane ConfigMap apps/cp": "delete lifetime_ended"}, actions(targeted.Plan),
		"a targeted plan of the composite deletes its parts, not what other blocks left")
}

// An object that supersedes the earlier versions of itself (render.Object.Supersedes) has them
// deleted with the reason superseded and its name; an object its pattern matches but another
// component applied or in another namespace, and a protected one (a shoot namespace), are
// removed from the landscape as before.
func TestBuildSupersededVersions(t *testing.T) {
	c := &fakeCluster{objects: []*unstructured.Unstructured{
		live(t, cm("apps", "proxy-v1.31.1", map[string]any{"k": "v"}), "component.manifests.a"),
		live(t, cm("apps", "proxy-v1.31.2", map[string]any{"k": "v"}), "component.manifests.b"),
		live(t, cm("apps", "other", map[string]any{"k": "v"}), "component.manifests.a"),
		live(t, cm("tools", "proxy-v1.30.0", map[string]any{"k": "v"}), "component.manifests.a"),
		live(t, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "shoot--proxy-v1.28.0"}}}, "component.manifests.a"),
	}}
	rendered := map[config.InstanceAddress]*rendering.Rendered{
		"component.manifests.a": {Address: "component.manifests.a", Type: "manifests", Objects: []render.Object{
			{Cluster: "runtime", Object: cm("", "proxy-v1.31.3", map[string]any{"k": "v"}), DefaultNamespace: "apps", Supersedes: regexp.MustCompile(`^proxy-v[0-9.]+$`)},
			{Cluster: "runtime", Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "shoot--proxy-v1.31.3"}}},
				Supersedes: regexp.MustCompile(`^shoot--proxy-v[0-9.]+$`)},
		}},
		"component.manifests.b": {Address: "component.manifests.b", Type: "manifests"},
	}
	res := buildPlan(t, c, rendered, nil)
	assert.Equal(t, map[string]string{
		"component.manifests.a ConfigMap apps/proxy-v1.31.3":   "create missing",
		"component.manifests.a ConfigMap apps/proxy-v1.31.1":   "delete superseded:proxy-v1.31.3",
		"component.manifests.a ConfigMap apps/other":           "delete removed_from_landscape",
		"component.manifests.a ConfigMap tools/proxy-v1.30.0":  "delete removed_from_landscape",
		"component.manifests.b ConfigMap apps/proxy-v1.31.2":   "delete removed_from_landscape",
		"component.manifests.a Namespace shoot--proxy-v1.31.3": "create missing",
		"component.manifests.a Namespace shoot--proxy-v1.28.0": "delete removed_from_landscape",
	}, actions(res.Plan))
	assert.Equal(t, 5, res.Plan.Summary.Destroy)
	assert.Equal(t, 1, res.Plan.Summary.Superseded)
}

// An annotation the rendering carries out (render.Object.Consume) is planned as removed while
// the live object still has the value read: a no-op becomes an update with reason
// operation_done, and a value someone changed since, or an annotation already gone, is left.
func TestBuildConsumesOperationAnnotations(t *testing.T) {
	asking := func(name, value string) *unstructured.Unstructured {
		u := live(t, cm("apps", name, map[string]any{"k": "v"}), "component.manifests.a")
		annotations := u.GetAnnotations()
		annotations["gardener.cloud/operation"] = value
		u.SetAnnotations(annotations)
		return u
	}
	c := &fakeCluster{objects: []*unstructured.Unstructured{
		asking("reconcile", "reconcile"),
		asking("changed", "maintain"),
		live(t, cm("apps", "gone", map[string]any{"k": "v"}), "component.manifests.a"),
		asking("updated", "reconcile"),
	}}
	consuming := func(u *unstructured.Unstructured) render.Object {
		return render.Object{Cluster: "runtime", Object: u, DefaultNamespace: "apps", Consume: map[string]string{"gardener.cloud/operation": "reconcile"}}
	}
	rendered := map[config.InstanceAddress]*rendering.Rendered{
		"component.manifests.a": {Address: "component.manifests.a", Type: "manifests", Objects: []render.Object{
			consuming(cm("", "reconcile", map[string]any{"k": "v"})),
			consuming(cm("", "changed", map[string]any{"k": "v"})),
			consuming(cm("", "gone", map[string]any{"k": "v"})),
			consuming(func() *unstructured.Unstructured {
				u := cm("", "updated", map[string]any{"k": "new"})
				u.SetLabels(map[string]string{"extra": "label"})
				return u
			}()),
		}},
	}
	res := buildPlan(t, c, rendered, nil)
	assert.Equal(t, map[string]string{
		"component.manifests.a ConfigMap apps/reconcile": "update operation_done",
		"component.manifests.a ConfigMap apps/changed":   "no-op ",
		"component.manifests.a ConfigMap apps/gone":      "no-op ",
		"component.manifests.a ConfigMap apps/updated":   "update config_changed",
	}, actions(res.Plan))
	removal := FieldChange{Path: ".metadata.annotations[gardener.cloud/operation]", Before: "reconcile", HasBefore: true}
	for _, o := range res.Plan.Components[0].Objects {
		switch o.Ref.Name {
		case "reconcile":
			assert.Equal(t, []FieldChange{removal}, o.Changes)
		case "updated":
			var paths []string
			for _, ch := range o.Changes {
				paths = append(paths, ch.Path)
			}
			assert.Equal(t, []string{".data[k]", ".metadata.annotations[gardener.cloud/operation]", ".metadata.labels[extra]"}, paths, "inserted where it sorts")
		}
	}
	for _, d := range res.Desired {
		assert.Equal(t, map[string]string{"gardener.cloud/operation": "reconcile"}, d.Consume, "apply gets what to remove")
	}
}

// An object a component hands over is planned as an update that removes only the landscape's
// label and annotations, counted as a change and as released, and never as a deletion or a
// protected removal.
func TestBuildReleasesHandedOverObjects(t *testing.T) {
	c := &fakeCluster{objects: []*unstructured.Unstructured{
		live(t, cm("apps", "kept", map[string]any{"k": "v"}), "component.manifests.a"),
		live(t, cm("apps", "handed", map[string]any{"k": "v"}), "component.manifests.a"),
	}}
	rendered := map[config.InstanceAddress]*rendering.Rendered{
		"component.manifests.a": {Address: "component.manifests.a", Type: "manifests", Objects: objects(cm("", "kept", map[string]any{"k": "v"})),
			HandedOver: []render.Handover{{Cluster: "runtime", Kind: "ConfigMap", Namespace: "apps", Name: regexp.MustCompile(`^handed$`), Controller: "gardener-controller-manager"}}},
	}
	res := buildPlan(t, c, rendered, nil)
	assert.Equal(t, map[string]string{
		"component.manifests.a ConfigMap apps/kept":   "no-op ",
		"component.manifests.a ConfigMap apps/handed": "update released:gardener-controller-manager",
	}, actions(res.Plan))
	var released *ObjectChange
	for _, o := range res.Plan.Components[0].Objects {
		if o.Ref.Name == "handed" {
			released = o
		}
	}
	require.NotNil(t, released)
	var paths []string
	for _, ch := range released.Changes {
		assert.True(t, ch.HasBefore)
		assert.False(t, ch.HasAfter)
		paths = append(paths, ch.Path)
	}
	assert.Equal(t, []string{
		".metadata.annotations[declarative-gardener.io/component]",
		".metadata.annotations[declarative-gardener.io/config-hash]",
		".metadata.labels[declarative-gardener.io/landscape]",
	}, paths)
	assert.Equal(t, "7", released.ResourceVersion)
	assert.Equal(t, Summary{Change: 1, Released: 1}, res.Plan.Summary)
	assert.Empty(t, res.Plan.Warnings)
}

// Desired objects carry the landscape's lineage where the plan knows it; an object of another
// lineage is refused by a plan with a state, and one applied before lineages gains it.
func TestBuildLineages(t *testing.T) {
	const lineage = "6f1c2a5e-0d7b-4f55-9a55-1d2b0b7f3c11"
	ofLineage := func(u *unstructured.Unstructured, l string) *unstructured.Unstructured {
		u = live(t, u, "component.manifests.a")
		if l != "" {
			inventory.SetLineage(u, l)
		}
		return u
	}
	rendered := map[config.InstanceAddress]*rendering.Rendered{"component.manifests.a": {Address: "component.manifests.a", Type: "manifests", Objects: objects(
		cm("", "x", map[string]any{"k": "v"}), cm("", "new", map[string]any{"k": "v"}),
	)}}
	withState := func(l string, tracked ...string) func(*Options) {
		return func(o *Options) {
			o.Lineage, o.WithState = l, true
			if tracked != nil {
				o.Tracked = trackedRefs(tracked...)
			}
		}
	}
	for _, tt := range []struct {
		name    string
		live    *unstructured.Unstructured
		mutate  func(*Options)
		want    string // the action and reason of apps/x
		lineage string // of the desired apps/x
		err     string
	}{
		{name: "of the landscape's lineage", live: ofLineage(cm("apps", "x", map[string]any{"k": "v"}), lineage),
			mutate: withState(lineage, "x"), want: "no-op ", lineage: lineage},
		{name: "applied before lineages, recorded: the first apply adds it", live: ofLineage(cm("apps", "x", map[string]any{"k": "v"}), ""),
			mutate: withState(lineage, "x"), want: "update config_changed", lineage: lineage},
		{name: "with the landscape's label but no lineage, not recorded: taken over", live: ofLineage(cm("apps", "x", map[string]any{"k": "v"}), ""),
			mutate: withState(lineage, "other"), want: "update adopt", lineage: lineage},
		{name: "the state has no lineage yet: apply labels what it writes", live: ofLineage(cm("apps", "x", map[string]any{"k": "v"}), ""),
			mutate: withState(""), want: "no-op ", lineage: ""},
		{name: "of another lineage", live: ofLineage(cm("apps", "x", map[string]any{"k": "v"}), "l-2"),
			mutate: withState(lineage, "x"),
			err:    "ConfigMap apps/x in cluster runtime carries the label declarative-gardener.io/landscape=test but lineage l-2, and this landscape's lineage is " + lineage + ": another landscape of the same name applied it, or this landscape's state was lost; a landscape never takes over another's objects (if its state was lost, continue its lineage with --adopt-lineage l-2)"},
		{name: "of a lineage, before the landscape has a state", live: ofLineage(cm("apps", "x", map[string]any{"k": "v"}), "l-2"),
			mutate: withState(""),
			err:    "ConfigMap apps/x in cluster runtime carries the label declarative-gardener.io/landscape=test but lineage l-2, and this landscape has no state yet: another landscape of the same name applied it, or this landscape's state was lost; a landscape never takes over another's objects (if its state was lost, continue its lineage with --adopt-lineage l-2)"},
		{name: "of a lineage, planned without a state: kept as it is", live: ofLineage(cm("apps", "x", map[string]any{"k": "v"}), "l-2"),
			want: "no-op ", lineage: "l-2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{
				Landscape: "test", Order: []config.InstanceAddress{"component.manifests.a"}, Rendered: rendered,
				Clusters: map[string]observe.Cluster{"runtime": &fakeCluster{objects: []*unstructured.Unstructured{tt.live}}},
				Differs:  func(string) (Differ, error) { return fakeDiffer{}, nil },
			}
			if tt.mutate != nil {
				tt.mutate(&opts)
			}
			res, err := Build(context.Background(), opts)
			if tt.err != "" {
				assert.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, actions(res.Plan)["component.manifests.a ConfigMap apps/x"])
			for _, d := range res.Desired {
				switch d.Object.GetName() {
				case "x":
					assert.Equal(t, tt.lineage, inventory.Lineage(d.Object))
				case "new":
					assert.Equal(t, opts.Lineage, inventory.Lineage(d.Object), "a new object carries the plan's lineage")
				}
			}
			for _, c := range res.Plan.Components[0].Objects {
				for _, f := range c.Changes {
					if c.Action == Create {
						assert.NotContains(t, f.Path, inventory.LineageLabel, "a created object's fields leave the lineage out")
					}
				}
			}
		})
	}
}

// What the rendering warns about (foreign key material a generated Secret's place held) is a
// warning of the plan.
func TestBuildCarriesRenderingWarnings(t *testing.T) {
	warning := "Secret apps/ca in cluster runtime holds key material this landscape did not generate (its data was written by kubectl-create, not by gardener's server-side apply); it is not used: new material is generated"
	res := buildPlan(t, &fakeCluster{}, map[config.InstanceAddress]*rendering.Rendered{
		"component.manifests.a": {Address: "component.manifests.a", Type: "manifests", Objects: objects(cm("", "x", nil)), Warnings: []string{warning}},
	}, nil)
	assert.Equal(t, []string{warning}, res.Plan.Warnings)
}

// People's changes are drift only in objects the landscape owns and while conflicts are not
// strict: strict conflicts keep them conflicts, and an object the landscape adopts is not its own
// yet, whoever wrote it.
func TestPeoplesChangesAreConflictsWhenStrictOrAdopting(t *testing.T) {
	edited := live(t, cm("apps", "edited", map[string]any{"edited": "v"}), "component.manifests.a")
	edited.Object["data"] = map[string]any{"edited": "by hand"}
	foreign := cm("apps", "foreign", map[string]any{"edited": "by hand"})
	foreign.SetResourceVersion("7")
	c := &fakeCluster{objects: []*unstructured.Unstructured{edited, foreign}}
	rendered := map[config.InstanceAddress]*rendering.Rendered{
		"component.manifests.a": {Address: "component.manifests.a", Type: "manifests", Objects: objects(
			cm("", "edited", map[string]any{"edited": "v"}),
			cm("", "foreign", map[string]any{"edited": "v"}),
		)},
	}
	tests := []struct {
		name   string
		strict bool
		want   map[string]string
	}{
		{"drift", false, map[string]string{"edited": "update drift", "foreign": "update adopt"}},
		{"strict", true, map[string]string{"edited": "update conflict:kubectl-edit", "foreign": "update adopt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := buildPlan(t, c, rendered, func(o *Options) { o.StrictConflicts = tt.strict })
			got := map[string]string{}
			for _, o := range res.Plan.Components[0].Objects {
				got[o.Ref.Name] = string(o.Action) + " " + o.Reason.String()
				if o.Ref.Name == "foreign" || tt.strict {
					assert.Empty(t, o.Drift, o.Ref.Name)
					assert.Equal(t, []Conflict{{Path: ".data[edited]", Manager: "kubectl-edit"}}, o.Conflicts, o.Ref.Name)
				}
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// A full plan holds every rendered object at once: the desired objects copy only the metadata
// the plan stamps and share the rest with the rendering, which the plan leaves as it was.
func TestBuildStampsCopiesOfTheRenderedMetadataOnly(t *testing.T) {
	obj := cm("", "config", map[string]any{"k": "v"})
	obj.SetLabels(map[string]string{"app": "config"})
	obj.SetAnnotations(map[string]string{"note": "rendered"})
	renderedMetadata := runtime.DeepCopyJSONValue(obj.Object["metadata"])
	rendered := map[config.InstanceAddress]*rendering.Rendered{
		"component.manifests.a": {Address: "component.manifests.a", Type: "manifests", Objects: objects(obj)},
	}
	res := buildPlan(t, &fakeCluster{}, rendered, nil)
	require.Len(t, res.Desired, 1)
	desired := res.Desired[0].Object

	assert.Equal(t, "apps", desired.GetNamespace(), "the desired object is in its default namespace")
	assert.Equal(t, "test", desired.GetLabels()[inventory.LandscapeLabel], "and stamped")
	assert.Equal(t, "rendered", desired.GetAnnotations()["note"])
	assert.NotEmpty(t, inventory.AppliedHash(desired))
	assert.Equal(t, renderedMetadata, obj.Object["metadata"], "the rendered object keeps its metadata, labels and annotations")
	desired.Object["data"].(map[string]any)["k"] = "shared"
	assert.Equal(t, "shared", obj.Object["data"].(map[string]any)["k"], "the data is the rendering's, not a copy")
}
