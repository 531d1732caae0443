package apply

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/state"
)

// StateRecorder keeps a landscape's state in step with an apply: it writes each component's
// objects as pending before they are written to a cluster, and as owned (with UIDs) once they
// are ready, dropping what was deleted.
//
// Every write stores the whole state, so an apply writes it as few times as it can and never
// makes a component wait for a write it does not need:
//   - IntentAll records the intent of every component of the plan in one write before the first
//     component starts; a component's own Intent then finds nothing new and does not write.
//   - Applied records a component's outcome and returns at once; a background writer stores
//     the outcomes, at most once a second, and Flush stores what is left. Until it is stored the component's objects stay
//     pending in the stored state, so an apply killed meanwhile orphans nothing: the next plan
//     looks for pending objects as for owned ones.
//   - Writes are committed in groups: the changes made while one write is under way are stored
//     together by the next.
//
// Without this an apply of n components wrote the state 2n times one after the other, every
// component waiting for two of them, and at a few hundred components those writes, not the
// clusters, set the pace.
type StateRecorder struct {
	Backend state.Backend
	// Types are the component types by address, recorded with each component.
	Types map[string]string
	// DependsOn are the components' dependencies by address, recorded with each component.
	DependsOn map[string][]string
	// mu guards state, changed, stored, intended, batched, writes and the outcome of the last
	// write.
	mu    sync.Mutex
	state *state.State
	// changed counts the changes made to state; stored is the count the last write included.
	changed, stored uint64
	// intended is, by component, the change that last added to its pending objects: its Intent
	// returns once a write including that change is stored.
	intended map[string]uint64
	// batched are, by component, the pending objects IntentAll added, withdrawn again for
	// components that never start (Withdraw).
	batched map[string][]string
	// lastErr is the outcome of the last write, which every change it included reports.
	lastErr error
	// writing serialises writes; a change waiting for it may find its write done by another.
	// It is taken before mu.
	writing sync.Mutex
	// kick wakes the background writer Applied starts; stop ends it and flushed says it ended.
	kick, stop, flushed chan struct{}
	startOnce, stopOnce sync.Once
	// writes counts the writes, for tests of the grouping.
	writes int
}

// NewStateRecorder records into s (as read from b, under b's lock).
func NewStateRecorder(b state.Backend, s *state.State) *StateRecorder {
	if s.Components == nil {
		s.Components = map[string]*state.Component{}
	}
	return &StateRecorder{
		Backend: b, state: s, Types: map[string]string{}, DependsOn: map[string][]string{},
		intended: map[string]uint64{}, batched: map[string][]string{},
	}
}

// State returns the state as stored, or nil when the last write failed or changes are not stored
// yet (then the stored state differs from the recorder's); callers must not change it.
func (r *StateRecorder) State() *state.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastErr != nil || r.stored < r.changed {
		return nil
	}
	return r.state
}

// Lineage returns the state's lineage: empty until the state's first write gives it one (which
// IntentAll makes before any object is written).
func (r *StateRecorder) Lineage() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state.Lineage
}

// change makes a change to the state and returns its number.
func (r *StateRecorder) change(f func()) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	f()
	r.changed++
	return r.changed
}

// store returns once a write that includes change number seq is stored, writing itself unless
// another caller's write did; the error is that of its own write.
func (r *StateRecorder) store(ctx context.Context, seq uint64) error {
	r.writing.Lock()
	defer r.writing.Unlock()
	r.mu.Lock()
	if r.stored >= seq {
		r.mu.Unlock()
		return nil // another caller's write stored this change (only writes that succeed count)
	}
	included, snapshot := r.changed, shallowCopy(r.state)
	r.mu.Unlock()

	// Changes made while this write is under way go to the copy's original and queue for the
	// next write.
	err := r.Backend.Write(ctx, snapshot)

	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes++
	r.lastErr = err
	if err == nil {
		r.state.FormatVersion, r.state.Lineage, r.state.Serial, r.state.Landscape = snapshot.FormatVersion, snapshot.Lineage, snapshot.Serial, snapshot.Landscape
		r.stored = included // a failed write stores nothing: the next one writes its changes again
	}
	return err
}

