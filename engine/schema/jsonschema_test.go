package schema

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

func jsonFixtureRegistry(t *testing.T) *Registry {
	t.Helper()
	component := &Schema{
		Kind: KindComponent, Type: "manifests", Description: "Raw objects.",
		Body: Body{Attributes: []Attribute{{Name: "files", Type: cty.List(cty.String), Description: "Paths."}}},
	}
	r, err := NewRegistry(component, docsFixture())
	require.NoError(t, err)
	return r
}

func TestJSONRoundTrips(t *testing.T) {
	out, err := JSON(jsonFixtureRegistry(t))
	require.NoError(t, err)

	var doc jsonDocument
	require.NoError(t, json.Unmarshal(out, &doc))
	assert.Equal(t, "1.0", doc.FormatVersion.String())
	require.Len(t, doc.Schemas, 2)
	// Composites come before components.
	assert.Equal(t, KindGarden, doc.Schemas[0].Kind)
	assert.Equal(t, "manifests", doc.Schemas[1].Type)

	again, err := json.Marshal(doc)
	require.NoError(t, err)
	var generic1, generic2 any
	require.NoError(t, json.Unmarshal(out, &generic1))
	require.NoError(t, json.Unmarshal(again, &generic2))
	assert.Equal(t, generic1, generic2, "decoding and re-encoding loses nothing")
}

func TestJSONContent(t *testing.T) {
	out, err := JSON(jsonFixtureRegistry(t))
	require.NoError(t, err)
	var doc jsonDocument
	require.NoError(t, json.Unmarshal(out, &doc))
	g := doc.Schemas[0]

	attr := func(name string) jsonAttribute {
		for _, a := range g.Attributes {
			if a.Name == name {
				return a
			}
		}
		t.Fatalf("attribute %s missing", name)
		return jsonAttribute{}
	}
	cluster := attr("cluster")
	assert.JSONEq(t, `"dynamic"`, string(cluster.Type))
	assert.Equal(t, "cluster", cluster.References)
	assert.True(t, cluster.Required)
	assert.Nil(t, cluster.Default)

	purpose := attr("purpose")
	assert.JSONEq(t, `"evaluation"`, string(purpose.Default))
	assert.Equal(t, []string{"evaluation", "production"}, purpose.AllowedValues)

	families := attr("families")
	assert.JSONEq(t, `["list","string"]`, string(families.Type))
	assert.JSONEq(t, `["IPv4"]`, string(families.Default))
	assert.Equal(t, []string{"one_of"}, families.Checks)
	assert.True(t, families.Immutable)
	ty, err := ctyjson.UnmarshalType(families.Type)
	require.NoError(t, err)
	assert.True(t, ty.Equals(cty.List(cty.String)), "types read back with go-cty")

	assert.True(t, attr("token").Sensitive)
	assert.JSONEq(t, `{}`, string(attr("values").Default), "a dynamic default is plain JSON")

	require.Len(t, g.Blocks, 3)
	vc := g.Blocks[0]
	assert.Equal(t, "single", vc.Nesting)
	assert.True(t, vc.Required)
	require.Len(t, vc.Blocks, 1)
	assert.Equal(t, "kubernetes", vc.Blocks[0].Name)
	assert.Equal(t, []string{"kubernetes_version"}, vc.Blocks[0].Attributes[0].Checks)
	workers := g.Blocks[1]
	assert.Equal(t, "list", workers.Nesting)
	assert.Equal(t, []string{"name"}, workers.Labels)
	assert.Equal(t, 1, workers.MinItems)
	assert.Equal(t, 5, workers.MaxItems)
	assert.NotNil(t, g.Blocks[2].Attributes, "empty bodies are [] rather than null")

	require.Len(t, g.Outputs, 3)
	assert.True(t, g.Outputs[1].Sensitive)
	assert.JSONEq(t, `["object",{"name":"string"}]`, string(g.Outputs[2].Type))

	assert.Contains(t, string(out), `garden`)
	assert.NotContains(t, string(out), `\u003c`, "no HTML escaping")
}

func TestJSONIsDeterministic(t *testing.T) {
	first, err := JSON(jsonFixtureRegistry(t))
	require.NoError(t, err)
	for range 20 {
		again, err := JSON(jsonFixtureRegistry(t))
		require.NoError(t, err)
		assert.Equal(t, string(first), string(again))
	}
}

func TestJSONRejectsUnknownDefault(t *testing.T) {
	s := &Schema{Kind: KindComponent, Type: "bad", Body: Body{Attributes: []Attribute{
		{Name: "x", Type: cty.String, Default: cty.UnknownVal(cty.String)},
	}}}
	r, err := NewRegistry(s)
	require.NoError(t, err)
	_, err = JSON(r)
	assert.ErrorContains(t, err, "bad.x")
}
