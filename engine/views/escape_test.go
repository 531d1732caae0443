package views

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
)

// hostile is what someone who names a live object, writes a value or a message can put in it to
// take over a terminal: clear the screen, retitle the window (OSC ended by BEL), return to the
// start of the line to overwrite it, reverse the text (bidi override), a C1 CSI, a line break.
const hostile = "evil\x1b[2J\x1b]0;owned\a\rforged\u202e\u009b31m\nline"

// hostileEscaped is how the views show it.
const hostileEscaped = `evil\x1b[2J\x1b]0;owned\a\rforged\u202e\u009b31m\nline`

// hostilePlan puts hostile text in every field of a plan that the human view prints.
func hostilePlan() *plan.Plan {
	ref := object.Ref{Group: "example.com" + hostile, Kind: "Widget" + hostile, Namespace: "ns" + hostile, Name: "name" + hostile}
	change := func(a plan.Action, kind plan.ReasonKind, changes ...plan.FieldChange) *plan.ObjectChange {
		return &plan.ObjectChange{Cluster: "runtime" + hostile, APIVersion: "v1", Ref: ref, Action: a,
			Reason: plan.Reason{Kind: kind, Detail: "detail" + hostile}, Changes: changes}
	}
	update := change(plan.Update, plan.ReasonConflict,
		plan.FieldChange{Path: ".data[" + hostile + "]", Before: "before" + hostile, After: map[string]any{hostile: hostile}, HasBefore: true, HasAfter: true})
	update.Conflicts = []plan.Conflict{{Path: ".data[" + hostile + "]", Manager: "manager" + hostile}}
	update.OwnerReferences = []metav1.OwnerReference{{Kind: "Seed" + hostile, Name: "owner" + hostile, UID: types.UID(hostile)}}
	held := change(plan.NoOp, plan.ReasonMaintenanceWindow, plan.FieldChange{Path: ".spec" + hostile, After: hostile, HasAfter: true})
	held.Held = plan.Update
	p := &plan.Plan{
		FormatVersion: plan.FormatVersion,
		Landscape:     "landscape" + hostile,
		Components: []*plan.Component{
			{Address: `component.manifests.x["` + hostile + `"]`, Type: "manifests", Note: plan.ParseNote("note" + hostile), Objects: []*plan.ObjectChange{
				change(plan.Create, plan.ReasonMissing, plan.FieldChange{Path: ".data[" + hostile + "]", After: hostile, HasAfter: true}),
				update,
				change(plan.Replace, plan.ReasonImmutableField),
				change(plan.Delete, plan.ReasonSuperseded),
				change(plan.Update, plan.ReasonReleased),
			}},
			{Address: "component.manifests.later" + hostile, Type: "manifests", Action: plan.Read, Objects: []*plan.ObjectChange{}},
			{Address: "shoot.held" + hostile, Type: "shoot", Note: plan.ParseNote("held" + hostile), Objects: []*plan.ObjectChange{held}},
		},
		Outputs:     []plan.Output{{Name: "out" + hostile, Value: hostile}},
		Warnings:    []string{"warning" + hostile},
		Notices:     []string{"notice" + hostile},
		Retired:     []plan.Retirement{{Address: "shoot.trial" + hostile, Ended: "ended" + hostile, Reason: "reason" + hostile, EndedBy: "by" + hostile}},
		Forget:      []string{"shoot.gone" + hostile},
		Predictions: []plan.Prediction{{Address: "shoot.p" + hostile, Actor: "actor" + hostile, Controller: "controller" + hostile, Cluster: "virtual" + hostile, Ref: ref, Action: "update" + hostile, At: "at" + hostile, Until: "until" + hostile, Description: "description" + hostile}},
	}
	p.Summarise()
	return p
}

// viewSequences are the escape sequences the views write themselves: their colours, and the
// progress view's cursor movements.
var viewSequences = regexp.MustCompile(`\x1b\[(?:[0-9;]*m|[0-9]+A|2K)`)

