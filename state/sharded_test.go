package state

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// seedPlacement assigns the seeds and shoots of a test landscape to shards the way the daemon
// does: `seed.<s>` and its parts to shard "seed.<s>", `shoot.<s>_<n>` (a shoot on seed s) to the
// same shard, everything else to the garden shard; "removed" addresses are not declared.
func seedPlacement(addr string) (string, bool) {
	if strings.Contains(addr, "removed") {
		return "", false
	}
	switch {
	case strings.HasPrefix(addr, "seed."):
		name, _, _ := strings.Cut(strings.TrimPrefix(addr, "seed."), ".")
		return "seed." + name, true
	case strings.HasPrefix(addr, "shoot."):
		seed, _, _ := strings.Cut(strings.TrimPrefix(addr, "shoot."), "_")
		return "seed." + seed, true
	}
	return GardenShard, true
}

var testShards = []string{"seed.a", "seed.b"}

func component(addr string) *Component {
	return &Component{Address: addr, Type: "x", Objects: []Object{{Cluster: "runtime", Version: "v1", Kind: "ConfigMap", Namespace: "ns", Name: strings.NewReplacer(".", "-", "_", "-").Replace(addr)}}}
}

// landscapeState is a state with garden components and components of two seed shards.
func landscapeState(s *State) *State {
	for _, addr := range []string{"component.manifests.garden", "seed.a", "seed.a.gardenlet", "shoot.a_dev", "seed.b", "shoot.b_qa"} {
		s.Components[addr] = component(addr)
	}
	return s
}

func localShardStore(t *testing.T) (ShardStore, string) {
	path := filepath.Join(t.TempDir(), DefaultLocalPath)
	return NewLocalShards(path, LocalOptions{Landscape: "land", PollInterval: 20 * time.Millisecond}), path
}

// everyShard is the CLI's backend over the store.
func everyShard(store ShardStore) Backend {
	return NewSharded(store, ShardedOptions{Place: seedPlacement, Shards: testShards})
}

func shardOf(store ShardStore, shard string) Backend {
	return NewSharded(store, ShardedOptions{Place: seedPlacement, Shards: testShards, Home: shard, OwnHome: true})
}

func TestShardedUnshardedLandscapeKeepsItsOneState(t *testing.T) {
	testConformance(t, func(t *testing.T) opener {
		store, _ := localShardStore(t)
		return func() Backend { return everyShard(store) }
	})
	ctx := context.Background()
	store, _ := localShardStore(t)
	b := everyShard(store)
	s, err := b.Read(ctx)
	require.NoError(t, err)
	require.NoError(t, b.Write(ctx, landscapeState(s)))
	shards, err := store.Shards(ctx)
	require.NoError(t, err)
	assert.Empty(t, shards, "without sharding switched on, every component stays in the one state")
	one, err := store.Shard(GardenShard).Read(ctx)
	require.NoError(t, err)
	assert.Len(t, one.Components, 6)
}

// switchOn hands the components of a landscape applied without sharding to their shards, as the
// garden shard's daemon does: the garden shard then records its own components only.
func switchOn(t *testing.T, store ShardStore) {
	ctx := context.Background()
	b := everyShard(store)
	s, err := b.Read(ctx)
	require.NoError(t, err)
	require.NoError(t, b.Write(ctx, landscapeState(s)))
	garden := shardOf(store, GardenShard)
	lock, err := garden.Lock(ctx, LockInfo{Operation: "test"})
	require.NoError(t, err)
	defer func() { require.NoError(t, lock.Unlock(ctx)) }()
	g, err := garden.Read(ctx)
	require.NoError(t, err)
	require.NoError(t, garden.Write(ctx, g))
}

func TestShardedHandOverSwitchesShardingOn(t *testing.T) {
	ctx := context.Background()
	store, _ := localShardStore(t)
	switchOn(t, store)

	shards, err := store.Shards(ctx)
	require.NoError(t, err)
	assert.Equal(t, testShards, shards)
	want := map[string][]string{
		GardenShard: {"component.manifests.garden"},
		"seed.a":    {"seed.a", "seed.a.gardenlet", "shoot.a_dev"},
		"seed.b":    {"seed.b", "shoot.b_qa"},
	}
	var lineage string
	for shard, addrs := range want {
		st, err := store.Shard(shard).Read(ctx)
		require.NoError(t, err)
		assert.Equal(t, addrs, st.Addresses(), "shard %q", shard)
		if lineage == "" {
			lineage = st.Lineage
		}
		assert.Equal(t, lineage, st.Lineage, "every shard shares the landscape's lineage")
	}
	// The CLI reads the merged state: every component once.
	merged, err := everyShard(store).Read(ctx)
	require.NoError(t, err)
	assert.Len(t, merged.Components, 6)
	assert.Equal(t, lineage, merged.Lineage)
}

