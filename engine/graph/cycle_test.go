package graph

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCycles(t *testing.T) {
	body := `
garden "g" {}
seed "a" { garden = garden.g }
component "thing" "x" {}
component "thing" "y" {}
component "thing" "z" {}
`
	tests := []struct {
		name     string
		implicit []Edge
		// details are the diagnostics' details; file names are replaced by FILE.
		details []string
		// subjectLine is the line of the first diagnostic's subject, 0 for none.
		subjectLine int
	}{
		{
			name:     "an implicit edge against a reference",
			implicit: []Edge{{From: "garden.g", To: "seed.a", Reason: "its objects in namespace \"garden\" need the Namespace"}},
			details: []string{"These components must each be applied after another of them, so none can be applied first: garden.g, seed.a.\n" +
				"garden.g depends on seed.a: its objects in namespace \"garden\" need the Namespace (implicit)\n" +
				"seed.a depends on garden.g: refers to garden.g at FILE:5,21-29"},
			subjectLine: 5,
		},
		{
			name: "three implicit edges, one cycle, members sorted, outsiders left out",
			implicit: []Edge{
				{From: "component.thing.z", To: "component.thing.x", Reason: "r1"},
				{From: "component.thing.x", To: "component.thing.y", Reason: "r2"},
				{From: "component.thing.y", To: "component.thing.z", Reason: "r3"},
				{From: "component.thing.y", To: "seed.a", Reason: "not part of the cycle"},
			},
			details: []string{"These components must each be applied after another of them, so none can be applied first: component.thing.x, component.thing.y, component.thing.z.\n" +
				"component.thing.x depends on component.thing.y: r2 (implicit)\n" +
				"component.thing.y depends on component.thing.z: r3 (implicit)\n" +
				"component.thing.z depends on component.thing.x: r1 (implicit)"},
		},
		{
			name: "two cycles, two diagnostics in order",
			implicit: []Edge{
				{From: "component.thing.z", To: "component.thing.y", Reason: "r1"},
				{From: "component.thing.y", To: "component.thing.z", Reason: "r2"},
				{From: "garden.g", To: "seed.a", Reason: "r3"},
			},
			details: []string{
				"These components must each be applied after another of them, so none can be applied first: garden.g, seed.a.\n" +
					"garden.g depends on seed.a: r3 (implicit)\n" +
					"seed.a depends on garden.g: refers to garden.g at FILE:5,21-29",
				"These components must each be applied after another of them, so none can be applied first: component.thing.y, component.thing.z.\n" +
					"component.thing.y depends on component.thing.z: r2 (implicit)\n" +
					"component.thing.z depends on component.thing.y: r1 (implicit)",
			},
			subjectLine: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := load(t, body)
			for range 5 { // the same diagnostics whatever order maps iterate in
				g, diags := Build(ev, tt.implicit)
				assert.Nil(t, g)
				require.Len(t, diags, len(tt.details))
				for i, d := range diags {
					assert.Equal(t, "Dependency cycle", d.Summary)
					file := "FILE"
					if d.Subject != nil {
						file = d.Subject.Filename
					}
					assert.Equal(t, tt.details[i], strings.ReplaceAll(d.Detail, file, "FILE"))
				}
				if tt.subjectLine == 0 {
					assert.Nil(t, diags[0].Subject)
				} else {
					require.NotNil(t, diags[0].Subject)
					assert.Equal(t, tt.subjectLine, diags[0].Subject.Start.Line)
				}
			}
		})
	}
}
