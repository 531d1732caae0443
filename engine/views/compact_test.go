package views

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
)

// creating is a plan that creates n ConfigMaps with one field each in one component, and updates
// one more in place.
func creating(n int) *plan.Plan {
	c := &plan.Component{Address: "component.manifests.bulk", Type: "manifests"}
	for i := range n {
		c.Objects = append(c.Objects, &plan.ObjectChange{Cluster: "runtime", APIVersion: "v1",
			Ref:    object.Ref{Kind: "ConfigMap", Namespace: "apps", Name: fmt.Sprintf("cm-%03d", i)},
			Action: plan.Create, Reason: plan.Reason{Kind: plan.ReasonMissing},
			Changes: []plan.FieldChange{{Path: ".data[index]", After: fmt.Sprint(i), HasAfter: true}}})
	}
	c.Objects = append(c.Objects, &plan.ObjectChange{Cluster: "runtime", APIVersion: "v1",
		Ref:    object.Ref{Kind: "ConfigMap", Namespace: "apps", Name: "settings"},
		Action: plan.Update, Reason: plan.Reason{Kind: plan.ReasonConfigChanged}, ResourceVersion: "7",
		Changes: []plan.FieldChange{{Path: ".data[mode]", Before: "slow", After: "fast", HasBefore: true, HasAfter: true}}})
	p := &plan.Plan{FormatVersion: plan.FormatVersion, Landscape: "bulk", Components: []*plan.Component{c}}
	p.Summarise()
	return p
}

func TestPlanCompact(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, Plan(&buf, samplePlan(), PlanOptions{Detail: DetailCompact}))
	golden(t, "plan-compact.txt", buf.Bytes())
	out := buf.String()
	// Updates keep their fields, with their conflicts; creates, replaces and deletes are one line.
	assert.Contains(t, out, "# component.manifests.base: 1 to add, 1 to change\n  + ConfigMap apps/settings (runtime)\n  ~ Secret apps/token (runtime)")
	assert.Contains(t, out, "      ~ .spec.replicas: 1 -> 3\n")
	assert.NotContains(t, out, ".data[mode]", "a created object's fields")
	assert.NotContains(t, out, ".spec.clusterIP:", "a replaced object's fields")
	assert.Contains(t, out, "  -/+ Service apps/web (runtime) must be replaced: immutable field .spec.clusterIP changes [immutable_field:.spec.clusterIP]\n")
	assert.Contains(t, out, "# component.manifests.old (removed from the landscape): 2 to destroy\n")
	// The summary, the warnings and the outputs are those of the full plan.
	var full bytes.Buffer
	require.NoError(t, Plan(&full, samplePlan(), PlanOptions{}))
	tail := func(s string) string { return s[strings.Index(s, "\n# state: ended lifetimes"):] }
	assert.Equal(t, tail(full.String()), tail(out))

	buf.Reset()
	require.NoError(t, Plan(&buf, samplePlan(), PlanOptions{Detail: DetailCompact, Color: true}))
	golden(t, "plan-compact-color.txt", buf.Bytes())
}

// The plan chooses the compact form itself when it creates more than CompactThreshold objects,
// and says how to get the full one; a plan asked for in full is full whatever its size.
func TestPlanDetailAuto(t *testing.T) {
	tests := []struct {
		name    string
		creates int
		detail  Detail
		compact bool
		note    string
	}{
		{"small plan in full", CompactThreshold, DetailAuto, false, ""},
		{"zero value is auto", CompactThreshold + 1, "", true, "Compact plan: it creates 201 objects (more than 200), so it lists one line per object and fields only of objects updated in place. Show every field with --detail=full.\n"},
		{"large plan compact", CompactThreshold + 1, DetailAuto, true, "Compact plan: it creates 201 objects (more than 200)"},
		{"large plan asked in full", CompactThreshold + 1, DetailFull, false, ""},
		{"small plan asked compact", 3, DetailCompact, true, "Compact plan (--detail=compact): one line per object, fields only of objects updated in place.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, Plan(&buf, creating(tt.creates), PlanOptions{Detail: tt.detail}))
			out := buf.String()
			assert.Contains(t, out, fmt.Sprintf("Plan: %d to add, 1 to change, 0 to replace, 0 to destroy.\n", tt.creates))
			assert.Contains(t, out, "      ~ .data[mode]: \"slow\" -> \"fast\"\n", "an update keeps its fields")
			if !tt.compact {
				assert.NotContains(t, out, "Compact plan")
				assert.Contains(t, out, "  + ConfigMap apps/cm-000 (runtime) will be created [missing]\n      + .data[index] = \"0\"\n")
				return
			}
			assert.Contains(t, out, "gardener will perform the following actions on landscape \"bulk\":\n"+tt.note)
			assert.Contains(t, out, fmt.Sprintf("# component.manifests.bulk: %d to add, 1 to change\n  + ConfigMap apps/cm-000 (runtime)\n  + ConfigMap apps/cm-001 (runtime)\n", tt.creates))
			assert.NotContains(t, out, ".data[index]")
		})
	}
}

// A held change shows its fields in a compact plan only when it will update in place.
func TestPlanCompactHeld(t *testing.T) {
	held := &plan.Component{Address: "shoot.dev.kube_apiserver", Type: "kube_apiserver", Note: plan.ParseNote("2 change(s) held until the maintenance window 22:00-23:00 UTC"), Objects: []*plan.ObjectChange{
		{Cluster: "runtime", APIVersion: "apps/v1", Ref: object.Ref{Group: "apps", Kind: "Deployment", Namespace: "shoot--local--dev", Name: "kube-apiserver"},
			Action: plan.NoOp, Held: plan.Update, Reason: plan.Reason{Kind: plan.ReasonMaintenanceWindow}, ResourceVersion: "7", Changes: []plan.FieldChange{
				{Path: ".spec.replicas", Before: int64(1), After: int64(2), HasBefore: true, HasAfter: true},
			}},
		{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "ConfigMap", Namespace: "shoot--local--dev", Name: "audit"},
			Action: plan.NoOp, Held: plan.Create, Reason: plan.Reason{Kind: plan.ReasonMaintenanceWindow}, Changes: []plan.FieldChange{
				{Path: ".data[policy]", After: "x", HasAfter: true},
			}},
	}}
	pl := &plan.Plan{FormatVersion: plan.FormatVersion, Landscape: "local", Components: []*plan.Component{held}}
	pl.Summarise()
	var buf bytes.Buffer
	require.NoError(t, Plan(&buf, pl, PlanOptions{Detail: DetailCompact}))
	assert.Contains(t, buf.String(), "[maintenance_window]\n      ~ .spec.replicas: 1 -> 2\n")
	assert.NotContains(t, buf.String(), ".data[policy]")
}

func TestParseDetail(t *testing.T) {
	for in, want := range map[string]Detail{"": DetailAuto, "auto": DetailAuto, "full": DetailFull, "compact": DetailCompact} {
		got, err := ParseDetail(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := ParseDetail("summary")
	assert.EqualError(t, err, `unknown detail "summary": use auto, full or compact`)
}
