package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const targetLandscape = `
garden "g" {}
seed "a" { garden = garden.g }
seed "b" { garden = garden.g }
shoot "s" {
  for_each = toset(["dev", "qa"])
  seed     = seed.a
}
shoot "t" {
  count = 11
  seed  = seed.b
}
shoot "none" { for_each = {} }
component "thing" "c" { depends_on = [shoot.s] }
`

func TestSubgraph(t *testing.T) {
	g := build(t, targetLandscape)
	tests := []struct {
		name    string
		targets []string
		order   []string
	}{
		{name: "a root alone", targets: []string{"garden.g"}, order: []string{"garden.g"}},
		{name: "an instance with its dependencies, not its siblings", targets: []string{`shoot.s["qa"]`},
			order: []string{"garden.g", "seed.a", `shoot.s["qa"]`}},
		{name: "transitive dependencies", targets: []string{"component.thing.c"},
			order: []string{"garden.g", "seed.a", `shoot.s["dev"]`, `shoot.s["qa"]`, "component.thing.c"}},
		{name: "several targets, overlapping", targets: []string{"shoot.t[10]", "seed.a", "seed.b"},
			order: []string{"garden.g", "seed.a", "seed.b", "shoot.t[10]"}},
		{name: "no targets", order: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub, err := g.Subgraph(addrs(tt.targets...)...)
			require.NoError(t, err)
			assert.Equal(t, addrs(tt.order...), sub.Order())
			for _, e := range sub.Edges() {
				assert.Equal(t, g.EdgesBetween(e.From, e.To), sub.EdgesBetween(e.From, e.To))
			}
			for _, a := range sub.Order() {
				assert.Equal(t, g.Dependencies(a), sub.Dependencies(a), "every dependency is kept")
				assert.Same(t, g.Instance(a), sub.Instance(a))
			}
		})
	}
	_, err := g.Subgraph("seed.a", "shoot.x", "garden.h")
	assert.EqualError(t, err, "subgraph: unknown instances garden.h, shoot.x")
}

func TestResolveTarget(t *testing.T) {
	g := build(t, targetLandscape)
	tests := []struct {
		target string
		want   []string
		// summary and detail describe the expected diagnostic.
		summary, detail string
	}{
		{target: "seed.a", want: []string{"seed.a"}},
		{target: "shoot.s", want: []string{`shoot.s["dev"]`, `shoot.s["qa"]`}},
		{target: `shoot.s["qa"]`, want: []string{`shoot.s["qa"]`}},
		{target: ` shoot.s [ "qa" ] `, want: []string{`shoot.s["qa"]`}},
		{target: "shoot.t[10]", want: []string{"shoot.t[10]"}},
		{target: "shoot.none", want: []string{}},
		{target: "component.thing.c", want: []string{"component.thing.c"}},
		{target: "seed.c", summary: "Unknown target",
			detail: `The target "seed.c" names seed.c, which the landscape does not declare. Did you mean seed.a?`},
		{target: `shoot.s["prod"]`, summary: "Unknown target",
			detail: `The target "shoot.s[\"prod\"]" names shoot.s["prod"], which the landscape does not declare.`},
		{target: `shoot.s["deb"]`, summary: "Unknown target",
			detail: `The target "shoot.s[\"deb\"]" names shoot.s["deb"], which the landscape does not declare. Did you mean shoot.s["dev"]?`},
		{target: "shoot.t[1.5]", summary: "Invalid target",
			detail: `The target "shoot.t[1.5]" is not a block or instance address: an instance key is a string or a whole number. A target is written like a reference, e.g. shoot.local, shoot.local["dev"] or component.helm_release.cert_manager.`},
		{target: "local.x", summary: "Invalid target"},
		{target: "component.thing", summary: "Invalid target"},
		{target: "shoot.s[0].x", summary: "Invalid target"},
		{target: "shoot..s", summary: "Invalid target"},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			got, diags := g.ResolveTarget(tt.target)
			if tt.summary == "" {
				require.False(t, diags.HasErrors(), diags.Error())
				assert.Equal(t, addrs(tt.want...), got)
				return
			}
			require.Len(t, diags, 1)
			assert.Equal(t, tt.summary, diags[0].Summary)
			if tt.detail != "" {
				assert.Equal(t, tt.detail, diags[0].Detail)
			}
		})
	}
}

func TestTargetThenSubgraph(t *testing.T) {
	g := build(t, targetLandscape)
	targets, diags := g.ResolveTarget("shoot.s")
	require.False(t, diags.HasErrors())
	sub, err := g.Subgraph(targets...)
	require.NoError(t, err)
	assert.Equal(t, addrs("garden.g", "seed.a", `shoot.s["dev"]`, `shoot.s["qa"]`), sub.Order())
	assert.Equal(t, addrs(`shoot.s["dev"]`, `shoot.s["qa"]`, "seed.a", "garden.g"), sub.ReverseOrder())
}

// TestResolveTargetOfAPartGroup: the parts a seed renders for a Shoot created through the API
// share the prefix shoot__<project>__<name>__, which names them together.
func TestResolveTargetOfAPartGroup(t *testing.T) {
	part := func(name string) Part {
		return Part{Addr: addrs("seed.a." + name)[0], Parent: "seed.a"}
	}
	g, diags := Build(load(t, targetLandscape), nil, part("seed"), part("shoot__dev__mine__etcd_main"),
		part("shoot__dev__mine__kube_apiserver"), part("shoot__dev__mine2__etcd_main"))
	require.False(t, diags.HasErrors(), diags.Error())
	for target, want := range map[string][]string{
		"seed.a.shoot__dev__mine":                 {"seed.a.shoot__dev__mine__etcd_main", "seed.a.shoot__dev__mine__kube_apiserver"},
		"seed.a.shoot__dev__mine__":               {"seed.a.shoot__dev__mine__etcd_main", "seed.a.shoot__dev__mine__kube_apiserver"},
		"seed.a.shoot__dev__mine__kube_apiserver": {"seed.a.shoot__dev__mine__kube_apiserver"},
		"seed.a.seed":                             {"seed.a.seed"},
	} {
		got, diags := g.ResolveTarget(target)
		require.False(t, diags.HasErrors(), target)
		assert.Equal(t, addrs(want...), got, target)
	}
	_, diags = g.ResolveTarget("seed.a.shoot__dev__min")
	assert.True(t, diags.HasErrors(), "a prefix must end where a name part ends")
}
