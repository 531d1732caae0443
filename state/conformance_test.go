package state

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// opener returns a new backend on one store each time it is called, the way separate processes
// see the same state.
type opener func() Backend

// conformance is what every backend must do; testConformance runs it against one backend.
var conformance = []struct {
	name string
	test func(t *testing.T, open opener)
}{
	{"read empty", testReadEmpty},
	{"write read round trip", testRoundTrip},
	{"serial increments and lineage stays", testSerialIncrements},
	{"lineage mismatch refused", testLineageMismatch},
	{"stale serial refused", testStaleSerial},
	{"large state round trip", testLargeState},
	{"lock is exclusive", testLockExclusive},
	{"lock wait succeeds after unlock", testLockWait},
	{"lock wait times out", testLockWaitTimeout},
	{"lock wait stops with the context", testLockWaitCancelled},
	{"force unlock", testForceUnlock},
	{"unlock twice", testUnlockTwice},
}

// testConformance runs the conformance suite; newStore returns an opener on a fresh, empty store
// for each test.
func testConformance(t *testing.T, newStore func(t *testing.T) opener) {
	for _, tt := range conformance {
		t.Run(tt.name, func(t *testing.T) { tt.test(t, newStore(t)) })
	}
}

// sample is a state with every field set; landscape must be the backend's.
func sample(landscape string) *State {
	s := Empty(landscape)
	s.Components["component.helm_release.cert_manager"] = &Component{
		Address: "component.helm_release.cert_manager", Type: "helm_release", ConfigHash: "sha256:abc",
		Outputs: map[string]any{"namespace": "cert-manager", "replicas": float64(2), "tags": []any{"a", "b"}},
		Objects: []Object{
			{Cluster: "runtime", Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "cert-manager", Name: "cert-manager", UID: "u-1"},
			{Cluster: "runtime", Version: "v1", Kind: "Namespace", Name: "cert-manager", UID: "u-2"},
		},
		Pending: []Object{{Cluster: "runtime", Version: "v1", Kind: "Service", Namespace: "cert-manager", Name: "webhook"}},
	}
	s.Components[`shoot.dev["a"]`] = &Component{Address: `shoot.dev["a"]`, Type: "shoot", Objects: []Object{}}
	return s
}

func testReadEmpty(t *testing.T, open opener) {
	s, err := open().Read(context.Background())
	require.NoError(t, err)
	assert.Equal(t, FormatVersion, s.FormatVersion)
	assert.Empty(t, s.Lineage)
	assert.Zero(t, s.Serial)
	assert.NotNil(t, s.Components)
	assert.Empty(t, s.Components)
}

func testRoundTrip(t *testing.T, open opener) {
	ctx := context.Background()
	b := open()
	empty, err := b.Read(ctx)
	require.NoError(t, err)
	s := sample(empty.Landscape)
	require.NoError(t, b.Write(ctx, s))
	assert.Len(t, s.Lineage, 36)
	assert.Equal(t, int64(1), s.Serial)

	got, err := open().Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, s, got)
}

func testSerialIncrements(t *testing.T, open opener) {
	ctx := context.Background()
	s, err := open().Read(ctx)
	require.NoError(t, err)
	var lineage string
	for i := 1; i <= 3; i++ {
		s.Components[fmt.Sprintf("component.x.c%d", i)] = &Component{Address: fmt.Sprintf("component.x.c%d", i), Type: "x", Objects: []Object{}}
		require.NoError(t, open().Write(ctx, s))
		assert.Equal(t, int64(i), s.Serial)
		if i == 1 {
			lineage = s.Lineage
		}
		assert.Equal(t, lineage, s.Lineage)
		got, err := open().Read(ctx)
		require.NoError(t, err)
		assert.Equal(t, int64(i), got.Serial)
		assert.Len(t, got.Components, i)
		s = got
	}
}

