package apply

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
	"github.com/declarative-gardener/gardener/engine/report"
)

func TestReportFollows(t *testing.T) {
	for name, tt := range map[string]struct {
		rep     render.Report
		part    string
		removed bool
		want    bool
	}{
		"every part of an instance":              {render.Report{}, "etcd_main", false, true},
		"not a removed one":                      {render.Report{}, "etcd_main", true, false},
		"the parts it names":                     {render.Report{Parts: []string{"seed"}}, "seed", false, true},
		"not others":                             {render.Report{Parts: []string{"seed"}}, "shoot__local__mine__etcd_main", false, false},
		"a deletion: the removed parts it waits": {render.Report{Finalize: true, FinalizeAfter: "shoot__local__mine__"}, "shoot__local__mine__etcd_main", true, true},
		"a deletion: not others":                 {render.Report{Finalize: true, FinalizeAfter: "shoot__local__mine__"}, "shoot__local__mine2__etcd_main", true, false},
		"a deletion: not rendered parts":         {render.Report{Finalize: true, FinalizeAfter: "shoot__local__mine__"}, "shoot__local__mine__etcd_main", false, false},
		"an object it cannot serve: none":        {render.Report{Error: "why"}, "seed", false, false},
	} {
		t.Run(name, func(t *testing.T) {
			named := map[string]bool{}
			for _, p := range tt.rep.Parts {
				named[p] = true
			}
			assert.Equal(t, tt.want, reportFollows(tt.rep, named, tt.part, tt.removed))
		})
	}
}

var shootsGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}

// userShoot is a Shoot a user created and deleted; the finalizer of its reporter (the engine's
// report field manager, or another) holds it.
func userShootBy(reporter string) *unstructured.Unstructured {
	if reporter == "" {
		return userShoot(true)
	}
	return userShoot(true, reporter)
}

func userShoot(deleting bool, reporter ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
		"metadata": map[string]any{"name": "mine", "namespace": "garden-local", "resourceVersion": "7", "generation": int64(2), "finalizers": []any{"gardener"}},
	}}
	manager := report.FieldManager
	if len(reporter) > 0 {
		manager = reporter[0]
	}
	u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status"}})
	if deleting {
		now := metav1.Now()
		u.SetDeletionTimestamp(&now)
	}
	return u
}

// TestSyncReportsEndsAUsersDeletion: a Shoot its user deleted keeps gardenlet's finalizer while
// the plan still deletes parts of its control plane; once none is left (or the apply deleted
// them), the engine writes a Delete that Succeeded and removes the finalizer.
func TestSyncReportsEndsAUsersDeletion(t *testing.T) {
	const seed, prefix = "seed.local", "shoot__local__mine__"
	removal := func(part string, action plan.Action) *plan.Component {
		return &plan.Component{Address: seed + "." + part, Action: action, Note: plan.Note{Kind: plan.NoteRemoved},
			Objects: []*plan.ObjectChange{{Action: action}}}
	}
	for name, tt := range map[string]struct {
		components []*plan.Component
		applied    *Result
		// reporter is who wrote the Shoot's status; the engine when empty.
		reporter  string
		finalized bool
	}{
		"a Shoot a gardenlet reports is its to end": {reporter: "gardenlet"},
		"nothing left to delete":                    {finalized: true},
		"parts still to delete, no apply":           {components: []*plan.Component{removal(prefix+"etcd_main", plan.Delete)}},
		"another Shoot's parts are not its":         {components: []*plan.Component{removal("shoot__local__mine2__etcd_main", plan.Delete)}, finalized: true},
		"the apply deleted them":                    {components: []*plan.Component{removal(prefix+"etcd_main", plan.Delete)}, applied: &Result{Components: []ComponentResult{{Address: seed + "." + prefix + "etcd_main", Status: Applied}}}, finalized: true},
		"the apply failed to delete one of them":    {components: []*plan.Component{removal(prefix+"etcd_main", plan.Delete)}, applied: &Result{Components: []ComponentResult{{Address: seed + "." + prefix + "etcd_main", Status: Failed}}}},
	} {
		t.Run(name, func(t *testing.T) {
			garden := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
				map[schema.GroupVersionResource]string{shootsGVR: "ShootList"}, userShootBy(tt.reporter))
			out := &planner.Outcome{
				Rendered: map[config.InstanceAddress]*rendering.Rendered{seed: {Address: seed, Reports: []render.Report{{
					Cluster: "virtual", APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot", Namespace: "garden-local", Name: "mine",
					Finalize: true, FinalizeAfter: prefix,
				}}}},
				Result: &plan.Result{Plan: &plan.Plan{Landscape: "local", Components: tt.components}},
			}
			w := &report.Writer{Clients: map[string]dynamic.Interface{"virtual": garden}}
			var warnings []string
			SyncReports(context.Background(), out, w, tt.applied, func(err error) { warnings = append(warnings, err.Error()) })
			require.Empty(t, warnings)
			live, err := garden.Resource(shootsGVR).Namespace("garden-local").Get(context.Background(), "mine", metav1.GetOptions{})
			require.NoError(t, err)
			op, _, _ := unstructured.NestedMap(live.Object, "status", "lastOperation")
			if tt.finalized {
				assert.Empty(t, live.GetFinalizers())
				assert.Equal(t, "Delete", op["type"])
				assert.Equal(t, "Succeeded", op["state"])
			} else {
				assert.Equal(t, []string{"gardener"}, live.GetFinalizers())
				assert.Nil(t, op)
			}
		})
	}
}

