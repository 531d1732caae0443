package graphpage

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/graph"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
)

var update = flag.Bool("update", false, "rewrite golden files")

// sample is a small landscape in graph order: a garden with a part, a seed, two shoots and a
// component that follows the seed, with a key that needs escaping in HTML and JSON.
func sample() []Node {
	return []Node{
		{Address: "garden.local", Kind: "garden", Type: "garden", Source: "garden.hcl:1"},
		{Address: "garden.local.istio", Kind: "garden", Type: "garden", PartOf: "garden.local", Source: "garden.hcl:1",
			Dependencies: []Dependency{{Address: "garden.local", Style: graph.Implied, Reasons: []string{"it is made of this part"}}}},
		{Address: "seed.local", Kind: "seed", Type: "seed", Source: "seed.hcl:1",
			Dependencies: []Dependency{{Address: "garden.local", Style: graph.Declared, Reasons: []string{"refers to garden.local"}}}},
		{Address: `shoot.dev["</script><b>x</b>"]`, Kind: "shoot", Type: "shoot", Source: "shoots.hcl:3",
			Dependencies: []Dependency{{Address: "seed.local", Style: graph.Declared, Reasons: []string{"refers to seed.local"}}}},
		{Address: "shoot.qa", Kind: "shoot", Type: "shoot", Source: "shoots.hcl:9",
			Dependencies: []Dependency{
				{Address: "garden.local.istio", Style: graph.Implied, Reasons: []string{`objects in namespace "istio-system" need their Namespace`}},
				{Address: "seed.local", Style: graph.Declared, Reasons: []string{"refers to seed.local", "depends_on"}},
			}},
		{Address: "component.extension.calico", Kind: "component", Type: "extension", Source: "extensions.hcl:1",
			Dependencies: []Dependency{{Address: "seed.local", Style: graph.Following, Reasons: []string{"follows the Seed"}}}},
	}
}

func samplePlan() *plan.Plan {
	p := &plan.Plan{FormatVersion: plan.FormatVersion, Landscape: "local", Components: []*plan.Component{
		{Address: "garden.local", Type: "garden", Objects: []*plan.ObjectChange{}},
		{Address: "garden.local.istio", Type: "garden", Objects: []*plan.ObjectChange{
			{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "Namespace", Name: "istio-system"}, Action: plan.Create},
		}},
		{Address: "seed.local", Type: "seed", Objects: []*plan.ObjectChange{
			{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "ConfigMap", Namespace: "garden", Name: "a"}, Action: plan.Update},
			{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "ConfigMap", Namespace: "garden", Name: "b"}, Action: plan.Create},
		}},
		{Address: "shoot.qa", Type: "shoot", Objects: []*plan.ObjectChange{
			{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "Service", Namespace: "qa", Name: "s"}, Action: plan.Replace},
		}},
		{Address: "component.manifests.gone", Type: "manifests", Note: plan.ParseNote("removed from the landscape"), Objects: []*plan.ObjectChange{
			{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "ConfigMap", Namespace: "garden", Name: "old"}, Action: plan.Delete},
		}},
	}}
	p.Summarise()
	return p
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./engine/views/graphpage -update to create %s", path)
	assert.Equal(t, string(want), string(got))
}

// pageData reads the data the page embeds.
func pageDataOf(t *testing.T, page string) pageData {
	t.Helper()
	_, rest, ok := strings.Cut(page, `<script id="graph-data" type="application/json">`)
	require.True(t, ok)
	js, _, ok := strings.Cut(rest, "</script>")
	require.True(t, ok)
	var d pageData
	require.NoError(t, json.Unmarshal([]byte(js), &d))
	return d
}

func TestPageGolden(t *testing.T) {
	for name, opts := range map[string]Options{
		"graph.html":      {Landscape: "local"},
		"graph-plan.html": {Landscape: "local", Plan: samplePlan()},
	} {
		t.Run(name, func(t *testing.T) {
			var a, b bytes.Buffer
			require.NoError(t, Write(&a, sample(), opts))
			require.NoError(t, Write(&b, sample(), opts))
			assert.Equal(t, a.String(), b.String(), "the same graph gives the same bytes")
			golden(t, name, a.Bytes())
		})
	}
}

