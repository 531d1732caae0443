package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diag"
)

// ResolveTarget turns a --target value into instances. A block address (`shoot.local`,
// `component.helm_release.cert_manager`) stands for all the block's instances, none when its
// for_each is empty; an instance address (`shoot.local["dev"]`, `component.manifests.crds[0]`)
// for that instance. Spacing and quoting are those of HCL, so the target is written as a
// reference to it would be. A composite's part (`seed.local.istio`) stands for that part, and a
// group of parts whose names share a prefix ending in "__" for all of them: a seed renders the
// control plane of a Shoot created through the Gardener API as its parts
// shoot__<project>__<name>__<part>, which `seed.local.shoot__dev__mine` names together. An
// unknown target is a diagnostic with a suggestion.
func (g *Graph) ResolveTarget(target string) ([]config.InstanceAddress, hcl.Diagnostics) {
	invalid := func(detail string) hcl.Diagnostics {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid target",
			Detail:   fmt.Sprintf("The target %q is not a block or instance address: %s A target is written like a reference, e.g. shoot.local, shoot.local[\"dev\"] or component.helm_release.cert_manager.", target, detail),
		}}
	}
	if a, err := address.Parse(target); err == nil {
		if parent, isPart := a.Parent(); isPart && g.Has(config.InstanceAddress(a.String())) && g.Has(config.InstanceAddress(parent.String())) {
			return []config.InstanceAddress{config.InstanceAddress(a.String())}, nil // a composite's part
		}
		if parent, isPart := a.Parent(); isPart && g.Has(config.InstanceAddress(parent.String())) {
			var group []config.InstanceAddress
			for _, p := range g.Parts(config.InstanceAddress(parent.String())) {
				if pa, err := address.Parse(string(p)); err == nil && strings.HasPrefix(pa.Part, strings.TrimSuffix(a.Part, "__")+"__") {
					group = append(group, p)
				}
			}
			if len(group) > 0 {
				slices.Sort(group)
				return group, nil // a group of parts: the control plane of a Shoot created through the API
			}
		}
	}
	t, diags := hclsyntax.ParseTraversalAbs([]byte(target), "--target", hcl.InitialPos)
	if diags.HasErrors() {
		return nil, invalid(diags[0].Summary + ".")
	}
	var names []string
	var index hcl.TraverseIndex
	indexed := false
	for i, step := range t {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			names = append(names, s.Name)
		case hcl.TraverseAttr:
			names = append(names, s.Name)
		case hcl.TraverseIndex:
			if i != len(t)-1 {
				return nil, invalid("an instance key must come last.")
			}
			index, indexed = s, true
		default:
			return nil, invalid("it has an unsupported step.")
		}
	}
	want := 2
	if names[0] == "component" {
		want = 3
	}
	if _, ok := kindRank[names[0]]; !ok || len(names) != want {
		return nil, invalid("it names no garden, seed, shoot or component block.")
	}
	block := config.Address(strings.Join(names, "."))
	insts, ok := g.blocks[block]
	if insts == nil {
		insts = []config.InstanceAddress{}
	}
	if !ok {
		return nil, g.unknownTarget(target, string(block), g.blockNames())
	}
	if !indexed {
		return slices.Clone(insts), nil
	}
	var key address.Key
	switch k := index.Key; {
	case k.Type() == cty.String:
		key = address.StringKey(k.AsString())
	case k.Type() == cty.Number && k.AsBigFloat().IsInt():
		i, _ := k.AsBigFloat().Int64()
		key = address.IntKey(int(i))
	default:
		return nil, invalid("an instance key is a string or a whole number.")
	}
	addr := config.InstanceAddress(string(block) + key.String())
	if !slices.Contains(insts, addr) {
		// Suggest by key alone: the block is right, and a typo in a short key would drown in
		// the length of the whole address.
		keys := map[string]string{}
		var known []string
		for _, i := range insts {
			k := instanceKey(i)
			keys[k] = string(i)
			known = append(known, k)
		}
		d := g.unknownTarget(target, string(addr), nil)
		if s := diag.Closest(instanceKey(addr), known); s != "" {
			d[0].Detail += fmt.Sprintf(" Did you mean %s?", keys[s])
		}
		return nil, d
	}
	return []config.InstanceAddress{addr}, nil
}

func (g *Graph) blockNames() []string {
	names := make([]string, 0, len(g.blocks))
	for b := range g.blocks {
		names = append(names, string(b))
	}
	slices.Sort(names)
	return names
}

func (g *Graph) unknownTarget(target, addr string, candidates []string) hcl.Diagnostics {
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Unknown target",
		Detail:   fmt.Sprintf("The target %q names %s, which the landscape does not declare.%s", target, addr, suggestion(addr, candidates)),
	}}
}

// instanceKey is the text between the brackets of an instance address.
func instanceKey(a config.InstanceAddress) string {
	parsed, _ := address.Parse(string(a))
	return parsed.Key.Literal()
}