func testLineageMismatch(t *testing.T, open opener) {
	ctx := context.Background()
	b := open()
	s, err := b.Read(ctx)
	require.NoError(t, err)
	require.NoError(t, b.Write(ctx, s))

	other := *s
	other.Lineage, other.Serial = newUUID(), 100
	err = b.Write(ctx, &other)
	require.ErrorIs(t, err, ErrLineageMismatch)
	assert.Contains(t, err.Error(), s.Lineage)
	assert.Equal(t, int64(100), other.Serial, "a refused state is not changed")

	got, err := b.Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, s.Lineage, got.Lineage)
	assert.Equal(t, int64(1), got.Serial)
}

func testStaleSerial(t *testing.T, open opener) {
	ctx := context.Background()
	a, b := open(), open()
	first, err := a.Read(ctx)
	require.NoError(t, err)
	require.NoError(t, a.Write(ctx, first))

	sa, err := a.Read(ctx)
	require.NoError(t, err)
	sb, err := b.Read(ctx)
	require.NoError(t, err)
	require.NoError(t, a.Write(ctx, sa))
	err = b.Write(ctx, sb)
	require.ErrorIs(t, err, ErrStaleSerial)
	assert.Equal(t, int64(1), sb.Serial, "a refused state is not changed")

	// A new state (no lineage) over an existing one is stale too: it was read before the first
	// write.
	fresh := Empty(first.Landscape)
	require.ErrorIs(t, b.Write(ctx, fresh), ErrStaleSerial)

	got, err := b.Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(2), got.Serial)
}

// largeState is a state of more than size bytes of JSON that compresses badly, so that it needs
// several chunks.
func largeState(t *testing.T, landscape string, size int) *State {
	t.Helper()
	s := Empty(landscape)
	const per = 64 << 10
	for i := 0; i*per < size; i++ {
		random := make([]byte, per*3/4)
		_, err := rand.Read(random)
		require.NoError(t, err)
		addr := fmt.Sprintf("component.blob.b%03d", i)
		s.Components[addr] = &Component{
			Address: addr, Type: "blob", Outputs: map[string]any{"data": base64.StdEncoding.EncodeToString(random)},
			Objects: []Object{{Cluster: "runtime", Version: "v1", Kind: "ConfigMap", Namespace: "blobs", Name: fmt.Sprintf("b%03d", i)}},
		}
	}
	return s
}

func testLargeState(t *testing.T, open opener) {
	ctx := context.Background()
	b := open()
	empty, err := b.Read(ctx)
	require.NoError(t, err)
	s := largeState(t, empty.Landscape, 4<<20)
	require.NoError(t, b.Write(ctx, s))
	got, err := open().Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, s, got)

	// Growing and shrinking again keeps it readable.
	delete(s.Components, "component.blob.b000")
	require.NoError(t, b.Write(ctx, s))
	got, err = open().Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, s, got)
	small := sample(empty.Landscape)
	small.Lineage, small.Serial = s.Lineage, s.Serial
	require.NoError(t, b.Write(ctx, small))
	got, err = open().Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, small, got)
}

func testLockExclusive(t *testing.T, open opener) {
	ctx := context.Background()
	a, b := open(), open()
	lock, err := a.Lock(ctx, LockInfo{Holder: "alice@laptop pid 1", Operation: "apply"})
	require.NoError(t, err)
	require.NotEmpty(t, lock.ID())

	_, err = b.Lock(ctx, LockInfo{Holder: "bob@laptop pid 2", Operation: "destroy"})
	var locked *LockedError
	require.ErrorAs(t, err, &locked)
	assert.Equal(t, lock.ID(), locked.ID)
	assert.Equal(t, "alice@laptop pid 1", locked.Holder)
	assert.Equal(t, "apply", locked.Operation)
	assert.WithinDuration(t, time.Now(), locked.Acquired, time.Minute)
	assert.Contains(t, err.Error(), "alice@laptop pid 1")
	assert.Contains(t, err.Error(), lock.ID())

	// The same backend (another goroutine of one process) is excluded too.
	_, err = a.Lock(ctx, LockInfo{Operation: "apply"})
	require.ErrorAs(t, err, &locked)

	require.NoError(t, lock.Unlock(ctx))
	again, err := b.Lock(ctx, LockInfo{Operation: "destroy"})
	require.NoError(t, err)
	assert.NotEqual(t, lock.ID(), again.ID())
	require.NoError(t, again.Unlock(ctx))
}

