package graph

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// viewLandscape has a key that needs escaping in every format.
const viewLandscape = `
garden "g" {}
seed "a" { garden = garden.g }
shoot "s" {
  for_each = toset(["dev", "q\"a#<b>"])
  seed     = seed.a
}
component "thing" "crds" {}
`

// viewLandscapeWithFollower adds a component that follows the seed, for the third edge style.
const viewLandscapeWithFollower = viewLandscape + `component "thing" "late" {}
`

func TestViews(t *testing.T) {
	g := build(t, viewLandscapeWithFollower, Edge{From: "seed.a", To: "component.thing.crds", Reason: "its objects need a CRD"},
		Edge{From: "component.thing.late", To: "seed.a", Reason: "a controller creates its object once the Seed exists", Kind: Follows},
		Edge{From: "component.thing.late", To: "component.thing.crds", Reason: "its objects need a CRD"})
	tests := []struct {
		name  string
		write func(*bytes.Buffer) error
		want  string
	}{
		{
			name:  "text",
			write: func(b *bytes.Buffer) error { return g.WriteText(b) },
			want: `garden.g
component.thing.crds
seed.a <- garden.g <~ component.thing.crds
shoot.s["dev"] <- seed.a
shoot.s["q\"a#<b>"] <- seed.a
component.thing.late <~ component.thing.crds << seed.a

# legend: each line is an instance and what it is applied after, by the arrows
# <- declared: a reference or depends_on in the landscape
# <~ implied: what the instances render (a CRD, a Namespace, an extension's registration) or a composite's parts
# << follows: applied after its dependency and deleted after it too (it follows an object another controller creates once the dependency exists)
`,
		},
		{
			name:  "dot",
			write: func(b *bytes.Buffer) error { return g.WriteDOT(b, `my "land"`) },
			want: `digraph "my \"land\"" {
  rankdir = "LR";
  node [shape = "box"];
  "garden.g";
  "component.thing.crds";
  "seed.a";
  "shoot.s[\"dev\"]";
  "shoot.s[\"q\\\"a#<b>\"]";
  "component.thing.late";
  "garden.g" -> "seed.a";
  "component.thing.crds" -> "seed.a" [style = "dashed"];
  "seed.a" -> "shoot.s[\"dev\"]";
  "seed.a" -> "shoot.s[\"q\\\"a#<b>\"]";
  "seed.a" -> "component.thing.late" [style = "bold"];
  "component.thing.crds" -> "component.thing.late" [style = "dashed"];
  subgraph "cluster_legend" {
    label = "legend: dependency -> dependent";
    node [shape = "point"];
    " legend declared from" -> " legend declared to" [style = "solid", label = "declared: a reference or depends_on in the landscape"];
    " legend implied from" -> " legend implied to" [style = "dashed", label = "implied: what the instances render (a CRD, a Namespace, an extension's registration) or a composite's parts"];
    " legend follows from" -> " legend follows to" [style = "bold", label = "follows: applied after its dependency and deleted after it too (it follows an object another controller creates once the dependency exists)"];
  }
}
`,
		},
		{
			name:  "mermaid",
			write: func(b *bytes.Buffer) error { return g.WriteMermaid(b) },
			want: `flowchart LR
  n0["garden.g"]
  n1["component.thing.crds"]
  n2["seed.a"]
  n3["shoot.s[#quot;dev#quot;]"]
  n4["shoot.s[#quot;q\#quot;a#35;#lt;b#gt;#quot;]"]
  n5["component.thing.late"]
  n0 --> n2
  n1 -.-> n2
  n2 --> n3
  n2 --> n4
  n2 ==> n5
  n1 -.-> n5
%% legend: arrows point from a dependency to its dependent
%% --> declared: a reference or depends_on in the landscape
%% -.-> implied: what the instances render (a CRD, a Namespace, an extension's registration) or a composite's parts
%% ==> follows: applied after its dependency and deleted after it too (it follows an object another controller creates once the dependency exists)
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, tt.write(&b))
			assert.Equal(t, tt.want, b.String())
		})
	}
}
