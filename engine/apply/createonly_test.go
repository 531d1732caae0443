package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
	"github.com/declarative-gardener/gardener/state"
)

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// memCluster is an in-memory cluster of ConfigMaps that plans observe and apply writes to:
// server-side apply creates or replaces an object, giving it a UID and a resourceVersion.
type memCluster struct {
	client *dynamicfake.FakeDynamicClient
	mu     sync.Mutex
	rv     int
	writes []string
}

func newMemCluster() *memCluster {
	m := &memCluster{client: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{configMaps: "ConfigMapList"})}
	m.client.PrependReactor("patch", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p, ok := a.(k8stesting.PatchAction)
		if !ok || p.GetPatchType() != types.ApplyPatchType {
			return false, nil, nil
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(p.GetPatch(), &u.Object); err != nil {
			return true, nil, err
		}
		m.rv++
		m.writes = append(m.writes, p.GetNamespace()+"/"+p.GetName())
		u.SetResourceVersion(strconv.Itoa(m.rv))
		tr := m.client.Tracker()
		old, err := tr.Get(p.GetResource(), p.GetNamespace(), p.GetName())
		switch {
		case apierrors.IsNotFound(err):
			u.SetUID(types.UID(fmt.Sprintf("uid-%d", m.rv)))
			err = tr.Create(p.GetResource(), u, p.GetNamespace())
		case err == nil:
			u.SetUID(old.(*unstructured.Unstructured).GetUID())
			err = tr.Update(p.GetResource(), u, p.GetNamespace())
		}
		if err != nil {
			return true, nil, err
		}
		return true, u.DeepCopy(), nil
	})
	return m
}

func (m *memCluster) Dynamic() dynamic.Interface { return m.client }

func (m *memCluster) ServerVersion(context.Context) (string, error) { return "v1.37.1", nil }

func (m *memCluster) Resources(context.Context) ([]observe.Resource, error) {
	return []observe.Resource{{GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: "configmaps", Namespaced: true, Verbs: []string{"get", "list", "patch", "delete"}}}, nil
}

func (m *memCluster) List(ctx context.Context, gvr schema.GroupVersionResource, ns, selector string) ([]unstructured.Unstructured, error) {
	l, err := m.client.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

func (m *memCluster) Get(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) (*unstructured.Unstructured, error) {
	u, err := m.client.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return u, err
}

func (m *memCluster) OpenAPIV3Index(context.Context) (map[string]string, error) { return nil, nil }

func (m *memCluster) OpenAPIV3(context.Context, string) ([]byte, error) {
	return nil, fmt.Errorf("no schemas in this test")
}

// consumerDeletes deletes an object the way its consumer does (gardenlet its bootstrap kubeconfig).
func (m *memCluster) consumerDeletes(t *testing.T, name string) {
	t.Helper()
	require.NoError(t, m.client.Resource(configMaps).Namespace("garden").Delete(context.Background(), name, metav1.DeleteOptions{}))
}

// dataDiffer compares .data only; enough for ConfigMaps.
type dataDiffer struct{}

func (dataDiffer) Fields(context.Context, *unstructured.Unstructured) ([]diff.Change, error) {
	return nil, fmt.Errorf("no schemas in this test")
}

func (dataDiffer) Diff(desired, live *unstructured.Unstructured, _ bool) (*diff.Result, error) {
	r := &diff.Result{Action: diff.NoOp}
	want, _, _ := unstructured.NestedStringMap(desired.Object, "data")
	have, _, _ := unstructured.NestedStringMap(live.Object, "data")
	for k, v := range want {
		if have[k] != v {
			r.Changes = append(r.Changes, diff.Change{Path: ".data[" + k + "]", Old: have[k], New: v})
		}
	}
	if len(r.Changes) > 0 {
		r.Action = diff.Update
	}
	return r, nil
}

const gardenletAddr = config.InstanceAddress("component.manifests.gardenlet")

// gardenletObjects renders a create-only bootstrap kubeconfig and an ordinary ConfigMap.
func gardenletObjects() []render.Object {
	bootstrap := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "gardenlet-kubeconfig-bootstrap", "namespace": "garden",
			"annotations": map[string]any{render.CreateOnlyAnnotation: "true"}},
		"data": map[string]any{"kubeconfig": "bootstrap-token"},
	}}
	settings := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "gardenlet-settings", "namespace": "garden"},
		"data":     map[string]any{"k": "v"},
	}}
	return []render.Object{{Cluster: "runtime", Object: bootstrap}, {Cluster: "runtime", Object: settings}}
}

