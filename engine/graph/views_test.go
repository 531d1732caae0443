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

func TestViews(t *testing.T) {
	g := build(t, viewLandscape, Edge{From: "seed.a", To: "component.thing.crds", Reason: "its objects need a CRD"})
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
seed.a <- garden.g, component.thing.crds
shoot.s["dev"] <- seed.a
shoot.s["q\"a#<b>"] <- seed.a
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
  "garden.g" -> "seed.a";
  "component.thing.crds" -> "seed.a" [style = "dashed"];
  "seed.a" -> "shoot.s[\"dev\"]";
  "seed.a" -> "shoot.s[\"q\\\"a#<b>\"]";
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
  n0 --> n2
  n1 -.-> n2
  n2 --> n3
  n2 --> n4
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
