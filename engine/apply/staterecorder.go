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
// are ready, dropping what was deleted.
//
// Components run in parallel and every write stores the whole state, so writes are committed in
// groups: a change returns once a write that includes it is stored, and the changes made while
// one write is under way are stored together by the next. Without grouping an apply of n
// components wrote the state 2n times one after the other, and at a few hundred components
// those writes, not the clusters, set the pace.
type StateRecorder struct {
	Backend state.Backend
	// Types are the component types by address, recorded with each component.
	Types map[string]string
	// DependsOn are the components' dependencies by address, recorded with each component.
	DependsOn map[string][]string
	// mu guards state, changed, stored, writes and the outcome of the last write.
	mu    sync.Mutex
	state *state.State
	// changed counts the changes made to state; stored is the count the last write included.
	changed, stored uint64
	// lastErr is the outcome of the last write, which every change it included reports.
	lastErr error
	// writing serialises writes; a change waiting for it may find its write done by another.
	// It is taken before mu.
	writing sync.Mutex
	// writes counts the writes, for tests of the grouping.
	writes int
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

// commit makes a change to the state (under r.mu) and returns once a write that includes it
// is stored, with that write's error. The change is made in either case: the recorder's state is
// what the apply did, whether or not the backend has it yet.
func (r *StateRecorder) commit(ctx context.Context, change func()) error {
	r.mu.Lock()
	change()
	r.changed++
	mine := r.changed
	r.mu.Unlock()

	r.writing.Lock()
	defer r.writing.Unlock()
	r.mu.Lock()
	if r.stored >= mine {
		err := r.lastErr // another caller's write included this change
		r.mu.Unlock()
		return err
	}
	included, snapshot := r.changed, shallowCopy(r.state)
	r.mu.Unlock()

	// Changes made while this write is under way go to the copy's original and queue for the
	// next write.
	err := r.Backend.Write(ctx, snapshot)

	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes++
	if err != nil {
		r.writeFailed = true
	} else {
		r.state.FormatVersion, r.state.Lineage, r.state.Serial, r.state.Landscape = snapshot.FormatVersion, snapshot.Lineage, snapshot.Serial, snapshot.Landscape
	}
	r.stored, r.lastErr = included, err
	return err
}

// shallowCopy copies s and its components, sharing what the recorder never changes in place:
// it replaces a component's slices rather than writing to them (appending to Pending writes past
// the copy's length only), so the copy stays as it was while the original moves on.
func shallowCopy(s *state.State) *state.State {
	c := *s
	c.Components = make(map[string]*state.Component, len(s.Components))
	for addr, comp := range s.Components {
		cc := *comp
		c.Components[addr] = &cc
	}
	return &c
}

// Intent records a component's objects to write and to delete as pending, in addition to what
// an earlier interrupted apply left pending: nothing is dropped until Applied resolves it.
func (r *StateRecorder) Intent(ctx context.Context, component string, objs []*plan.Desired, deletes []*plan.ObjectChange) error {
	return r.commit(ctx, func() { r.intend(component, objs, deletes) })
}

func (r *StateRecorder) intend(component string, objs []*plan.Desired, deletes []*plan.ObjectChange) {
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
}

// Applied records a component's objects as owned and forgets the deleted ones.
func (r *StateRecorder) Applied(ctx context.Context, component string, applied []AppliedObject, deleted []plan.ObjectChange) error {
	return r.commit(ctx, func() { r.record(component, applied, deleted) })
}

func (r *StateRecorder) record(component string, applied []AppliedObject, deleted []plan.ObjectChange) {
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