// failed returns the error of the last write when it means that another writer stored a
// state meanwhile: components then fail rather than go on applying beside it. Other failures
// (a network blip) are written again by the next write; the objects stay pending meanwhile.
func (r *StateRecorder) failed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if errors.Is(r.lastErr, state.ErrStaleSerial) {
		return r.lastErr
	}
	return nil
}

// backgroundInterval spaces the background writes: each stores the whole state (at 100 shoots
// 120 kB after some 15 ms of encoding and compressing, and a few requests), and what it records
// is safe as pending meanwhile, so an apply spends little on them and groups the outcomes of
// many components into each.
const backgroundInterval = time.Second

// writeInBackground wakes the background writer, starting it on first use.
func (r *StateRecorder) writeInBackground(ctx context.Context) {
	r.startOnce.Do(func() {
		r.kick, r.stop, r.flushed = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
		go r.backgroundWriter(context.WithoutCancel(ctx))
	})
	select {
	case r.kick <- struct{}{}:
	default: // a write is due already
	}
}

// backgroundWriter stores what changed whenever kicked, at most once per backgroundInterval,
// until stopped; a failed write is tried again after the interval. Flush reports the outcome.
func (r *StateRecorder) backgroundWriter(ctx context.Context) {
	defer close(r.flushed)
	for {
		select {
		case <-r.kick:
		case <-r.stop:
			return
		}
		r.mu.Lock()
		seq := r.changed
		r.mu.Unlock()
		if err := r.store(ctx, seq); err != nil {
			select {
			case r.kick <- struct{}{}: // try again after the interval
			default:
			}
		}
		select {
		case <-time.After(backgroundInterval):
		case <-r.stop:
			return
		}
	}
}

// Flush stops the background writer and stores what it has not (up to flushAttempts times),
// returning the error of the last write, which includes every change made before Flush.
func (r *StateRecorder) Flush(ctx context.Context) error {
	r.stopOnce.Do(func() {
		if r.stop != nil {
			close(r.stop)
			<-r.flushed
		}
	})
	r.mu.Lock()
	seq := r.changed
	r.mu.Unlock()
	for attempt := 1; ; attempt++ {
		err := r.store(ctx, seq)
		if err == nil || attempt == flushAttempts || errors.Is(err, state.ErrStaleSerial) {
			return err
		}
		select {
		case <-time.After(time.Duration(attempt) * backgroundInterval):
		case <-ctx.Done():
			return err
		}
	}
}

// flushAttempts is how often Flush tries to store what the apply did before it gives up.
const flushAttempts = 3

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

// ComponentIntent is what one component of a plan is about to write and delete.
type ComponentIntent struct {
	Component string
	Objects   []*plan.Desired
	Deletes   []*plan.ObjectChange
}

// Retire records the plan's retired instances (whose lifetime ended) in the state and drops the
// records it forgets; the next write (IntentAll's) stores them before any of their objects is
// deleted, so that from then on plans do not create them again.
func (r *StateRecorder) Retire(retired []plan.Retirement, forget []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	next := maps.Clone(r.state.Retired) // a new map: written copies share the old one
	if next == nil {
		next = map[string]*state.Retirement{}
	}
	for _, rt := range retired {
		next[rt.Address] = &state.Retirement{Ended: rt.Ended, Reason: rt.Reason, EndedBy: rt.EndedBy}
	}
	for _, addr := range forget {
		delete(next, addr)
	}
	if len(next) == 0 {
		next = nil
	}
	r.state.Retired = next
}

// IntentAll records the intent of many components in one write (see Intent).
func (r *StateRecorder) IntentAll(ctx context.Context, intents []ComponentIntent) error {
	r.mu.Lock()
	r.changed++
	seq := r.changed
	for _, in := range intents {
		if added := r.intend(in.Component, in.Objects, in.Deletes); len(added) > 0 {
			r.batched[in.Component] = added
			r.intended[in.Component] = seq
		}
	}
	r.mu.Unlock()
	return r.store(ctx, seq)
}

