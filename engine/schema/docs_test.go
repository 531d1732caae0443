package schema

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
)

// docsFixture is a small composite schema exercising every feature the renderers show: references,
// defaults of several types, allowed values, checks, immutability, sensitivity, single and
// labelled repeated blocks nested two deep, and outputs.
func docsFixture() *Schema {
	return &Schema{
		Kind:        KindGarden,
		Type:        "garden",
		Description: "A garden for tests, declared as `garden \"<name>\"`.",
		Body: Body{
			Attributes: []Attribute{
				{Name: "cluster", Type: cty.DynamicPseudoType, References: RefCluster, Required: true, Description: "The runtime cluster."},
				{Name: "purpose", Type: cty.String, Default: cty.StringVal("evaluation"), AllowedValues: []string{"evaluation", "production"}, Description: "What it is for | really."},
				{Name: "families", Type: cty.List(cty.String), Default: cty.ListVal([]cty.Value{cty.StringVal("IPv4")}), Checks: []Check{OneOf("IPv4", "IPv6")}, Immutable: true, Description: "IP families."},
				{Name: "token", Type: cty.String, Sensitive: true, Description: "A secret token."},
				{Name: "labels", Type: cty.Map(cty.String), Default: cty.MapVal(map[string]cty.Value{"b": cty.StringVal("2"), "a": cty.StringVal("1")}), Description: "Labels."},
				{Name: "values", Type: cty.DynamicPseudoType, Default: cty.EmptyObjectVal, Description: "Free-form values."},
			},
			Blocks: []Block{
				{
					Name: "virtual_cluster", Description: "The virtual garden.", Required: true,
					Body: Body{
						Removed:    []Removed{{Name: "replicas", Detail: "Set high_availability instead."}},
						Attributes: []Attribute{{Name: "high_availability", Type: cty.Bool, Default: cty.False, Description: "Run three etcd members."}},
						Blocks: []Block{{
							Name: "kubernetes", Description: "Kubernetes settings.", Required: true,
							Body: Body{Attributes: []Attribute{{Name: "version", Type: cty.String, Required: true, Checks: []Check{KubernetesVersion()}, Description: "The version."}}},
						}},
					},
				},
				{
					Name: "workers", Description: "Worker pools.", Nesting: NestingList, Labels: []string{"name"}, MinItems: 1, MaxItems: 5,
					Body: Body{Attributes: []Attribute{{Name: "minimum", Type: cty.Number, Required: true, Checks: []Check{NonNegative()}, Description: "Fewest nodes."}}},
				},
				{Name: "empty", Description: "A block without content.", Nesting: NestingList},
			},
			Removed: []Removed{{Name: "quota", Block: true, Detail: "Write it in the quota block instead."}},
		},
		Outputs: []Output{
			{Name: "name", Type: cty.String, Description: "The name."},
			{Name: "kubeconfig", Type: cty.String, Sensitive: true, Description: "Access."},
			{Name: "cluster", Type: cty.Object(map[string]cty.Type{"name": cty.String}), Description: "As a cluster."},
		},
	}
}

func TestMarkdownFixtureIsValid(t *testing.T) {
	require.NoError(t, docsFixture().Validate())
}

// A removed attribute or block must say what replaced it and must not be declared too.
func TestRemovedIsValidated(t *testing.T) {
	s := docsFixture()
	s.Body.Removed = append(s.Body.Removed, Removed{Name: "purpose", Detail: "Gone."})
	assert.ErrorContains(t, s.Validate(), "schema garden.purpose: removed, but declared too")
	s = docsFixture()
	s.Body.Removed = []Removed{{Name: "old"}}
	assert.ErrorContains(t, s.Validate(), "schema garden.old: removed without saying what replaced it")
}

func TestMarkdownContent(t *testing.T) {
	md := string(Markdown(docsFixture()))
	for _, want := range []string{
		"# `garden` block\n",
		"A garden for tests, declared as `garden \"<name>\"`.",
		"garden \"<name>\" {",
		"## Attributes",
		"| `cluster` | reference to a cluster | required |",
		"| `purpose` | string | optional, default `\"evaluation\"` | one of `\"evaluation\"`, `\"production\"` | What it is for \\| really. |",
		"| `families` | list of string | optional, default `[\"IPv4\"]` | one of IPv4, IPv6 (for a list, every element); immutable",
		"sensitive: never shown in plans or logs",
		"default `{ \"a\" = \"1\", \"b\" = \"2\" }`",
		"| `values` | dynamic | optional, default `{}` |",
		"## Blocks",
		"| `virtual_cluster` | single, required | The virtual garden. |",
		"| `workers` | repeated, labelled `name`, 1 to 5 times | Worker pools. |",
		"## Block `virtual_cluster`",
		"### Block `virtual_cluster.kubernetes`",
		"Written as `workers \"<name>\" { ... }`",
		"a Kubernetes version MAJOR.MINOR.PATCH",
		"a whole number that is zero or greater",
		"This block has no arguments.",
		"## Removed\n\n| Removed | Was | Instead |",
		"| `quota` | block | Write it in the quota block instead. |",
		"| `virtual_cluster.replicas` | attribute | Set high_availability instead. |",
		"## Outputs",
		"`garden.<name>.<output>`",
		"| `kubeconfig` | string | **Sensitive.** Access. |",
		"| `cluster` | object | As a cluster. |",
	} {
		assert.Contains(t, md, want)
	}
	// Sections come in declaration order, depth first, and outputs last.
	order := []string{"## Block `virtual_cluster`", "### Block `virtual_cluster.kubernetes`", "## Block `workers`", "## Block `empty`", "## Outputs"}
	last := -1
	for _, h := range order {
		i := strings.Index(md, h)
		assert.Greater(t, i, last, "%s comes after the previous section", h)
		last = i
	}
}

func TestMarkdownComponent(t *testing.T) {
	s := &Schema{Kind: KindComponent, Type: "helm_release", Description: "A chart.", Body: Body{Attributes: []Attribute{{Name: "chart", Type: cty.String, Required: true, Description: "The chart."}}}}
	md := string(Markdown(s))
	assert.Contains(t, md, "# Component type `helm_release`")
	assert.Contains(t, md, "component \"helm_release\" \"<name>\" {")
	assert.Contains(t, md, "This block has no outputs.")
	assert.NotContains(t, md, "## Blocks")
}

func TestMarkdownIsDeterministic(t *testing.T) {
	first := Markdown(docsFixture())
	for range 20 {
		assert.Equal(t, string(first), string(Markdown(docsFixture())))
	}
}

func TestMarkdownLiteral(t *testing.T) {
	for _, tc := range []struct {
		v    cty.Value
		want string
	}{
		{cty.StringVal("a\"b"), `"a\"b"`},
		{cty.NumberIntVal(3), "3"},
		{cty.NumberFloatVal(0.5), "0.5"},
		{cty.True, "true"},
		{cty.ListValEmpty(cty.String), "[]"},
		{cty.SetVal([]cty.Value{cty.StringVal("b"), cty.StringVal("a")}), `["a", "b"]`},
		{cty.ObjectVal(map[string]cty.Value{"x": cty.NumberIntVal(1)}), `{ "x" = 1 }`},
		{cty.NullVal(cty.String), "null"},
	} {
		assert.Equal(t, tc.want, mdLiteral(tc.v))
	}
}

func TestMarkdownProse(t *testing.T) {
	assert.Equal(t, "seed-&lt;name&gt; in `garden-<project>`, then &lt;b&gt;", mdProse(" seed-<name> in `garden-<project>`, then <b> "))
}
