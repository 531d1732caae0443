package graph

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/diag"
)

func TestWriteJSON(t *testing.T) {
	g := build(t, viewLandscape, Edge{From: "seed.a", To: "component.thing.crds", Reason: "its objects need a CRD"})
	var first, second bytes.Buffer
	require.NoError(t, g.WriteJSON(&first, "land"))
	require.NoError(t, g.WriteJSON(&second, "land"))
	assert.Equal(t, first.String(), second.String(), "the same graph gives the same bytes")

	var got jsonGraph
	require.NoError(t, json.Unmarshal(first.Bytes(), &got))
	assert.Contains(t, first.String(), `"format_version": "1.0"`)
	for i := range got.Edges {
		if r := got.Edges[i].Range; r != nil {
			r.Filename = filepath.Base(r.Filename) // the test's temporary directory
		}
	}
	at := func(line, col, byteStart, byteEnd int) *diag.Range {
		return &diag.Range{Filename: "main.hcl", Start: diag.Pos{Line: line, Column: col, Byte: byteStart},
			End: diag.Pos{Line: line, Column: col + byteEnd - byteStart, Byte: byteEnd}}
	}
	const odd = `shoot.s["q\"a#<b>"]`
	assert.Equal(t, jsonGraph{
		FormatVersion: JSONFormatVersion,
		Landscape:     "land",
		Nodes: []jsonNode{
			{Address: "garden.g", Block: "garden.g", Kind: "garden", Type: "garden", Dependencies: []string{}},
			{Address: "component.thing.crds", Block: "component.thing.crds", Kind: "component", Type: "thing", Dependencies: []string{}},
			{Address: "seed.a", Block: "seed.a", Kind: "seed", Type: "seed", Dependencies: []string{"garden.g", "component.thing.crds"}},
			{Address: `shoot.s["dev"]`, Block: "shoot.s", Kind: "shoot", Type: "shoot", Dependencies: []string{"seed.a"}},
			{Address: odd, Block: "shoot.s", Kind: "shoot", Type: "shoot", Dependencies: []string{"seed.a"}},
		},
		Edges: []jsonEdge{
			{Dependent: "seed.a", Dependency: "garden.g", Kind: "reference", Reason: "refers to garden.g", Range: at(5, 21, 97, 105)},
			{Dependent: "seed.a", Dependency: "component.thing.crds", Kind: "implicit", Reason: "its objects need a CRD"},
			{Dependent: `shoot.s["dev"]`, Dependency: "seed.a", Kind: "reference", Reason: "refers to seed.a", Range: at(8, 14, 173, 179)},
			{Dependent: odd, Dependency: "seed.a", Kind: "reference", Reason: "refers to seed.a", Range: at(8, 14, 173, 179)},
		},
	}, got)
}

func TestWriteJSONNamesParts(t *testing.T) {
	parts, diags := Build(load(t, viewLandscape), nil, Part{Addr: "seed.a.gardenlet", Parent: "seed.a"})
	require.False(t, diags.HasErrors(), diags.Error())
	var buf bytes.Buffer
	require.NoError(t, parts.WriteJSON(&buf, "land"))
	var got jsonGraph
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
	var part *jsonNode
	for i := range got.Nodes {
		if got.Nodes[i].Address == "seed.a.gardenlet" {
			part = &got.Nodes[i]
		}
	}
	require.NotNil(t, part)
	assert.Equal(t, jsonNode{Address: "seed.a.gardenlet", Block: "seed.a", Kind: "seed", Type: "seed", PartOf: "seed.a", Dependencies: []string{"garden.g"}}, *part)
}