// planWith plans the gardenlet component against cl with st the way the planner does: objects
// the state records (applied or pending) are tracked once the state was written.
func planWith(t *testing.T, cl *memCluster, st *state.State) *planner.Outcome {
	t.Helper()
	var tracked func(string, object.Ref) bool
	if st.Serial > 0 {
		recorded := map[string]bool{}
		for _, c := range st.Components {
			for _, o := range append(append([]state.Object(nil), c.Objects...), c.Pending...) {
				recorded[o.Cluster+"/"+o.Ref().String()] = true
			}
		}
		tracked = func(cluster string, ref object.Ref) bool { return recorded[cluster+"/"+ref.String()] }
	}
	clusters := map[string]observe.Cluster{"runtime": cl}
	res, err := plan.Build(context.Background(), plan.Options{
		Landscape: "test", Order: []config.InstanceAddress{gardenletAddr},
		Rendered: map[config.InstanceAddress]*rendering.Rendered{gardenletAddr: {Address: gardenletAddr, Type: "manifests", Objects: gardenletObjects()}},
		Clusters: clusters, Tracked: tracked,
		Differs: func(string) (plan.Differ, error) { return dataDiffer{}, nil },
	})
	require.NoError(t, err)
	res.Plan.StateSerial = st.Serial
	return &planner.Outcome{Clusters: clusters, Result: res}
}

// readyCalls records what readiness was asked to wait for.
type readyCalls struct {
	mu    sync.Mutex
	names []string
}

func (r *readyCalls) wait(_ context.Context, _ string, objs []*unstructured.Unstructured, _ map[object.Ref]schema.GroupVersionResource) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, o := range objs {
		r.names = append(r.names, o.GetName())
	}
	return nil
}

func recordedNames(st *state.State) map[string]string {
	out := map[string]string{}
	for _, c := range st.Components {
		for _, o := range c.Objects {
			out[o.Name] = o.UID
		}
	}
	return out
}

func objectActions(p *plan.Plan) map[string]string {
	out := map[string]string{}
	for _, c := range p.Components {
		for _, o := range c.Objects {
			out[o.Ref.Name] = string(o.Action) + " " + o.Reason.String()
		}
	}
	return out
}

func TestApplyDoesNotRecreateCreateOnlyObjects(t *testing.T) {
	ctx := context.Background()
	cl := newMemCluster()
	backend := state.NewLocal(filepath.Join(t.TempDir(), "state.json"))
	apply := func(out *planner.Outcome) (*readyCalls, *state.State) {
		t.Helper()
		st, err := backend.Read(ctx)
		require.NoError(t, err)
		ready := &readyCalls{}
		r, err := Run(ctx, out, Options{Ready: ready.wait, Recorder: NewStateRecorder(backend, st)})
		require.NoError(t, err)
		require.NoError(t, r.Err())
		st, err = backend.Read(ctx)
		require.NoError(t, err)
		return ready, st
	}
	read := func() *state.State {
		st, err := backend.Read(ctx)
		require.NoError(t, err)
		return st
	}

	// First apply: both objects are created and recorded with their UIDs.
	first := planWith(t, cl, read())
	assert.Equal(t, map[string]string{"gardenlet-kubeconfig-bootstrap": "create missing", "gardenlet-settings": "create missing"}, objectActions(first.Result.Plan))
	ready, st := apply(first)
	assert.ElementsMatch(t, []string{"gardenlet-kubeconfig-bootstrap", "gardenlet-settings"}, ready.names, "a created create-only object is waited for like any other")
	created := recordedNames(st) // both are written at once (one kind): either may be uid-1
	assert.ElementsMatch(t, []string{"uid-1", "uid-2"}, slices.Collect(maps.Values(created)))

	// Its consumer deletes the bootstrap kubeconfig (and someone the ordinary ConfigMap).
	cl.consumerDeletes(t, "gardenlet-kubeconfig-bootstrap")
	cl.consumerDeletes(t, "gardenlet-settings")
	second := planWith(t, cl, st)
	assert.Equal(t, map[string]string{"gardenlet-kubeconfig-bootstrap": "no-op created_once", "gardenlet-settings": "create missing"}, objectActions(second.Result.Plan))
	assert.Equal(t, plan.Summary{Add: 1}, second.Result.Plan.Summary)
	cl.writes = nil
	ready, st = apply(second)
	assert.Equal(t, []string{"garden/gardenlet-settings"}, cl.writes, "only the ordinary object is created again")
	assert.Equal(t, []string{"gardenlet-settings"}, ready.names, "the deleted create-only object is not waited for")
	assert.Equal(t, map[string]string{"gardenlet-kubeconfig-bootstrap": created["gardenlet-kubeconfig-bootstrap"], "gardenlet-settings": "uid-3"}, recordedNames(st),
		"the state keeps recording the create-only object, with the UID it was created with")

	third := planWith(t, cl, st)
	assert.Equal(t, map[string]string{"gardenlet-kubeconfig-bootstrap": "no-op created_once", "gardenlet-settings": "no-op "}, objectActions(third.Result.Plan))
	assert.False(t, third.Result.Plan.HasChanges(), "nothing to do: the landscape is as it should be")
}

