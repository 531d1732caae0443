// Package shard splits a landscape into the shards the daemon's replicas reconcile on their own:
// one per seed (the seed instance, the shoots whose seed is that seed, and their parts) and the
// garden shard (everything else: the garden, extensions, projects, components). The split is a
// function of the evaluated landscape alone, so that every replica and the CLI agree on it.
package shard

import (
	"maps"
	"slices"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/state"
)

// Garden is the garden shard's name: the landscape's own state.
const Garden = state.GardenShard

// Assignment is which shard each instance of a landscape belongs to.
type Assignment struct {
	// of is the shard of every declared instance, by instance address.
	of map[string]string
	// instances are the instances of each shard, sorted.
	instances map[string][]string
}

// BySeed assigns each seed instance, and each shoot whose seed is that instance, to the seed's
// shard, named by the seed's instance address (`seed.a`, `seed.all["x"]`); a shoot without seed
// (gardener-scheduler picks one) and everything that is no seed or shoot belong to the garden
// shard. A shoot's seed is the seed instance whose name output its seed attribute carries.
func BySeed(ev *config.Evaluated) *Assignment {
	if ev == nil {
		return By(nil, nil)
	}
	seeds := map[string]string{} // seed name output -> instance address
	for addr, inst := range ev.Instances {
		if inst.Block != nil && inst.Block.Kind == schema.KindSeed {
			if name, ok := stringAttr(inst.Value, "name"); ok {
				seeds[name] = string(addr)
			}
		}
	}
	return By(ev, func(inst *config.Instance) string {
		if inst.Block == nil {
			return Garden
		}
		switch inst.Block.Kind {
		case schema.KindSeed:
			return string(inst.Addr)
		case schema.KindShoot:
			if name, ok := stringAttr(attr(inst.Config, "seed"), "name"); ok && seeds[name] != "" {
				return seeds[name]
			}
		}
		return Garden
	})
}

// By assigns every instance of ev to the shard of returns (Garden for ""), for other splits
// than BySeed.
func By(ev *config.Evaluated, of func(*config.Instance) string) *Assignment {
	a := &Assignment{of: map[string]string{}, instances: map[string][]string{}}
	if ev == nil {
		return a
	}
	for addr, inst := range ev.Instances {
		shard := of(inst)
		a.of[string(addr)] = shard
		a.instances[shard] = append(a.instances[shard], string(addr))
	}
	for _, list := range a.instances {
		slices.Sort(list)
	}
	return a
}

// Place returns the shard of an instance or part address (a part belongs to its composite's
// shard); ok is false for an address the landscape does not declare. It is a state.Placement.
func (a *Assignment) Place(addr string) (string, bool) {
	if shard, ok := a.of[addr]; ok {
		return shard, true
	}
	parsed, err := address.Parse(addr)
	if err != nil {
		return "", false
	}
	if parent, ok := parsed.Parent(); ok {
		shard, ok := a.of[parent.String()]
		return shard, ok
	}
	return "", false
}

// Shards returns the seed shards, sorted; the garden shard is always there besides.
func (a *Assignment) Shards() []string {
	var out []string
	for _, s := range slices.Sorted(maps.Keys(a.instances)) {
		if s != Garden {
			out = append(out, s)
		}
	}
	return out
}

// Instances returns the instances of shard, sorted.
func (a *Assignment) Instances(shard string) []string {
	return slices.Clone(a.instances[shard])
}

// attr returns v's attribute name, or a null value when v has none.
func attr(v cty.Value, name string) cty.Value {
	if v == cty.NilVal {
		return cty.NilVal
	}
	v, _ = v.UnmarkDeep()
	if !v.IsKnown() || v.IsNull() || !(v.Type().IsObjectType() && v.Type().HasAttribute(name)) {
		return cty.NilVal
	}
	return v.GetAttr(name)
}

// stringAttr returns v's known string attribute name.
func stringAttr(v cty.Value, name string) (string, bool) {
	s := attr(v, name)
	if s == cty.NilVal || !s.IsKnown() || s.IsNull() || s.Type() != cty.String {
		return "", false
	}
	return s.AsString(), true
}
