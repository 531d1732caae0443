package graph

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// testRegistry is a small catalog independent of the real schemas, so that these tests pin the
// graph's behaviour and not the catalog's.
func testRegistry(t testing.TB) *schema.Registry {
	t.Helper()
	ref := func(name, kind string) schema.Attribute {
		return schema.Attribute{Name: name, Type: cty.DynamicPseudoType, References: kind}
	}
	outputs := []schema.Output{{Name: "name", Type: cty.String}}
	reg, err := schema.NewRegistry(
		&schema.Schema{Kind: schema.KindGarden, Type: "garden", Outputs: outputs, Body: schema.Body{
			Attributes: []schema.Attribute{ref("cluster", schema.RefCluster)},
		}},
		&schema.Schema{Kind: schema.KindSeed, Type: "seed", Outputs: outputs, Body: schema.Body{
			Attributes: []schema.Attribute{ref("garden", schema.RefGarden), ref("cluster", schema.RefCluster), {Name: "value", Type: cty.String}},
		}},
		&schema.Schema{Kind: schema.KindShoot, Type: "shoot", Outputs: outputs, Body: schema.Body{
			Attributes: []schema.Attribute{ref("seed", schema.RefSeed), {Name: "value", Type: cty.String}},
		}},
		&schema.Schema{Kind: schema.KindComponent, Type: "thing", Outputs: outputs, Body: schema.Body{
			Attributes: []schema.Attribute{ref("cluster", schema.RefCluster), {Name: "value", Type: cty.String}},
		}},
	)
	require.NoError(t, err)
	return reg
}

// header declares the landscape and a cluster every test may use.
const header = `landscape "test" {}
cluster "runtime" { context = "runtime" }
`

// load evaluates a landscape written as one file and fails the test on any diagnostic.
func load(t *testing.T, body string) *config.Evaluated {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(header+body), 0o644))
	res, diags := config.Load(dir, testRegistry(t), config.InputSources{})
	require.False(t, diags.HasErrors(), diags.Error())
	return res.Evaluated
}

// build loads a landscape and builds its graph, failing the test on any diagnostic.
func build(t *testing.T, body string, implicit ...Edge) *Graph {
	t.Helper()
	g, diags := Build(load(t, body), implicit)
	require.False(t, diags.HasErrors(), diags.Error())
	return g
}

// edgeLines renders edges compactly for comparison: "from -> to (kind): reason".
func edgeLines(edges []Edge) []string {
	out := make([]string, len(edges))
	for i, e := range edges {
		out[i] = string(e.From) + " -> " + string(e.To) + " (" + e.Kind.String() + "): " + e.Reason
	}
	return out
}

func addrs(ss ...string) []config.InstanceAddress {
	out := make([]config.InstanceAddress, len(ss))
	for i, s := range ss {
		out[i] = config.InstanceAddress(s)
	}
	return out
}

// blocksOf groups instance addresses by block, the way Build does, for graphs built by hand.
func blocksOf(nodes ...config.InstanceAddress) map[config.Address][]config.InstanceAddress {
	blocks := map[config.Address][]config.InstanceAddress{}
	for _, n := range nodes {
		b, _, _ := strings.Cut(string(n), "[")
		blocks[config.Address(b)] = append(blocks[config.Address(b)], n)
	}
	return blocks
}