// TestSyncReportsAShootTheEngineCannotServe: lastOperation Error with the reason, and the reason
// in lastErrors; written once.
func TestSyncReportsAShootTheEngineCannotServe(t *testing.T) {
	garden := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{shootsGVR: "ShootList"}, userShoot(false))
	const seed = "seed.local"
	out := &planner.Outcome{
		Rendered: map[config.InstanceAddress]*rendering.Rendered{seed: {Address: seed, Reports: []render.Report{{
			Cluster: "virtual", APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot", Namespace: "garden-local", Name: "mine",
			Operation: &render.Operation{Subject: "Shoot cluster", Create: true, LastErrors: true},
			Error:     "no ControllerRegistration registers Network/cilium",
		}}}},
		Result: &plan.Result{Plan: &plan.Plan{Landscape: "local"}},
	}
	w := &report.Writer{Clients: map[string]dynamic.Interface{"virtual": garden}}
	SyncReports(context.Background(), out, w, nil, func(err error) { t.Error(err) })
	live, err := garden.Resource(shootsGVR).Namespace("garden-local").Get(context.Background(), "mine", metav1.GetOptions{})
	require.NoError(t, err)
	op, _, _ := unstructured.NestedMap(live.Object, "status", "lastOperation")
	assert.Equal(t, "Create", op["type"])
	assert.Equal(t, "Error", op["state"])
	assert.Equal(t, "No ControllerRegistration registers Network/cilium. Operation will be retried.", op["description"])
	errs, _, _ := unstructured.NestedSlice(live.Object, "status", "lastErrors")
	require.Len(t, errs, 1)
	assert.Equal(t, "no ControllerRegistration registers Network/cilium", errs[0].(map[string]any)["description"])
}

// TestRequestedDeletionsNeedNoAllowDestroy: the control plane of a Shoot its user deleted goes
// whole, its namespace and etcds too; the same objects removed from the landscape stay protected.
func TestRequestedDeletionsNeedNoAllowDestroy(t *testing.T) {
	e := &Executor{}
	c := &plan.Component{Address: "seed.local.shoot__local__mine__namespace"}
	ns := func(reason plan.Reason) []*plan.ObjectChange {
		return []*plan.ObjectChange{{Action: plan.Delete, Ref: object.Ref{Kind: "Namespace", Name: "shoot--local--mine"}, Reason: reason}}
	}
	assert.NoError(t, e.checkProtection(c, nil, ns(plan.Reason{Kind: plan.ReasonRequested, Detail: "Shoot garden-local/mine deleted through the API"})))
	assert.ErrorContains(t, e.checkProtection(c, nil, ns(plan.Reason{Kind: plan.ReasonRemovedFromLandscape})), "without --allow-destroy")
}

// TestSyncReportsConsumesAReconcileRequest: a user's reconcile request on a Shoot the engine
// does not render is removed once nothing is left to do, as gardenlet removes it; a request
// changed meanwhile (another value) stays.
func TestSyncReportsConsumesAReconcileRequest(t *testing.T) {
	for name, tt := range map[string]struct {
		live, want string
	}{
		"the request read":       {live: "reconcile", want: ""},
		"another one since then": {live: "rotate-credentials-start", want: "rotate-credentials-start"},
	} {
		t.Run(name, func(t *testing.T) {
			shoot := userShoot(false)
			shoot.SetAnnotations(map[string]string{"gardener.cloud/operation": tt.live})
			garden := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
				map[schema.GroupVersionResource]string{shootsGVR: "ShootList"}, shoot)
			const seed = "seed.local"
			out := &planner.Outcome{
				Rendered: map[config.InstanceAddress]*rendering.Rendered{seed: {Address: seed, Reports: []render.Report{{
					Cluster: "virtual", APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot", Namespace: "garden-local", Name: "mine",
					Operation: &render.Operation{Subject: "Shoot cluster", Create: true, LastErrors: true},
					Consume:   map[string]string{"gardener.cloud/operation": "reconcile"},
				}}}},
				Result: &plan.Result{Plan: &plan.Plan{Landscape: "local"}},
			}
			w := &report.Writer{Clients: map[string]dynamic.Interface{"virtual": garden}}
			SyncReports(context.Background(), out, w, nil, func(err error) { t.Error(err) })
			live, err := garden.Resource(shootsGVR).Namespace("garden-local").Get(context.Background(), "mine", metav1.GetOptions{})
			require.NoError(t, err)
			assert.Equal(t, tt.want, live.GetAnnotations()["gardener.cloud/operation"])
		})
	}
}