func testLockWait(t *testing.T, open opener) {
	ctx := context.Background()
	lock, err := open().Lock(ctx, LockInfo{Operation: "apply"})
	require.NoError(t, err)
	const hold = 500 * time.Millisecond
	start := time.Now()
	unlocked := make(chan error, 1)
	go func() {
		time.Sleep(hold)
		unlocked <- lock.Unlock(ctx)
	}()
	second, err := open().Lock(ctx, LockInfo{Operation: "apply", Wait: 30 * time.Second})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), hold)
	require.NoError(t, <-unlocked)
	require.NoError(t, second.Unlock(ctx))
}

func testLockWaitTimeout(t *testing.T, open opener) {
	ctx := context.Background()
	lock, err := open().Lock(ctx, LockInfo{Holder: "alice", Operation: "apply"})
	require.NoError(t, err)
	defer func() { require.NoError(t, lock.Unlock(ctx)) }()
	const wait = 400 * time.Millisecond
	start := time.Now()
	_, err = open().Lock(ctx, LockInfo{Operation: "apply", Wait: wait})
	var locked *LockedError
	require.ErrorAs(t, err, &locked)
	assert.GreaterOrEqual(t, time.Since(start), wait)
	assert.GreaterOrEqual(t, locked.Waited, wait)
	assert.Equal(t, "alice", locked.Holder)
	assert.Contains(t, err.Error(), "waited")
}

func testLockWaitCancelled(t *testing.T, open opener) {
	lock, err := open().Lock(context.Background(), LockInfo{Operation: "apply"})
	require.NoError(t, err)
	defer func() { require.NoError(t, lock.Unlock(context.Background())) }()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = open().Lock(ctx, LockInfo{Operation: "apply", Wait: time.Hour})
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), err)
	var locked *LockedError
	assert.ErrorAs(t, err, &locked)
}

func testForceUnlock(t *testing.T, open opener) {
	ctx := context.Background()
	a, b := open(), open()
	require.ErrorIs(t, b.ForceUnlock(ctx, "no-such-lock"), ErrNotLocked)

	lock, err := a.Lock(ctx, LockInfo{Holder: "dead process", Operation: "apply"})
	require.NoError(t, err)
	err = b.ForceUnlock(ctx, "wrong-id")
	require.ErrorIs(t, err, ErrLockIDMismatch)
	assert.Contains(t, err.Error(), lock.ID())
	_, err = b.Lock(ctx, LockInfo{Operation: "apply"})
	var locked *LockedError
	require.ErrorAs(t, err, &locked, "a refused force-unlock leaves the lock held")

	require.NoError(t, b.ForceUnlock(ctx, lock.ID()))
	taken, err := b.Lock(ctx, LockInfo{Holder: "bob", Operation: "apply"})
	require.NoError(t, err)

	// The old holder learns it lost the lock, and does not release the new holder's.
	require.ErrorIs(t, lock.Unlock(ctx), ErrLockLost)
	_, err = a.Lock(ctx, LockInfo{Operation: "apply"})
	require.ErrorAs(t, err, &locked)
	assert.Equal(t, "bob", locked.Holder)
	require.NoError(t, taken.Unlock(ctx))
}

func testUnlockTwice(t *testing.T, open opener) {
	ctx := context.Background()
	lock, err := open().Lock(ctx, LockInfo{Operation: "apply"})
	require.NoError(t, err)
	require.NoError(t, lock.Unlock(ctx))
	require.NoError(t, lock.Unlock(ctx))
	second, err := open().Lock(ctx, LockInfo{Operation: "apply"})
	require.NoError(t, err)
	require.NoError(t, second.Unlock(ctx))
}