// Withdraw drops the pending objects IntentAll added for a component that never started (its
// dependencies failed or the apply was interrupted): they were not written, and the state
// should not remember them. What was pending before stays.
func (r *StateRecorder) Withdraw(component string) {
	r.change(func() {
		added := r.batched[component]
		delete(r.batched, component)
		c := r.state.Components[component]
		if c == nil || len(added) == 0 {
			return
		}
		drop := map[string]bool{}
		for _, k := range added {
			drop[k] = true
		}
		var keep []state.Object
		for _, o := range c.Pending {
			if !drop[o.Cluster+"/"+o.Ref().String()] {
				keep = append(keep, o)
			}
		}
		c.Pending = keep
		if len(c.Objects) == 0 && len(c.Pending) == 0 {
			delete(r.state.Components, component)
		}
	})
}

// Intent records a component's objects to write and to delete as pending, in addition to what
// an earlier interrupted apply left pending: nothing is dropped until Applied resolves it. It
// returns once they are stored, without a write of its own when IntentAll recorded them.
func (r *StateRecorder) Intent(ctx context.Context, component string, objs []*plan.Desired, deletes []*plan.ObjectChange) error {
	if err := r.failed(); err != nil {
		return err
	}
	r.mu.Lock()
	if added := r.intend(component, objs, deletes); len(added) > 0 {
		r.changed++
		r.intended[component] = r.changed
	}
	seq := r.intended[component]
	r.mu.Unlock()
	if seq == 0 {
		return nil // nothing to keep track of
	}
	return r.store(ctx, seq)
}

// intend adds the objects the component neither owns nor has pending to its pending ones and
// returns the keys of those it added.
func (r *StateRecorder) intend(component string, objs []*plan.Desired, deletes []*plan.ObjectChange) []string {
	c := r.component(component)
	// What the component owns is tracked already; what is pending stays pending.
	seen := map[string]bool{}
	for _, list := range [][]state.Object{c.Objects, c.Pending} {
		for _, o := range list {
			seen[o.Cluster+"/"+o.Ref().String()] = true
		}
	}
	var added []string
	add := func(o state.Object) {
		if k := o.Cluster + "/" + o.Ref().String(); !seen[k] {
			seen[k] = true
			c.Pending = append(c.Pending, o)
			added = append(added, k)
		}
	}
	for _, d := range objs {
		add(toStateObject(d.Cluster, d.Object.GetAPIVersion(), object.RefOf(d.Object), "", sensitiveIdentityOf(d.Object)))
	}
	for _, o := range deletes {
		add(toStateObject(o.Cluster, o.APIVersion, o.Ref, "", plan.SensitiveIdentity(o.Ref, o.Shown())))
	}
	return added
}

// Applied records a component's objects as owned and forgets the deleted ones. It returns at
// once and stores the change in the background (Flush waits for it): until then the objects stay
// pending in the stored state, which is enough to find them again. It fails only when another
// writer stored a state meanwhile.
func (r *StateRecorder) Applied(ctx context.Context, component string, applied []AppliedObject, deleted []plan.ObjectChange) error {
	if err := r.failed(); err != nil {
		return err
	}
	r.change(func() {
		delete(r.batched, component)
		r.record(component, applied, deleted)
	})
	r.writeInBackground(ctx)
	return nil
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
		o := toStateObject(a.Cluster, a.Object.GetAPIVersion(), object.RefOf(a.Object), string(a.Object.GetUID()), sensitiveIdentityOf(a.Object))
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

// toStateObject is the state's record of an object; sensitive says which parts of ref depend on
// sensitive values, so that printing the state hides them (state.Object.Shown).
func toStateObject(cluster, apiVersion string, ref object.Ref, uid, sensitive string) state.Object {
	version := apiVersion
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		version = apiVersion[i+1:]
	}
	return state.Object{Cluster: cluster, Group: ref.Group, Version: version, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name, UID: uid, Sensitive: sensitive}
}

// sensitiveIdentityOf is what the object's plan.SensitiveIdentityAnnotation says.
func sensitiveIdentityOf(obj interface{ GetAnnotations() map[string]string }) string {
	return obj.GetAnnotations()[plan.SensitiveIdentityAnnotation]
}

// combined is one hash over a component's object hashes: it changes when any object's does.
func combined(hashes []string) string {
	sort.Strings(hashes)
	sum := sha256.Sum256([]byte(strings.Join(hashes, ",")))
	return hex.EncodeToString(sum[:])
}
