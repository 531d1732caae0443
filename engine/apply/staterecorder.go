package apply

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"sync"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/state"
)

// StateRecorder keeps a landscape's state in step with an apply: it writes each component's
// objects as pending before they are written to a cluster, and as owned (with UIDs) once they
// are ready, dropping what was deleted. Components run in parallel; writes are serialised.
type StateRecorder struct {
	Backend state.Backend
	// Types are the component types by address, recorded with each component.
	Types map[string]string
	// DependsOn are the components' dependencies by address, recorded with each component.
	DependsOn map[string][]string
	mu        sync.Mutex
	state     *state.State
	// writeFailed is set once a write failed.
	writeFailed bool
}

// NewStateRecorder records into s (as read from b, under b's lock).
func NewStateRecorder(b state.Backend, s *state.State) *StateRecorder {
	if s.Components == nil {
		s.Components = map[string]*state.Component{}
	}
	return &StateRecorder{Backend: b, state: s, Types: map[string]string{}, DependsOn: map[string][]string{}}
}

// State returns the state as stored by the last write, or nil when a write failed (then the
// stored state may differ from the recorder's); callers must not change it.
func (r *StateRecorder) State() *state.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writeFailed {
		return nil
	}
	return r.state
}

// write stores the state; the caller holds r.mu.
func (r *StateRecorder) write(ctx context.Context) error {
	err := r.Backend.Write(ctx, r.state)
	if err != nil {
		r.writeFailed = true
	}
	return err
}

// Intent records a component's objects to write and to delete as pending, in addition to what
// an earlier interrupted apply left pending: nothing is dropped until Applied resolves it.
func (r *StateRecorder) Intent(ctx context.Context, component string, objs []*plan.Desired, deletes []*plan.ObjectChange) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.component(component)
	seen := map[string]bool{}
	for _, o := range c.Pending {
		seen[o.Cluster+"/"+o.Ref().String()] = true
	}
	add := func(o state.Object) {
		if k := o.Cluster + "/" + o.Ref().String(); !seen[k] {
			seen[k] = true
			c.Pending = append(c.Pending, o)
		}
	}
	for _, d := range objs {
		add(toStateObject(d.Cluster, d.Object.GetAPIVersion(), object.RefOf(d.Object), ""))
	}
	for _, o := range deletes {
		add(toStateObject(o.Cluster, o.APIVersion, o.Ref, ""))
	}
	return r.write(ctx)
}

// Applied records a component's objects as owned and forgets the deleted ones.
func (r *StateRecorder) Applied(ctx context.Context, component string, applied []AppliedObject, deleted []plan.ObjectChange) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.component(component)
	gone := map[string]bool{}
	for _, d := range deleted {
		gone[d.Cluster+"/"+d.Ref.String()] = true
	}
	var objs []state.Object
	var hashes []string
	seen := map[string]bool{}
	for _, a := range applied {
		o := toStateObject(a.Cluster, a.Object.GetAPIVersion(), object.RefOf(a.Object), string(a.Object.GetUID()))
		seen[a.Cluster+"/"+o.Ref().String()] = true
		objs = append(objs, o)
		hashes = append(hashes, inventory.AppliedHash(a.Object))
	}
	c.ConfigHash = combined(hashes)
	// Objects recorded before (owned or pending) that were neither applied now nor deleted stay
	// recorded: they may still exist, and only the state keeps them from being orphaned.
	for _, o := range append(append([]state.Object(nil), c.Objects...), c.Pending...) {
		k := o.Cluster + "/" + o.Ref().String()
		if !seen[k] && !gone[k] {
			seen[k] = true
			objs = append(objs, o)
		}
	}
	c.Objects, c.Pending = objs, nil
	if len(c.Objects) == 0 {
		delete(r.state.Components, component)
	}
	return r.write(ctx)
}

func (r *StateRecorder) component(addr string) *state.Component {
	c := r.state.Components[addr]
	if c == nil {
		c = &state.Component{Address: addr}
		r.state.Components[addr] = c
	}
	if t := r.Types[addr]; t != "" {
		c.Type = t
	}
	if deps, ok := r.DependsOn[addr]; ok {
		c.DependsOn = deps
	}
	return c
}

func toStateObject(cluster, apiVersion string, ref object.Ref, uid string) state.Object {
	version := apiVersion
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		version = apiVersion[i+1:]
	}
	return state.Object{Cluster: cluster, Group: ref.Group, Version: version, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name, UID: uid}
}

// combined is one hash over a component's object hashes: it changes when any object's does.
func combined(hashes []string) string {
	sort.Strings(hashes)
	sum := sha256.Sum256([]byte(strings.Join(hashes, ",")))
	return hex.EncodeToString(sum[:])
}
