package daemon

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/inventory"
)

// Triggers that arrive while a cycle is pending merge: instances add up, and a trigger of the
// whole landscape wins over any of instances, before or after it.
func TestTriggersMerge(t *testing.T) {
	tests := []struct {
		name    string
		added   []string
		targets []string
		ok      bool
	}{
		{name: "nothing asked for", ok: false},
		{name: "one shoot", added: []string{`shoot.x["a"]`}, targets: []string{`shoot.x["a"]`}, ok: true},
		{name: "shoots add up, sorted, once each", added: []string{`shoot.x["b"]`, `shoot.x["a"]`, `shoot.x["b"]`}, targets: []string{`shoot.x["a"]`, `shoot.x["b"]`}, ok: true},
		{name: "the whole landscape wins after", added: []string{`shoot.x["a"]`, ""}, ok: true},
		{name: "the whole landscape wins before", added: []string{"", `shoot.x["a"]`}, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr triggers
			for _, a := range tt.added {
				tr.add(a)
			}
			targets, ok := tr.take()
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.targets, targets)
			_, again := tr.take()
			assert.False(t, again, "taking empties the triggers")
		})
	}
}

// Only a daemon whose last cycle left the clusters matching the landscape plans shoots alone;
// after a failure or a plan waiting for approval, for the lock or for another shard the next
// cycle covers the whole landscape.
func TestTargetedCyclesFollowSettledOnes(t *testing.T) {
	for phase, targeted := range map[string]bool{
		PhaseApplied: true, PhaseUpToDate: true,
		PhaseFailed: false, PhaseWaitingForApproval: false, PhaseWaitingForLock: false, PhaseWaitingForShard: false, PhaseInvalid: false, PhasePlanned: false,
	} {
		t.Run(phase, func(t *testing.T) {
			d := New(Options{})
			d.last.Phase = phase
			d.TriggerInstance(`shoot.x["a"]`)
			targets, ok := d.takeTriggers()
			assert.True(t, ok)
			if targeted {
				assert.Equal(t, []string{`shoot.x["a"]`}, targets)
			} else {
				assert.Nil(t, targets)
			}
		})
	}
}

// An object is attributed to the instance of an independent type (a shoot) that renders it, by
// the inventory marks the engine stamps on it: a part's object to its shoot. Objects of other
// blocks, of other landscapes, without marks, or of an instance the landscape no longer
// declares concern the whole landscape.
func TestFleetAttributesObjectsToTheirShoot(t *testing.T) {
	f := &fleet{landscape: "land", fingerprint: "v1", instances: map[string]bool{`shoot.dev["a"]`: true, "shoot.single": true}}
	object := func(landscape, component string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x", "namespace": "y"}}}
		if landscape != "" {
			u.SetLabels(map[string]string{inventory.LandscapeLabel: landscape})
		}
		if component != "" {
			u.SetAnnotations(map[string]string{inventory.ComponentAnnotation: component})
		}
		return u
	}
	tests := []struct {
		name string
		obj  *unstructured.Unstructured
		want string
	}{
		{"the shoot's own object (its Shoot)", object("land", `shoot.dev["a"]`), `shoot.dev["a"]`},
		{"an object of a part of the shoot", object("land", `shoot.dev["a"].kube_apiserver`), `shoot.dev["a"]`},
		{"a shoot block without for_each", object("land", "shoot.single.etcd_main"), "shoot.single"},
		{"a component", object("land", "component.manifests.settings"), ""},
		{"a seed", object("land", "seed.local.gardenlet"), ""},
		{"a shoot the landscape does not declare", object("land", `shoot.dev["gone"]`), ""},
		{"another landscape's shoot", object("other", `shoot.dev["a"]`), ""},
		{"no marks", object("", ""), ""},
		{"a component annotation that is no address", object("land", "not an address"), ""},
		{"no object", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, f.instanceOf(tt.obj))
		})
	}
	assert.True(t, f.current("v1"))
	assert.False(t, f.current("v2"), "a landscape changed since is not known")
	assert.Empty(t, (&fleet{}).instanceOf(object("land", `shoot.dev["a"]`)), "nothing is attributed before a cycle evaluated the landscape")
}
