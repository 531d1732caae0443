package state

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Placement says which shard the landscape assigns a component instance to (a seed, its shoots
// and their parts to the seed's shard, everything else to GardenShard); ok is false for an
// address the landscape does not declare (a removed block), which stays in the shard that
// records it.
type Placement func(address string) (shard string, ok bool)

// ShardedOptions configure a sharded backend.
type ShardedOptions struct {
	// Place assigns components to shards.
	Place Placement
	// Shards are the shards the landscape assigns anything to besides GardenShard, sorted: a
	// writer of every shard locks them too, so that it never writes beside a shard's first
	// writer.
	Shards []string
	// Home, when set, makes the backend a shard's own (a daemon replica leading that shard):
	// it locks and writes only Home, reads Home and, read-only, GardenShard (what the shard
	// depends on), and hands the components the landscape assigns to another shard to that
	// shard. Without Home the backend is every shard's (the CLI): it locks, reads and writes
	// all of them, and a landscape none of whose shards has a state keeps its one state as it is.
	Home string
	// OwnHome says that Home is set; GardenShard is "" and may be a home too.
	OwnHome bool
	// Within, when not nil, limits a backend of every shard (no Home) to GardenShard and these
	// shards: a plan targeted at a few shoots reads, locks and writes the shards their seeds
	// own and the garden shard, never the others, so that one shoot's apply costs the same in
	// a landscape of 10 or 10,000 and never waits on another seed's writer.
	Within []string
}

// NewSharded returns a backend that keeps a landscape's state in the shards of store: reads
// merge the shards' components into one State, writes store each component in the shard that
// owns it, and only the shards whose content changed. All shards share the landscape's lineage;
// each has its own serial, and the merged State's serial is their sum, which grows with every
// write of any shard.
func NewSharded(store ShardStore, opts ShardedOptions) Backend {
	return &sharded{store: store, opts: opts, views: map[int64]*shardView{}}
}

type sharded struct {
	store ShardStore
	opts  ShardedOptions

	mu sync.Mutex
	// views are what this backend read or wrote, by the merged serial it returned: a Write is
	// checked shard by shard against the serials of the state it was given.
	views map[int64]*shardView
	// latest is the merged serial of the last view.
	latest int64
}

// shardView is one merged state's provenance.
type shardView struct {
	// sharded is false for a landscape with no shard states (all shards' backend only).
	sharded bool
	// serials are the serials of the shards read (0: no state), lineages their lineages.
	serials  map[string]int64
	lineages map[string]string
	// from is the shard each component was read from.
	from map[string]string
	// digests are the shards' contents as read or written, so that unchanged shards are not
	// written again.
	digests map[string]string
}

func (v *shardView) clone() *shardView {
	return &shardView{sharded: v.sharded, serials: maps.Clone(v.serials), lineages: maps.Clone(v.lineages), from: maps.Clone(v.from), digests: maps.Clone(v.digests)}
}

func (v *shardView) sum() int64 {
	var n int64
	for _, s := range v.serials {
		n += s
	}
	return n
}

// readSet is the shards a read covers, GardenShard first.
func (b *sharded) readSet(ctx context.Context) (shards []string, sharded bool, err error) {
	if b.opts.OwnHome {
		if b.opts.Home == GardenShard {
			return []string{GardenShard}, true, nil
		}
		return []string{GardenShard, b.opts.Home}, true, nil
	}
	found, err := b.store.Shards(ctx)
	if err != nil {
		return nil, false, err
	}
	sharded = len(found) > 0
	return append([]string{GardenShard}, b.within(found)...), sharded, nil
}

// within keeps the shards of Within (all when Within is nil), GardenShard aside.
func (b *sharded) within(shards []string) []string {
	if b.opts.Within == nil {
		return shards
	}
	return slices.DeleteFunc(slices.Clone(shards), func(s string) bool { return !slices.Contains(b.opts.Within, s) })
}

// owner is the shard a component belongs to: the one the landscape assigns, else the one it was
// read from, else the writer's (a shard's own backend's home, else GardenShard).
func (b *sharded) owner(addr string, from map[string]string) string {
	if b.opts.Place != nil {
		if shard, ok := b.opts.Place(addr); ok {
			return shard
		}
	}
	if shard, ok := from[addr]; ok {
		return shard
	}
	if b.opts.OwnHome {
		return b.opts.Home
	}
	return GardenShard
}

func (b *sharded) Read(ctx context.Context) (*State, error) {
	shards, isSharded, err := b.readSet(ctx)
	if err != nil {
		return nil, err
	}
	view := &shardView{sharded: isSharded, serials: map[string]int64{}, lineages: map[string]string{}, from: map[string]string{}, digests: map[string]string{}}
	if !isSharded {
		st, err := b.store.Shard(GardenShard).Read(ctx)
		if err != nil {
			return nil, err
		}
		view.serials[GardenShard], view.lineages[GardenShard] = st.Serial, st.Lineage
		b.remember(st.Serial, view)
		return st, nil
	}
	var merged *State
	for _, shard := range shards {
		st, err := b.store.Shard(shard).Read(ctx)
		if err != nil {
			return nil, err
		}
		view.serials[shard], view.lineages[shard] = st.Serial, st.Lineage
		view.digests[shard] = digest(st)
		if merged == nil {
			merged = Empty(st.Landscape)
			merged.Outputs = st.Outputs
		}
		switch {
		case st.Lineage == "":
		case merged.Lineage == "":
			merged.Lineage = st.Lineage
		case merged.Lineage != st.Lineage:
			return nil, fmt.Errorf("state shard %q: %w: lineage %s, the other shards' %s; it belongs to another landscape or an earlier incarnation of this one", shard, ErrLineageMismatch, st.Lineage, merged.Lineage)
		}
		for addr, c := range st.Components {
			if prev, ok := view.from[addr]; ok && !b.prefer(addr, shard, prev) {
				continue
			}
			merged.Components[addr] = c
			view.from[addr] = shard
		}
		for addr, r := range st.Retired {
			if merged.Retired == nil {
				merged.Retired = map[string]*Retirement{}
			}
			if _, ok := merged.Retired[addr]; !ok || b.owner(addr, nil) == shard {
				merged.Retired[addr] = r
			}
		}
	}
	merged.Serial = view.sum()
	b.remember(merged.Serial, view)
	return merged, nil
}

// prefer reports whether a component recorded by two shards is taken from shard rather than
// prev: from the shard the landscape assigns it to, else from a seed shard (a component handed
// to a shard is written there before it leaves the one it came from).
func (b *sharded) prefer(addr, shard, prev string) bool {
	if b.opts.Place != nil {
		if owner, ok := b.opts.Place(addr); ok {
			return owner == shard
		}
	}
	return prev == GardenShard
}

func (b *sharded) remember(serial int64, v *shardView) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.views[serial] = v
	b.latest = max(b.latest, serial)
}

