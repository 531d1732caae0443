package plan

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/render"
)

func TestWindowContains(t *testing.T) {
	at := func(hhmm string) time.Time {
		ts, err := time.Parse("2006-01-02 15:04 -0700", "2026-11-22 "+hhmm)
		require.NoError(t, err)
		return ts
	}
	tests := []struct {
		name, begin, end, now string
		want                  bool
	}{
		{"inside", "220000+0000", "230000+0000", "22:30 +0000", true},
		{"begin is inside", "220000+0000", "230000+0000", "22:00 +0000", true},
		{"end is outside", "220000+0000", "230000+0000", "23:00 +0000", false},
		{"before", "220000+0000", "230000+0000", "12:00 +0000", false},
		{"offset of the window", "220000+0100", "230000+0100", "21:30 +0000", true},
		{"offset of the clock", "220000+0000", "230000+0000", "23:30 +0100", true},
		{"across midnight, late", "230000+0000", "010000+0000", "23:30 +0000", true},
		{"across midnight, early", "230000+0000", "010000+0000", "00:30 +0000", true},
		{"across midnight, outside", "230000+0000", "010000+0000", "12:00 +0000", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := render.MaintenanceWindow{Begin: tt.begin, End: tt.end}.Parse()
			require.NoError(t, err)
			assert.Equal(t, tt.want, w.Contains(at(tt.now)))
		})
	}
	_, err := render.MaintenanceWindow{Begin: "22:00", End: "230000+0000"}.Parse()
	assert.ErrorContains(t, err, `maintenance window begin "22:00" is not HHMMSS+HHMM`)
}

func TestHoldOutsideWindows(t *testing.T) {
	ref := func(name string) object.Ref {
		return object.Ref{Kind: "Deployment", Namespace: "shoot--p--s", Name: name}
	}
	window := &render.MaintenanceWindow{Begin: "220000+0000", End: "230000+0000"}
	existing := func() *Component {
		return &Component{Address: "shoot.s.kube_apiserver", Objects: []*ObjectChange{
			{Ref: ref("kube-apiserver"), Action: Update, Reason: ReasonConfigChanged},
			{Ref: ref("new"), Action: Create, Reason: ReasonMissing},
			{Ref: ref("same"), Action: NoOp},
		}}
	}
	fresh := &Component{Address: "shoot.s.worker", Objects: []*ObjectChange{{Ref: ref("w"), Action: Create, Reason: ReasonMissing}}}
	unconfined := &Component{Address: "shoot.s.shoot", Objects: []*ObjectChange{{Ref: ref("x"), Action: Update, Reason: ReasonConfigChanged}}}
	rendered := func(addr string) *Rendered {
		if addr == "shoot.s.shoot" {
			return &Rendered{}
		}
		return &Rendered{Window: window}
	}

	outside := existing()
	pl := &Plan{Components: []*Component{outside, fresh, unconfined}}
	require.NoError(t, holdOutsideWindows(pl.Components, rendered, time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
	pl.Summarise()
	assert.Equal(t, Action(Update), outside.Objects[0].Held)
	assert.Equal(t, NoOp, outside.Objects[0].Action)
	assert.Equal(t, ReasonMaintenanceWindow, outside.Objects[0].Reason)
	assert.Equal(t, Action(Create), outside.Objects[1].Held, "a new object of an existing component waits too")
	assert.Empty(t, outside.Objects[2].Held)
	assert.Equal(t, "2 change(s) held until the maintenance window 22:00-23:00 UTC", outside.Note)
	assert.Equal(t, Create, fresh.Objects[0].Action, "a component that does not exist yet is created at once")
	assert.Equal(t, Update, unconfined.Objects[0].Action)
	assert.Equal(t, Summary{Add: 1, Change: 1, Held: 2}, pl.Summary)

	inside := existing()
	require.NoError(t, holdOutsideWindows([]*Component{inside}, rendered, time.Date(2026, 11, 22, 22, 30, 0, 0, time.UTC)))
	assert.Equal(t, Update, inside.Objects[0].Action, "inside its window a change goes ahead")
	assert.Empty(t, inside.Objects[0].Held)
}

// A composite's HoldWhile conditions decide for all its parts: held only while the live object
// exists with the field's value, so that a shoot still being created and a hibernation change
// roll out at once, and then also the creation of a new part is held.
func TestWindowHoldWhile(t *testing.T) {
	shoot := func(hibernation any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot", "metadata": map[string]any{"name": "dev", "namespace": "garden-local"}}}
		if hibernation != nil {
			u.Object["spec"] = map[string]any{"hibernation": map[string]any{"enabled": hibernation}}
		}
		return u
	}
	cond := render.LiveCondition{Ref: render.LiveRef{Cluster: "runtime", Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots", Namespace: "garden-local", Name: "dev", Paths: []string{"spec.hibernation.enabled"}}, Value: "false", Default: "false"}
	tests := []struct {
		name string
		live *unstructured.Unstructured
		want bool
	}{
		{"no Shoot yet", nil, false},
		{"field absent counts as the default", shoot(nil), true},
		{"same hibernation", shoot(false), true},
		{"hibernation changes", shoot(true), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			window := &render.MaintenanceWindow{Begin: "220000+0000", End: "230000+0000", HoldWhile: []render.LiveCondition{cond}}
			r, err := renderCompositeWith(t, func(r *Renderer) {
				r.Get = func(cty.Value, schema.GroupVersionResource, string, string) (*unstructured.Unstructured, error) {
					return tt.live, nil
				}
			}, []render.Component{{Name: "worker", Window: window, Objects: []render.Object{configMap("w", nil)}}})
			require.NoError(t, err)
			rd := r.Rendered["garden.local.worker"]
			assert.Equal(t, tt.want, rd.Window != nil)

			c := &Component{Address: "garden.local.worker", Objects: []*ObjectChange{{Ref: object.Ref{Kind: "ConfigMap", Name: "w"}, Action: Create, Reason: ReasonMissing}}}
			require.NoError(t, holdOutsideWindows([]*Component{c}, func(string) *Rendered { return rd }, time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
			assert.Equal(t, tt.want, c.Objects[0].Held == Create, "a new part of an existing shoot waits too")
		})
	}
}
