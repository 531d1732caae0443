package plan

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
)

func TestHoldOutsideWindows(t *testing.T) {
	ref := func(name string) object.Ref {
		return object.Ref{Kind: "Deployment", Namespace: "shoot--p--s", Name: name}
	}
	window := &render.MaintenanceWindow{Begin: "220000+0000", End: "230000+0000"}
	existing := func() *Component {
		return &Component{Address: "shoot.s.kube_apiserver", Objects: []*ObjectChange{
			{Ref: ref("kube-apiserver"), Action: Update, Reason: Reason{Kind: ReasonConfigChanged}},
			{Ref: ref("new"), Action: Create, Reason: Reason{Kind: ReasonMissing}},
			{Ref: ref("same"), Action: NoOp},
		}}
	}
	fresh := &Component{Address: "shoot.s.worker", Objects: []*ObjectChange{{Ref: ref("w"), Action: Create, Reason: Reason{Kind: ReasonMissing}}}}
	unconfined := &Component{Address: "shoot.s.shoot", Objects: []*ObjectChange{{Ref: ref("x"), Action: Update, Reason: Reason{Kind: ReasonConfigChanged}}}}
	rendered := func(addr string) *rendering.Rendered {
		if addr == "shoot.s.shoot" {
			return &rendering.Rendered{}
		}
		return &rendering.Rendered{Window: window}
	}

	outside := existing()
	pl := &Plan{Components: []*Component{outside, fresh, unconfined}}
	require.NoError(t, holdOutsideWindows(pl.Components, rendered, time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
	pl.Summarise()
	assert.Equal(t, Action(Update), outside.Objects[0].Held)
	assert.Equal(t, NoOp, outside.Objects[0].Action)
	assert.Equal(t, Reason{Kind: ReasonMaintenanceWindow}, outside.Objects[0].Reason)
	assert.Equal(t, Action(Create), outside.Objects[1].Held, "a new object of an existing component waits too")
	assert.Empty(t, outside.Objects[2].Held)
	assert.Equal(t, Note{Kind: NoteHeld, Text: "2 change(s) held until the maintenance window 22:00-23:00 UTC"}, outside.Note)
	assert.Equal(t, Create, fresh.Objects[0].Action, "a component that does not exist yet is created at once")
	assert.Equal(t, Update, unconfined.Objects[0].Action)
	assert.Equal(t, Summary{Add: 1, Change: 1, Held: 2}, pl.Summary)

	inside := existing()
	require.NoError(t, holdOutsideWindows([]*Component{inside}, rendered, time.Date(2026, 11, 22, 22, 30, 0, 0, time.UTC)))
	assert.Equal(t, Update, inside.Objects[0].Action, "inside its window a change goes ahead")
	assert.Empty(t, inside.Objects[0].Held)
}

// A window with HoldWhile conditions is one the composite kept because they hold (the rendering
// drops it otherwise, engine/rendering's TestWindowHoldWhile): then a new part of an existing
// shoot waits for the window too.
func TestHoldWhileHoldsCreations(t *testing.T) {
	window := &render.MaintenanceWindow{Begin: "220000+0000", End: "230000+0000", HoldWhile: []render.LiveCondition{{Value: "false"}}}
	c := &Component{Address: "garden.local.worker", Objects: []*ObjectChange{{Ref: object.Ref{Kind: "ConfigMap", Name: "w"}, Action: Create, Reason: Reason{Kind: ReasonMissing}}}}
	rd := &rendering.Rendered{Window: window}
	require.NoError(t, holdOutsideWindows([]*Component{c}, func(string) *rendering.Rendered { return rd }, time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
	assert.Equal(t, Create, c.Objects[0].Held)
}