// view returns the provenance of the state with the merged serial, or the latest one for a
// state this backend did not return and that is not older (the shards' own checks then
// decide); nil when there is none.
func (b *sharded) view(serial int64) (*shardView, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if v, ok := b.views[serial]; ok {
		return v.clone(), nil
	}
	if serial < b.latest {
		return nil, fmt.Errorf("%w: the shards were written up to serial %d since this state (serial %d) was read; read it and try again", ErrStaleSerial, b.latest, serial)
	}
	if v, ok := b.views[b.latest]; ok {
		return v.clone(), nil
	}
	return nil, nil
}

func (b *sharded) Write(ctx context.Context, s *State) error {
	v, err := b.view(s.Serial)
	if err == nil && v == nil {
		// Written without a read: read the shards for their serials.
		if _, err := b.Read(ctx); err != nil {
			return err
		}
		v, err = b.view(s.Serial)
	}
	if err != nil {
		return err
	}
	if !v.sharded {
		return b.writeOne(ctx, s, v)
	}
	lineage := s.Lineage
	if lineage == "" {
		stored := slices.ContainsFunc(slices.Collect(maps.Values(v.lineages)), func(l string) bool { return l != "" })
		switch {
		case b.opts.OwnHome && b.opts.Home != GardenShard && v.lineages[GardenShard] == "":
			return fmt.Errorf("state shard %q: the landscape's own state (the garden shard) has not been written yet; a seed's shard is written after it", b.opts.Home)
		case stored:
			return fmt.Errorf("%w: a state (lineage %s) was created meanwhile; read it and try again", ErrStaleSerial, firstLineage(v.lineages))
		default:
			lineage = newUUID() // the first write of any shard: every shard shares it
		}
	}
	contents, handover := b.split(s, v)
	for _, target := range slices.Sorted(maps.Keys(handover)) {
		if err := b.handOver(ctx, target, lineage, handover[target]); err != nil {
			// The shard keeps them until a later write hands them over.
			for addr, c := range handover[target] {
				contents[b.opts.Home][addr] = c
			}
			continue
		}
		for addr := range handover[target] {
			v.from[addr] = target
		}
	}
	written := false
	order := slices.Sorted(maps.Keys(contents))
	// Seed shards first, the garden shard last: a component moving out of the garden shard is
	// stored in its new shard before it leaves the old one.
	if i := slices.Index(order, GardenShard); i >= 0 {
		order = append(append(order[:i:i], order[i+1:]...), GardenShard)
	}
	for i, shard := range order {
		st := &State{Landscape: s.Landscape, Lineage: lineage, Serial: v.serials[shard], Components: contents[shard]}
		for addr, r := range s.Retired {
			if b.owner(addr, v.from) == shard {
				if st.Retired == nil {
					st.Retired = map[string]*Retirement{}
				}
				st.Retired[addr] = r
			}
		}
		if shard == GardenShard {
			st.Outputs = s.Outputs
		}
		d := digest(st)
		last := i == len(order)-1
		if d == v.digests[shard] && v.serials[shard] > 0 && !(last && !written) {
			continue
		}
		if err := b.store.Shard(shard).Write(ctx, st); err != nil {
			if written {
				// What was written stays written: the state this backend returned last knows it.
				b.remember(s.Serial, v)
			}
			return shardError(shard, err)
		}
		written = true
		v.serials[shard], v.lineages[shard], v.digests[shard] = st.Serial, st.Lineage, digest(st)
		for addr := range st.Components {
			v.from[addr] = shard
		}
	}
	sum := v.sum()
	b.remember(sum, v)
	s.FormatVersion, s.Lineage, s.Serial = FormatVersion, lineage, sum
	return nil
}