// The page is one file: nothing it loads comes from elsewhere, and the landscape's text cannot end
// the script element that holds it.
func TestPageIsSelfContained(t *testing.T) {
	var buf bytes.Buffer
	nodes := sample()
	nodes[4].Address = "shoot.qa[\"\u202e\x1b[2J\U0001F600\"]"
	nodes[4].Dependencies[0].Reasons = []string{"r\u00e9ason"}
	require.NoError(t, Write(&buf, nodes, Options{Landscape: "lo\x1bcal<i>\u202e"}))
	page := buf.String()
	for i, r := range page {
		require.True(t, r == '\n' || r == '\t' || r >= 0x20 && r < 0x7f, "%U at byte %d: the page is printable ASCII", r, i)
	}
	d := pageDataOf(t, page)
	assert.Equal(t, "shoot.qa[\"\u202e\x1b[2J\U0001F600\"]", d.Nodes[4].Address, "the data reads back as it was")
	assert.Equal(t, []string{"r\u00e9ason"}, d.Edges[3].Reasons)
	for _, ref := range []string{"src=", "href=", "http://", "https://", "@import", "url("} {
		if ref == "http://" {
			// The SVG namespace is a name, not a request.
			page = strings.ReplaceAll(page, `"http://www.w3.org/2000/svg"`, "")
		}
		assert.NotContains(t, page, ref)
	}
	assert.Equal(t, 2, strings.Count(page, "</script>"), "only the page's own two script elements end")
	assert.Contains(t, page, "<title>gardener graph: local&lt;i&gt;&#x202e;</title>")
	assert.Contains(t, page, `shoot.dev[\"\u003c/script\u003e\u003cb\u003ex\u003c/b\u003e\"]`)
}

// Every edge points right, from a dependency's layer to a later one, and nodes of one layer do
// not overlap.
func TestLayout(t *testing.T) {
	d, err := build(sample(), Options{Landscape: "local"})
	require.NoError(t, err)
	require.Len(t, d.Nodes, 6)
	for _, e := range d.Edges {
		from, to := d.Nodes[e.From], d.Nodes[e.To]
		assert.Less(t, from.Layer, to.Layer, "%s -> %s", from.Address, to.Address)
		assert.Less(t, from.X+from.W, to.X, "%s -> %s", from.Address, to.Address)
	}
	for i, a := range d.Nodes {
		for _, b := range d.Nodes[i+1:] {
			if a.Layer == b.Layer {
				assert.NotEqual(t, a.Y, b.Y, "%s and %s", a.Address, b.Address)
			}
		}
		assert.LessOrEqual(t, a.X+a.W, d.Width)
		assert.LessOrEqual(t, a.Y+nodeHeight, d.Height)
	}
	assert.Equal(t, []int{0, 1, 1, 2, 2, 2}, []int{d.Nodes[0].Layer, d.Nodes[1].Layer, d.Nodes[2].Layer, d.Nodes[3].Layer, d.Nodes[4].Layer, d.Nodes[5].Layer})
}

func TestPagePlanActions(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, sample(), Options{Landscape: "local", Plan: samplePlan()}))
	d := pageDataOf(t, buf.String())
	actions := map[string]string{}
	for _, n := range d.Nodes {
		actions[n.Address] = n.Action + " " + n.Changes
	}
	assert.Equal(t, map[string]string{
		"garden.local":                   "create 1 to add",
		"garden.local.istio":             "create 1 to add",
		"seed.local":                     "update 1 to add, 1 to change",
		`shoot.dev["</script><b>x</b>"]`: "not planned ",
		"shoot.qa":                       "replace 1 to replace",
		"component.extension.calico":     "not planned ",
	}, actions)
	assert.Equal(t, "the actions of its parts", d.Nodes[0].Note, "a composite without objects of its own does what its parts do")
	assert.Equal(t, []removedComponent{{Address: "component.manifests.gone", Action: "delete", Changes: "1 to destroy"}}, d.Removed)
}

func TestPageRefusesNodesOutOfOrder(t *testing.T) {
	nodes := sample()
	nodes[0], nodes[2] = nodes[2], nodes[0]
	err := Write(&bytes.Buffer{}, nodes, Options{Landscape: "local"})
	assert.EqualError(t, err, "graph page: seed.local depends on garden.local, which does not come before it")
}

func TestPartsAction(t *testing.T) {
	tests := []struct {
		parts []plan.Action
		want  plan.Action
	}{
		{nil, plan.NoOp},
		{[]plan.Action{plan.NoOp, plan.NoOp}, plan.NoOp},
		{[]plan.Action{plan.Create, plan.NoOp, plan.Create}, plan.Create},
		{[]plan.Action{plan.Create, plan.Read}, plan.Create},
		{[]plan.Action{plan.Read}, plan.Read},
		{[]plan.Action{plan.Create, plan.Delete}, plan.Update},
	}
	for _, tt := range tests {
		var parts []*plan.Component
		for _, a := range tt.parts {
			parts = append(parts, &plan.Component{Action: a})
		}
		assert.Equal(t, string(tt.want), partsAction(parts), "%v", tt.parts)
	}
}