// assertOnlyOwnControls fails when out holds a character a terminal would obey other than the
// line breaks and the sequences the view writes itself.
func assertOnlyOwnControls(t *testing.T, out string) {
	t.Helper()
	rest := viewSequences.ReplaceAllString(out, "")
	for i, r := range rest {
		if r != '\n' && !unicode.IsGraphic(r) {
			t.Errorf("raw %U at byte %d of the output (without the view's own sequences): %q", r, i, rest[max(0, i-40):min(len(rest), i+40)])
			return
		}
	}
}

func TestPlanEscapesEveryField(t *testing.T) {
	for _, color := range []bool{false, true} {
		var buf bytes.Buffer
		require.NoError(t, Plan(&buf, hostilePlan(), PlanOptions{Color: color}))
		out := buf.String()
		assertOnlyOwnControls(t, out)
		for _, field := range []string{
			"landscape", "component.manifests.x[\"", "note", "name", "ns", "Widget", "example.com", "runtime", "detail",
			".data[", "manager", "Seed", "owner", "component.manifests.later", "shoot.held", "held", ".spec",
			"out", "warning", "notice", "shoot.trial", "ended", "reason", "by", "shoot.gone", "actor",
			"controller", "virtual", "at", "until", "description",
		} {
			assert.True(t, strings.Contains(out, field+hostileEscaped), "the field shown with %q, escaped (colour %v)", field, color)
		}
		// Values are JSON, whose escapes come first; what JSON leaves (bidi, C1) is escaped then.
		assert.Contains(t, out, `"evil\u001b[2J\u001b]0;owned\u0007\rforged\u202e\u009b31m\nline"`)
		if color {
			assert.Contains(t, out, yellow+"~"+reset, "the view's own colours stay")
		}
	}
	// Names in any script stay readable.
	p := samplePlan()
	p.Components[0].Objects[1].Ref.Name = "設定-grüße"
	var buf bytes.Buffer
	require.NoError(t, Plan(&buf, p, PlanOptions{}))
	assert.Contains(t, buf.String(), "+ ConfigMap apps/設定-grüße (runtime) will be created [missing]")
}

func TestProgressEscapesAddressesAndDetails(t *testing.T) {
	for _, live := range []bool{false, true} {
		var buf bytes.Buffer
		p := NewProgress(&buf, live, live)
		p.Event(ProgressEvent{Address: "a" + hostile, Status: "waiting", Detail: "b" + hostile})
		p.Event(ProgressEvent{Address: "b" + hostile, Status: "started"})
		p.Event(ProgressEvent{Address: "b" + hostile, Status: "applied", Duration: time.Second})
		p.Event(ProgressEvent{Address: "a" + hostile, Status: "failed" + hostile, Detail: "error" + hostile})
		p.Stop()
		out := buf.String()
		assertOnlyOwnControls(t, out)
		assert.Contains(t, out, "a"+hostileEscaped)
		assert.Contains(t, out, "failed"+hostileEscaped)
		// A detail is one line: its line breaks become spaces, as the live block needs.
		assert.Contains(t, out, `bevil\x1b[2J\x1b]0;owned\a forged\u202e\u009b31m line`)
		if live {
			assert.Contains(t, out, "\x1b[2K", "the view's own cursor control stays")
		}
	}
}

// The JSON form is not for terminals, and needs no escaping of its own: encoding/json escapes
// every C0 control (ESC, BEL, CR, line breaks), so that the plan JSON holds none of them raw.
func TestPlanJSONHoldsNoRawControls(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, PlanJSON(&buf, hostilePlan()))
	for i, c := range buf.Bytes() {
		if c < 0x20 && c != '\n' {
			t.Fatalf("raw control %#x at byte %d", c, i)
		}
	}
	var back plan.Plan
	require.NoError(t, json.Unmarshal(buf.Bytes(), &back))
	assert.Equal(t, "landscape"+hostile, back.Landscape, "the JSON keeps the exact value for tools")
}
