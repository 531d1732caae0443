package planner

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/graph"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/rendering"
	"github.com/declarative-gardener/gardener/state"
)

// scopeTargets are the targets evaluation may leave the rest of a fleet out for (config.Scope):
// those of a plan that applies targets and their dependencies. Destroying a target destroys
// its dependents first, which only the whole landscape names.
func scopeTargets(opts Options) []string {
	if opts.Destroy || opts.evaluateAll {
		return nil
	}
	return opts.Targets
}

// EvaluateScoped evaluates the landscape of opts without rendering it, in the scope the plan of opts
// evaluates (config.Scope): what takes the state lock before planning needs no more, and a lock
// taken for an evaluation that left the other shoots out covers only the shards of what it
// planned (state.ShardedOptions.Within).
func EvaluateScoped(opts Options) (*config.Result, hcl.Diagnostics) {
	return config.LoadWith(opts.Dir, opts.Schemas, opts.Inputs, config.Hooks{Targets: scopeTargets(opts)})
}

// independence checks the promise of independent types (schema.Schema.Independent) that a
// targeted plan relies on when it leaves instances out: an instance whose objects need another
// instance's Namespace, CustomResourceDefinition or registration (an implicit edge) refers to
// that instance when it is of an independent type, so that a plan targeted at the first
// evaluates the second. Parts count as their composite. Follows edges do not count: the part
// that follows what a controller creates for a shoot (an extension's installation on the
// shoot's seed) ends its chain, nothing depends on it, so it is never planned as a dependency
// of a targeted shoot; and config.Scope leaves nothing out when a target is not a shoot.
func independence(ev *config.Evaluated, implicit []graph.Edge, rendered map[config.InstanceAddress]*rendering.Rendered) hcl.Diagnostics {
	owner := func(a config.InstanceAddress) config.InstanceAddress {
		for i := 0; i < 8; i++ { // composites nest a few levels at most
			rd := rendered[a]
			if rd == nil || rd.Parent == "" {
				break
			}
			a = rd.Parent
		}
		return a
	}
	var diags hcl.Diagnostics
	reported := map[[2]config.InstanceAddress]bool{}
	// refers memoizes RefersTo by pair of blocks: a block may need many instances of a
	// for_each block, and each answer walks the landscape's references.
	refers := map[[2]config.Address]bool{}
	for _, e := range implicit {
		if e.Kind == graph.Follows {
			continue
		}
		from, to := owner(e.From), owner(e.To)
		toInst, fromInst := ev.Instances[to], ev.Instances[from]
		if from == to || toInst == nil || fromInst == nil || !toInst.Block.Schema.Independent {
			continue
		}
		pair := [2]config.Address{fromInst.Block.Addr, toInst.Block.Addr}
		if _, known := refers[pair]; !known {
			refers[pair] = pair[0] == pair[1] || ev.Landscape.RefersTo(pair[0], pair[1])
		}
		if refers[pair] {
			continue
		}
		if reported[[2]config.InstanceAddress{from, to}] {
			continue
		}
		reported[[2]config.InstanceAddress{from, to}] = true
		r := fromInst.Block.DeclRange
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Dependency without a reference",
			Detail: fmt.Sprintf("%s depends on %s (%s) without referring to it. Each %s is planned on its own when another is targeted, so a dependency on one must be written: add depends_on = [%s] to %s.",
				from, to, e.Reason, toInst.Block.Kind, toInst.Block.Addr, fromInst.Block.Addr),
			Subject: &r,
		})
	}
	return diags
}

// recordedOf lists, per cluster, the objects the state records (applied and pending) of the
// instances in order: what a plan reading by name (plan.Options.ByName) must see to delete what
// those instances no longer render.
func recordedOf(st *state.State, order []config.InstanceAddress) func(cluster string) []object.Ref {
	byCluster := map[string][]object.Ref{}
	if st != nil {
		for _, addr := range order {
			c := st.Components[string(addr)]
			if c == nil {
				continue
			}
			for _, o := range append(append([]state.Object(nil), c.Objects...), c.Pending...) {
				byCluster[o.Cluster] = append(byCluster[o.Cluster], o.Ref())
			}
		}
	}
	return func(cluster string) []object.Ref { return byCluster[cluster] }
}
