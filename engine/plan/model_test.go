package plan

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/object"
)

// Reasons are typed in Go and text in the plan's JSON form, "<kind>" or "<kind>:<parameter>",
// as they were when they were strings; a no-op has none.
func TestReasonJSON(t *testing.T) {
	tests := []struct {
		reason Reason
		json   string // the object change's JSON form, without its ref and cluster
	}{
		{Reason{}, `{"action":"no-op"}`},
		{Reason{Kind: ReasonMissing}, `{"action":"no-op","reason":"missing"}`},
		{Reason{Kind: ReasonOperationDone}, `{"action":"no-op","reason":"operation_done"}`},
		{Reason{Kind: ReasonSuperseded, Detail: "proxy-v1.31.2"}, `{"action":"no-op","reason":"superseded:proxy-v1.31.2"}`},
		{Reason{Kind: ReasonConflict, Detail: "kubectl"}, `{"action":"no-op","reason":"conflict:kubectl"}`},
		{Reason{Kind: ReasonImmutableField, Detail: ".spec.selector.matchLabels[a:b]"}, `{"action":"no-op","reason":"immutable_field:.spec.selector.matchLabels[a:b]"}`},
	}
	for _, tt := range tests {
		t.Run(tt.reason.String(), func(t *testing.T) {
			type change struct {
				Action Action `json:"action"`
				Reason Reason `json:"reason,omitzero"`
			}
			got, err := json.Marshal(change{Action: NoOp, Reason: tt.reason})
			require.NoError(t, err)
			assert.JSONEq(t, tt.json, string(got))
			assert.Equal(t, tt.json, string(got))
			var back change
			require.NoError(t, json.Unmarshal(got, &back))
			assert.Equal(t, tt.reason, back.Reason)
		})
	}
}

// Every note the plan writes reads back with its kind from its words alone, which are the JSON
// form; words the plan does not write are the rendering's own.
func TestNoteKindsReadBack(t *testing.T) {
	notes := []Note{
		removedNote,
		lifetimeEndedNote,
		retiredNote("2026-11-20T08:00:00Z", true),
		retiredNote("2026-11-20T08:00:00Z", false),
		deferredNote([]string{".objects", `.values["a"]`}),
		awaitingNote("the ControllerInstallation of provider-local for seed local, which gardener-controller-manager creates"),
		unrenderedNote("helm_release"),
		generatedNote("created: no secret exists yet"),
		generatedNote("renewed: it expired at 2026-11-20T08:00:00Z"),
		generatedNote("rotated: rotation of the ca secrets was requested"),
		generatedNote("regenerated: configuration changed (common name)"),
		heldNote(2, "22:00-23:00 UTC"),
		textNote(`hibernation schedule 1 (start "0 20 * * *", end "0 6 * * *" in Europe/Berlin) at 2026-11-21T20:00:00+01:00 hibernates the shoot`),
		textNote("removed from the landscape, said the component"),
	}
	for _, n := range notes {
		t.Run(n.Text, func(t *testing.T) {
			got, err := json.Marshal(&Component{Address: "shoot.a", Action: NoOp, Note: n, Objects: []*ObjectChange{}})
			require.NoError(t, err)
			want, err := json.Marshal(map[string]any{"address": "shoot.a", "type": "", "action": "no-op", "note": n.Text, "objects": []any{}})
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(got))
			var back Component
			require.NoError(t, json.Unmarshal(got, &back))
			assert.Equal(t, n, back.Note)
			assert.Equal(t, n.Kind == NoteRemoved || n.Kind == NoteLifetimeEnded, back.Removed())
		})
	}
	got, err := json.Marshal(&Component{Address: "shoot.a", Action: NoOp, Objects: []*ObjectChange{}})
	require.NoError(t, err)
	assert.Equal(t, `{"address":"shoot.a","type":"","action":"no-op","objects":[]}`, string(got), "no note, no field")
}

// Summarise counts superseded deletions by the reason's kind.
func TestSummariseCountsSuperseded(t *testing.T) {
	p := &Plan{Components: []*Component{{Objects: []*ObjectChange{
		{Ref: object.Ref{Name: "a"}, Action: Delete, Reason: Reason{Kind: ReasonSuperseded, Detail: "b"}},
		{Ref: object.Ref{Name: "c"}, Action: Delete, Reason: Reason{Kind: ReasonRemovedFromLandscape}},
		{Ref: object.Ref{Name: "b"}, Action: Create, Reason: Reason{Kind: ReasonMissing}},
	}}}}
	p.Summarise()
	assert.Equal(t, Summary{Add: 1, Destroy: 2, Superseded: 1}, p.Summary)
}

// Continuing a lineage in an empty state is a change: the apply writes the state, recording the
// lineage and the objects of it, even when no object changes.
func TestHasChangesWhenAnEmptyStateAdoptsALineage(t *testing.T) {
	assert.False(t, (&Plan{}).HasChanges())
	assert.True(t, (&Plan{AdoptLineage: "l-1"}).HasChanges())
	assert.False(t, (&Plan{AdoptLineage: "l-1", StateSerial: 4}).HasChanges(), "a state of that lineage records it already")
}
