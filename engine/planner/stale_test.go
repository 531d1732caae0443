package planner

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
)

func planOf(serial int64, changes ...*plan.ObjectChange) *plan.Plan {
	return &plan.Plan{StateSerial: serial, Components: []*plan.Component{{Address: "component.manifests.a", Objects: changes}}}
}

func TestCheckStale(t *testing.T) {
	cm := func(name, action, rv string) *plan.ObjectChange {
		return &plan.ObjectChange{Cluster: "runtime", Ref: object.Ref{Kind: "ConfigMap", Namespace: "apps", Name: name}, Action: plan.Action(action), ResourceVersion: rv}
	}
	saved := &plan.File{Plan: planOf(3, cm("a", "update", "10"), cm("b", "no-op", "11"))}
	tests := []struct {
		name  string
		fresh *plan.Plan
		want  string
	}{
		{"unchanged", planOf(3, cm("a", "update", "10"), cm("b", "no-op", "11")), ""},
		{"object moved", planOf(3, cm("a", "update", "12"), cm("b", "no-op", "11")), "ConfigMap apps/a in cluster runtime changed (resourceVersion 12, planned at 10)"},
		{"state written since", planOf(4, cm("a", "update", "10"), cm("b", "no-op", "11")), "the state was written since (serial 4, planned at 3)"},
		{"action changed", planOf(3, cm("a", "update", "10"), cm("b", "update", "11")), "ConfigMap apps/b in cluster runtime is now planned to update, not no-op"},
		{"a change nobody reviewed", planOf(3, cm("a", "update", "10"), cm("b", "no-op", "11"), cm("c", "delete", "13")), "ConfigMap apps/c in cluster runtime would be deleted, which the saved plan does not include"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckStale(saved, &plan.Result{Plan: tt.fresh})
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
