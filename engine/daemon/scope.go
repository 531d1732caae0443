package daemon

import (
	"maps"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/planner"
)

// Scopes of a cycle, as the cycle metrics name them: the whole landscape (a shard's instances,
// sharded), or only the instances of independent types (shoots) its triggers named.
const (
	ScopeFull     = "full"
	ScopeTargeted = "targeted"
)

// triggers are what asked for the next cycle: the whole landscape, or only instances of an
// independent type (schema.Schema.Independent: the shoots of a fleet, each reconciled on its own
// as gardenlet reconciles each shoot). Triggers that arrive while a cycle is pending merge; one
// for the whole landscape wins.
type triggers struct {
	requested bool
	whole     bool
	instances map[string]bool
}

// add records a trigger of instance, or of the whole landscape for "".
func (t *triggers) add(instance string) {
	t.requested = true
	if instance == "" || t.whole {
		t.whole, t.instances = true, nil
		return
	}
	if t.instances == nil {
		t.instances = map[string]bool{}
	}
	t.instances[instance] = true
}

// take empties the triggers and returns what they asked for: ok is false when nothing was asked
// for since the last take, instances nil for the whole landscape.
func (t *triggers) take() (instances []string, ok bool) {
	if !t.requested {
		return nil, false
	}
	if !t.whole {
		instances = slices.Sorted(maps.Keys(t.instances))
	}
	*t = triggers{}
	return instances, true
}

// fleet is what the daemon knows of the landscape's instances of independent types, from its
// last cycle that evaluated every instance: which owned objects a change can be attributed to
// one instance by. Until a cycle has evaluated the landscape every change triggers a full cycle.
type fleet struct {
	mu sync.Mutex
	// landscape names the landscape whose inventory label the objects carry.
	landscape string
	// fingerprint is the version of the landscape directory the instances were evaluated from.
	fingerprint string
	// instances are the instance addresses of independent types.
	instances map[string]bool
}

// learn records the instances of independent types of an outcome that evaluated every
// instance; an outcome that left instances out (a targeted plan) teaches nothing.
func (f *fleet) learn(out *planner.Outcome, fingerprint string) {
	if out == nil || out.Load == nil || out.Load.Evaluated == nil || out.Load.Landscape == nil || out.Load.Evaluated.Skipped > 0 {
		return
	}
	instances := map[string]bool{}
	for addr, inst := range out.Load.Evaluated.Instances {
		if inst.Block != nil && inst.Block.Schema != nil && inst.Block.Schema.Independent {
			instances[string(addr)] = true
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.landscape, f.fingerprint, f.instances = out.Load.Landscape.Name, fingerprint, instances
}

// current reports whether the fleet was learnt from the landscape version fingerprint.
func (f *fleet) current(fingerprint string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.instances != nil && f.fingerprint == fingerprint
}

// instanceOf is the instance of an independent type that renders u (a shoot, for its parts'
// objects too), read from the inventory marks the engine stamps on every object it applies; ""
// when u is not the landscape's, or its component is not an instance of an independent type the
// landscape declares: a change of such an object concerns the whole landscape.
func (f *fleet) instanceOf(u *unstructured.Unstructured) string {
	if u == nil {
		return ""
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.instances == nil || u.GetLabels()[inventory.LandscapeLabel] != f.landscape {
		return ""
	}
	a, err := address.Parse(inventory.Component(u))
	if err != nil {
		return ""
	}
	if parent, isPart := a.Parent(); isPart {
		a = parent
	}
	if instance := a.String(); f.instances[instance] {
		return instance
	}
	return ""
}