// ShardSerial returns the serial of shard in the merged state with serial merged that b, a
// backend of NewSharded, read or wrote last; ok is false for any other backend, state or shard.
// The daemon of a shard compares it with the serial its shard's head Secret names.
func ShardSerial(b Backend, merged int64, shard string) (serial int64, ok bool) {
	sb, isSharded := b.(*sharded)
	if !isSharded {
		return 0, false
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	v, found := sb.views[merged]
	if !found {
		return 0, false
	}
	serial, ok = v.serials[shard]
	return serial, ok
}

// RecordedIn returns the shard whose state recorded addr in what b, a backend of NewSharded,
// read or wrote last; ok is false for any other backend, or when no shard records addr. A daemon
// shard deletes the removed components its own shard records, not those of the garden shard it
// reads beside it.
func RecordedIn(b Backend, addr string) (shard string, ok bool) {
	sb, isSharded := b.(*sharded)
	if !isSharded {
		return "", false
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	v, found := sb.views[sb.latest]
	if !found {
		return "", false
	}
	shard, ok = v.from[addr]
	return shard, ok
}

// firstLineage is the lineage of the first shard (by name) that has one.
func firstLineage(lineages map[string]string) string {
	for _, shard := range slices.Sorted(maps.Keys(lineages)) {
		if l := lineages[shard]; l != "" {
			return l
		}
	}
	return ""
}

// writeOne writes an unsharded landscape's one state.
func (b *sharded) writeOne(ctx context.Context, s *State, v *shardView) error {
	c := *s
	if err := b.store.Shard(GardenShard).Write(ctx, &c); err != nil {
		return err
	}
	v.serials[GardenShard], v.lineages[GardenShard] = c.Serial, c.Lineage
	b.remember(c.Serial, v)
	s.FormatVersion, s.Lineage, s.Serial, s.Landscape = c.FormatVersion, c.Lineage, c.Serial, c.Landscape
	return nil
}

// split sorts s's components into the contents of the shards this backend writes, and those a
// shard's own backend hands to other shards.
func (b *sharded) split(s *State, v *shardView) (contents map[string]map[string]*Component, handover map[string]map[string]*Component) {
	contents, handover = map[string]map[string]*Component{}, map[string]map[string]*Component{}
	if b.opts.OwnHome {
		contents[b.opts.Home] = map[string]*Component{}
	} else {
		for shard := range v.serials {
			contents[shard] = map[string]*Component{}
		}
	}
	for addr, c := range s.Components {
		owner := b.owner(addr, v.from)
		from, read := v.from[addr]
		switch {
		case !b.opts.OwnHome:
			if _, covered := v.serials[owner]; !covered && b.opts.Within != nil {
				// A shard outside Within was not read and is not written: the
				// component stays where it is recorded until a write covers both.
				owner = GardenShard
				if read {
					owner = from
				}
			}
			if contents[owner] == nil {
				contents[owner] = map[string]*Component{}
			}
			contents[owner][addr] = c
		case owner == b.opts.Home:
			contents[owner][addr] = c
		case read && from == b.opts.Home:
			if handover[owner] == nil {
				handover[owner] = map[string]*Component{}
			}
			handover[owner][addr] = c
		}
		// Anything else is another shard's, read for what this one depends on.
	}
	return contents, handover
}

// handOver stores components in shard target under its lock, unless it records them already:
// the landscape assigns them there now (a shoot that moved to another seed, sharding switched
// on), and its leader goes on from them.
func (b *sharded) handOver(ctx context.Context, target, lineage string, comps map[string]*Component) error {
	backend := b.store.Shard(target)
	lock, err := backend.Lock(ctx, LockInfo{Operation: "hand over components"})
	if err != nil {
		return err
	}
	defer func() { _ = lock.Unlock(ctx) }()
	st, err := backend.Read(ctx)
	if err != nil {
		return err
	}
	if st.Lineage == "" {
		st.Lineage = lineage
	}
	changed := false
	for addr, c := range comps {
		if _, ok := st.Components[addr]; !ok {
			st.Components[addr] = c
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return backend.Write(ctx, st)
}

// digest identifies a shard's content, its serial left out.
func digest(s *State) string {
	raw, err := json.Marshal(struct {
		Lineage    string
		Components map[string]*Component
		Retired    map[string]*Retirement
		Outputs    map[string]*Output
	}{s.Lineage, s.Components, s.Retired, s.Outputs})
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

func shardError(shard string, err error) error {
	if shard == GardenShard {
		return err
	}
	return fmt.Errorf("state shard %q: %w", shard, err)
}

// lockSet is the shards a lock covers, GardenShard first.
func (b *sharded) lockSet(ctx context.Context) ([]string, error) {
	if b.opts.OwnHome {
		return []string{b.opts.Home}, nil
	}
	found, err := b.store.Shards(ctx)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, s := range found {
		set[s] = true
	}
	if len(found) > 0 {
		for _, s := range b.opts.Shards {
			set[s] = true
		}
	}
	delete(set, GardenShard)
	return append([]string{GardenShard}, b.within(slices.Sorted(maps.Keys(set)))...), nil
}

// Lock takes the locks of the shards the backend writes, one after the other in one order
// (GardenShard, then by name), so that two writers of overlapping shards never wait on each
// other in a circle.
func (b *sharded) Lock(ctx context.Context, info LockInfo) (Lock, error) {
	shards, err := b.lockSet(ctx)
	if err != nil {
		return nil, err
	}
	ml := &multiLock{lost: make(chan struct{}), done: make(chan struct{})}
	for _, shard := range shards {
		l, err := b.store.Shard(shard).Lock(ctx, info)
		if err != nil {
			_ = ml.unlockAll(context.WithoutCancel(ctx))
			return nil, shardError(shard, err)
		}
		ml.locks = append(ml.locks, l)
	}
	ml.watch()
	return ml, nil
}

// ForceUnlock releases the lock with id in whichever shard holds it.
func (b *sharded) ForceUnlock(ctx context.Context, id string) error {
	shards, err := b.lockSet(ctx)
	if err != nil {
		return err
	}
	var first error
	for _, shard := range shards {
		err := b.store.Shard(shard).ForceUnlock(ctx, id)
		if err == nil {
			return nil
		}
		if first == nil {
			first = shardError(shard, err)
		}
		if !errors.Is(err, ErrNotLocked) && !errors.Is(err, ErrLockIDMismatch) {
			return shardError(shard, err)
		}
	}
	return first
}

// multiLock holds the locks of several shards as one.
type multiLock struct {
	locks []Lock
	lost  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// ID is the first shard's lock ID (the garden shard's when it is locked).
func (m *multiLock) ID() string { return m.locks[0].ID() }

func (m *multiLock) Lost() <-chan struct{} {
	if len(m.locks) == 1 {
		return m.locks[0].Lost()
	}
	return m.lost
}

// watch closes lost when any shard's lock is lost.
func (m *multiLock) watch() {
	if len(m.locks) == 1 {
		return
	}
	for _, l := range m.locks {
		go func() {
			select {
			case <-l.Lost():
				m.once.Do(func() { close(m.lost) })
			case <-m.done:
			}
		}()
	}
}

func (m *multiLock) Unlock(ctx context.Context) error {
	select {
	case <-m.done:
	default:
		close(m.done)
	}
	return m.unlockAll(ctx)
}

func (m *multiLock) unlockAll(ctx context.Context) error {
	var errs []error
	// In reverse order of taking them.
	for i := len(m.locks) - 1; i >= 0; i-- {
		errs = append(errs, m.locks[i].Unlock(ctx))
	}
	return errors.Join(errs...)
}