func TestShardedWriteStoresOnlyTheShardsThatChanged(t *testing.T) {
	ctx := context.Background()
	store, _ := localShardStore(t)
	switchOn(t, store)
	serials := func() map[string]int64 {
		out := map[string]int64{}
		for _, shard := range []string{GardenShard, "seed.a", "seed.b"} {
			st, err := store.Shard(shard).Read(ctx)
			require.NoError(t, err)
			out[shard] = st.Serial
		}
		return out
	}
	before := serials()

	// The CLI changes one shoot: one shard is written.
	b := everyShard(store)
	s, err := b.Read(ctx)
	require.NoError(t, err)
	s.Components["shoot.a_dev"].ConfigHash = "changed"
	serial := s.Serial
	require.NoError(t, b.Write(ctx, s))
	assert.Equal(t, serial+1, s.Serial, "the merged serial grows with the write")
	after := serials()
	assert.Equal(t, before[GardenShard], after[GardenShard])
	assert.Equal(t, before["seed.a"]+1, after["seed.a"])
	assert.Equal(t, before["seed.b"], after["seed.b"])

	// A shard's own backend reads its shard and the garden shard, and writes its shard only.
	a := shardOf(store, "seed.a")
	sa, err := a.Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"component.manifests.garden", "seed.a", "seed.a.gardenlet", "shoot.a_dev"}, sa.Addresses())
	assert.Equal(t, "changed", sa.Components["shoot.a_dev"].ConfigHash)
	sa.Components["shoot.a_new"] = component("shoot.a_new")
	sa.Components["component.manifests.garden"].ConfigHash = "not the shard's to write"
	require.NoError(t, a.Write(ctx, sa))
	final := serials()
	assert.Equal(t, after[GardenShard], final[GardenShard], "the garden shard is read only")
	assert.Equal(t, after["seed.a"]+1, final["seed.a"])
	g, err := store.Shard(GardenShard).Read(ctx)
	require.NoError(t, err)
	assert.Empty(t, g.Components["component.manifests.garden"].ConfigHash)

	// The same state written again is stale: the shard moved on.
	sa.Serial = serial
	err = a.Write(ctx, sa)
	require.ErrorIs(t, err, ErrStaleSerial)
}

func TestShardedLocksNeverWaitOnEachOther(t *testing.T) {
	ctx := context.Background()
	store, _ := localShardStore(t)
	switchOn(t, store)
	var locks []Lock
	for _, shard := range []string{GardenShard, "seed.a", "seed.b"} {
		l, err := shardOf(store, shard).Lock(ctx, LockInfo{Operation: "daemon"})
		require.NoError(t, err, "shard %q is locked on its own", shard)
		locks = append(locks, l)
	}
	// A second holder of one shard waits; the CLI, which locks every shard, too.
	_, err := shardOf(store, "seed.a").Lock(ctx, LockInfo{Operation: "daemon"})
	var locked *LockedError
	require.ErrorAs(t, err, &locked)
	_, err = everyShard(store).Lock(ctx, LockInfo{Operation: "apply"})
	require.ErrorAs(t, err, &locked)
	for _, l := range locks {
		require.NoError(t, l.Unlock(ctx))
	}
	all, err := everyShard(store).Lock(ctx, LockInfo{Operation: "apply"})
	require.NoError(t, err)
	_, err = shardOf(store, "seed.b").Lock(ctx, LockInfo{Operation: "daemon"})
	require.ErrorAs(t, err, &locked, "the CLI holds every shard's lock")
	require.NoError(t, all.Unlock(ctx))
}

func TestShardedSeedShardWaitsForTheGardenShard(t *testing.T) {
	ctx := context.Background()
	store, _ := localShardStore(t)
	a := shardOf(store, "seed.a")
	s, err := a.Read(ctx)
	require.NoError(t, err)
	s.Components["seed.a"] = component("seed.a")
	err = a.Write(ctx, s)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "has not been written yet")
}

func TestShardedRemovedComponentStaysInItsShard(t *testing.T) {
	ctx := context.Background()
	store, _ := localShardStore(t)
	switchOn(t, store)
	a := shardOf(store, "seed.a")
	s, err := a.Read(ctx)
	require.NoError(t, err)
	s.Components["shoot.a_removed"] = component("shoot.a_removed")
	require.NoError(t, a.Write(ctx, s))
	// The CLI reads it from shard seed.a and writes it back there, although the landscape no
	// longer places it.
	b := everyShard(store)
	m, err := b.Read(ctx)
	require.NoError(t, err)
	m.Components["shoot.a_removed"].ConfigHash = "x"
	require.NoError(t, b.Write(ctx, m))
	st, err := store.Shard("seed.a").Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, "x", st.Components["shoot.a_removed"].ConfigHash)
	g, err := store.Shard(GardenShard).Read(ctx)
	require.NoError(t, err)
	assert.NotContains(t, g.Components, "shoot.a_removed")
}