func TestApplyLeavesUnchangedCreateOnlyObjectsAlone(t *testing.T) {
	ctx := context.Background()
	cl := newMemCluster()
	backend := state.NewLocal(filepath.Join(t.TempDir(), "state.json"))
	st, err := backend.Read(ctx)
	require.NoError(t, err)
	r, err := Run(ctx, planWith(t, cl, st), Options{Ready: (&readyCalls{}).wait, Recorder: NewStateRecorder(backend, st)})
	require.NoError(t, err)
	require.NoError(t, r.Err())
	st, err = backend.Read(ctx)
	require.NoError(t, err)
	created := recordedNames(st)

	// The consumer rewrites the create-only object; the ordinary one is changed out of band.
	for name, data := range map[string]map[string]any{"gardenlet-kubeconfig-bootstrap": {"kubeconfig": "rotated"}, "gardenlet-settings": {"k": "edited"}} {
		u, err := cl.client.Resource(configMaps).Namespace("garden").Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		u.Object["data"] = data
		_, err = cl.client.Resource(configMaps).Namespace("garden").Update(ctx, u, metav1.UpdateOptions{})
		require.NoError(t, err)
	}
	st, err = backend.Read(ctx)
	require.NoError(t, err)
	out := planWith(t, cl, st)
	assert.Equal(t, map[string]string{"gardenlet-kubeconfig-bootstrap": "no-op ", "gardenlet-settings": "update drift"}, objectActions(out.Result.Plan))
	ready := &readyCalls{}
	cl.writes = nil
	r, err = Run(ctx, out, Options{Ready: ready.wait, Recorder: NewStateRecorder(backend, st)})
	require.NoError(t, err)
	require.NoError(t, r.Err())
	assert.Equal(t, []string{"garden/gardenlet-settings"}, cl.writes, "the create-only object is never updated")
	assert.Equal(t, []string{"gardenlet-settings"}, ready.names, "an unchanged create-only object is not waited for: its consumer may delete it any moment")
	st, err = backend.Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, created, recordedNames(st), "both keep the UIDs they were created with")
}

// A saved plan does not go stale because the consumer of a create-only object changed or
// deleted it between plan and apply: what apply does with it (nothing) is the same.
func TestSavedPlanIgnoresConsumersOfCreateOnlyObjects(t *testing.T) {
	ctx := context.Background()
	cl := newMemCluster()
	backend := state.NewLocal(filepath.Join(t.TempDir(), "state.json"))
	st, err := backend.Read(ctx)
	require.NoError(t, err)
	r, err := Run(ctx, planWith(t, cl, st), Options{Ready: (&readyCalls{}).wait, Recorder: NewStateRecorder(backend, st)})
	require.NoError(t, err)
	require.NoError(t, r.Err())
	st, err = backend.Read(ctx)
	require.NoError(t, err)

	saved := plan.NewFile(t.TempDir(), planWith(t, cl, st).Result, nil)
	bootstrap, err := cl.client.Resource(configMaps).Namespace("garden").Get(ctx, "gardenlet-kubeconfig-bootstrap", metav1.GetOptions{})
	require.NoError(t, err)
	bootstrap.Object["data"] = map[string]any{"kubeconfig": "rotated"}
	_, err = cl.client.Resource(configMaps).Namespace("garden").Update(ctx, bootstrap, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.NoError(t, planner.CheckStale(saved, planWith(t, cl, st).Result), "changed by its consumer")
	cl.consumerDeletes(t, "gardenlet-kubeconfig-bootstrap")
	assert.NoError(t, planner.CheckStale(saved, planWith(t, cl, st).Result), "deleted by its consumer")

	// An ordinary object that moved still makes the saved plan stale.
	cl.consumerDeletes(t, "gardenlet-settings")
	err = planner.CheckStale(saved, planWith(t, cl, st).Result)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ConfigMap garden/gardenlet-settings in cluster runtime")
	assert.NotContains(t, err.Error(), "gardenlet-kubeconfig-bootstrap")
}