func TestKubernetesShards(t *testing.T) {
	ctx := context.Background()
	cs := runtimeClientset(t)
	ns := testNamespace(t, cs)
	opts := testOptions
	opts.ChunkSize = 200 // several chunks per shard: collecting one shard's must spare the others'
	store := NewKubernetesShards(cs, ns, "land", opts)
	switchOn(t, store)

	shards, err := store.Shards(ctx)
	require.NoError(t, err)
	assert.Equal(t, testShards, shards)
	secrets := stateSecrets(t, cs, ns)
	for _, shard := range append([]string{GardenShard}, testShards...) {
		assert.Contains(t, secrets, ShardHeadName("land", shard))
	}
	assert.Equal(t, "gardener-state-land--seed-a-", ShardHeadName("land", "seed.a")[:len("gardener-state-land--seed-a-")])
	assert.NotEqual(t, ShardLockName("land", "seed.a"), ShardLockName("land", "seed.b"))

	// Each shard reads back whole after the others were written (no chunk of one collected by
	// another's write).
	b := everyShard(store)
	s, err := b.Read(ctx)
	require.NoError(t, err)
	s.Components["shoot.b_qa"].ConfigHash = "changed"
	require.NoError(t, b.Write(ctx, s))
	merged, err := everyShard(store).Read(ctx)
	require.NoError(t, err)
	assert.Len(t, merged.Components, 6)
	assert.Equal(t, "changed", merged.Components["shoot.b_qa"].ConfigHash)

	// One Lease per shard: two shards are held at once.
	la, err := shardOf(store, "seed.a").Lock(ctx, LockInfo{Operation: "daemon"})
	require.NoError(t, err)
	lb, err := shardOf(store, "seed.b").Lock(ctx, LockInfo{Operation: "daemon"})
	require.NoError(t, err)
	require.NoError(t, lb.Unlock(ctx))
	require.NoError(t, la.Unlock(ctx))
}

// Who may not list the state's Secrets (a plan with rights on the head by name) reads the
// landscape's own state, as before sharding.
func TestKubernetesShardsWithoutTheRightToList(t *testing.T) {
	cs := fake.NewClientset()
	cs.PrependReactor("list", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", errors.New("no list"))
	})
	shards, err := NewKubernetesShards(cs, "garden", "land", KubernetesOptions{}).Shards(context.Background())
	require.NoError(t, err)
	assert.Empty(t, shards)

	cs.PrependReactor("list", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewServiceUnavailable("down")
	})
	_, err = NewKubernetesShards(cs, "garden", "land", KubernetesOptions{}).Shards(context.Background())
	require.Error(t, err, "other failures are errors")
}

// A plan targeted at the shoots of one seed reads, locks and writes that seed's shard and the
// garden shard only (ShardedOptions.Within): another seed's shard is neither read nor waited on,
// and a component the landscape places in a shard outside Within stays where it is recorded.
func TestShardedWithinCoversOnlyItsShards(t *testing.T) {
	ctx := context.Background()
	store, _ := localShardStore(t)
	switchOn(t, store)
	within := NewSharded(store, ShardedOptions{Place: seedPlacement, Shards: testShards, Within: []string{"seed.a"}})

	s, err := within.Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"component.manifests.garden", "seed.a", "seed.a.gardenlet", "shoot.a_dev"}, s.Addresses(), "seed.b's shard is not read")

	// seed.b's writer holds its lock; the targeted writer does not wait for it.
	other, err := shardOf(store, "seed.b").Lock(ctx, LockInfo{Operation: "daemon"})
	require.NoError(t, err)
	l, err := within.Lock(ctx, LockInfo{Operation: "apply"})
	require.NoError(t, err, "seed.b's lock is not taken")

	before, err := store.Shard("seed.b").Read(ctx)
	require.NoError(t, err)
	s.Components["shoot.a_dev"].ConfigHash = "changed"
	s.Components["shoot.b_new"] = component("shoot.b_new") // placed in seed.b, outside Within
	require.NoError(t, within.Write(ctx, s))
	after, err := store.Shard("seed.b").Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, before.Serial, after.Serial, "seed.b's shard is not written")
	a, err := store.Shard("seed.a").Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, "changed", a.Components["shoot.a_dev"].ConfigHash)
	g, err := store.Shard(GardenShard).Read(ctx)
	require.NoError(t, err)
	assert.NotNil(t, g.Components["shoot.b_new"], "kept in the garden shard until a write covers seed.b")

	require.NoError(t, l.Unlock(ctx))
	require.NoError(t, other.Unlock(ctx))
}
