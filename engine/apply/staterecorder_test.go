package apply

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/state"
)

// gatedBackend stores into a real backend, but its first write waits until released, so that a
// test can line up changes behind a write in progress.
type gatedBackend struct {
	state.Backend
	started chan struct{}
	release chan struct{}
	once    sync.Once
	fail    error
}

func (b *gatedBackend) Write(ctx context.Context, s *state.State) error {
	first := false
	b.once.Do(func() { first = true })
	if first {
		close(b.started)
		<-b.release
	}
	if b.fail != nil {
		return b.fail
	}
	return b.Backend.Write(ctx, s)
}

// emptyLocalState is a fresh local state backend and the empty state read from it.
func emptyLocalState(t *testing.T) (state.Backend, *state.State) {
	t.Helper()
	local := state.NewLocal(filepath.Join(t.TempDir(), "state.json"))
	st, err := local.Read(context.Background())
	require.NoError(t, err)
	return local, st
}

func configMapDesired(name string) *plan.Desired {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	u.SetNamespace("default")
	u.SetName(name)
	return &plan.Desired{Cluster: "runtime", Object: u}
}

// startGatedWrite returns a recorder over a local state whose first write (the intent of
// component.first, already under way when it returns) waits until release is closed; writes fail
// with fail when it is set. first reports that intent's outcome.
func startGatedWrite(t *testing.T, fail error) (r *StateRecorder, local state.Backend, backend *gatedBackend, first chan error) {
	t.Helper()
	ctx := context.Background()
	local, st := emptyLocalState(t)
	backend = &gatedBackend{Backend: local, started: make(chan struct{}), release: make(chan struct{}), fail: fail}
	r = NewStateRecorder(backend, st)
	first = make(chan error, 1)
	go func() { first <- r.Intent(ctx, "component.first", []*plan.Desired{configMapDesired("first")}, nil) }()
	<-backend.started
	return r, local, backend, first
}

func TestStateRecorderGroupsConcurrentChangesIntoOneWrite(t *testing.T) {
	ctx := context.Background()
	r, local, backend, first := startGatedWrite(t, nil)

	// While the first write is under way, twenty components record their intent: they all
	// wait for one write, the next.
	const waiting = 20
	var wg sync.WaitGroup
	errs := make(chan error, waiting)
	for i := range waiting {
		wg.Go(func() {
			name := fmt.Sprintf("component.c%02d", i)
			errs <- r.Intent(ctx, name, []*plan.Desired{configMapDesired(name)}, nil)
		})
	}
	// Give them time to queue behind the write: the assertion on the count below does not need
	// them all to have queued (a late one only adds a write), but it does need the grouping.
	waitQueued(t, r, waiting)
	close(backend.release)
	require.NoError(t, <-first)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	assert.Equal(t, 2, r.writes, "the first write and one more for the twenty changes queued behind it")
	stored, err := local.Read(ctx)
	require.NoError(t, err)
	assert.Len(t, stored.Components, waiting+1, "every change is in the stored state")
	for name, c := range stored.Components {
		assert.Len(t, c.Pending, 1, name)
	}
}

// waitQueued waits until n changes wait for a write.
func waitQueued(t *testing.T, r *StateRecorder, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.changed >= uint64(n+1)
	}, 10*time.Second, 5*time.Millisecond)
}

func TestStateRecorderReportsAFailedWriteToEveryChangeInIt(t *testing.T) {
	ctx := context.Background()
	r, _, backend, first := startGatedWrite(t, errors.New("state secret: forbidden"))
	second := make(chan error, 1)
	go func() { second <- r.Intent(ctx, "component.second", []*plan.Desired{configMapDesired("second")}, nil) }()
	waitQueued(t, r, 1)
	close(backend.release)

	require.ErrorContains(t, <-first, "forbidden")
	require.ErrorContains(t, <-second, "forbidden", "the change queued behind the failed write is written again, and fails again")
	assert.Nil(t, r.State(), "after a failed write the stored state may differ from the recorder's")
}

// pendingNames returns the names of a component's pending and owned objects in a stored state.
func pendingNames(t *testing.T, b state.Backend, component string) (pending, owned []string) {
	t.Helper()
	st, err := b.Read(context.Background())
	require.NoError(t, err)
	c := st.Components[component]
	if c == nil {
		return nil, nil
	}
	for _, o := range c.Pending {
		pending = append(pending, o.Name)
	}
	for _, o := range c.Objects {
		owned = append(owned, o.Name+"@"+o.UID)
	}
	return pending, owned
}

func TestStateRecorderRecordsAPlansIntentInOneWrite(t *testing.T) {
	ctx := context.Background()
	local, st := emptyLocalState(t)
	r := NewStateRecorder(local, st)

	require.NoError(t, r.IntentAll(ctx, []ComponentIntent{
		{Component: "component.a", Objects: []*plan.Desired{configMapDesired("a1"), configMapDesired("a2")}},
		{Component: "component.b", Objects: []*plan.Desired{configMapDesired("b1")}},
		{Component: "component.c", Objects: []*plan.Desired{configMapDesired("c1")}},
	}))
	assert.Equal(t, 1, r.writes, "one write for the whole plan")
	pending, _ := pendingNames(t, local, "component.a")
	assert.Equal(t, []string{"a1", "a2"}, pending)

	require.NoError(t, r.Intent(ctx, "component.a", []*plan.Desired{configMapDesired("a1"), configMapDesired("a2")}, nil))
	assert.Equal(t, 1, r.writes, "a component whose intent is stored starts without writing")
	require.NoError(t, r.Intent(ctx, "component.b", []*plan.Desired{configMapDesired("b1"), configMapDesired("b2")}, nil))
	assert.Equal(t, 2, r.writes, "an object the plan-wide intent lacked is written before the component goes on")
	pending, _ = pendingNames(t, local, "component.b")
	assert.Equal(t, []string{"b1", "b2"}, pending)
}

func TestStateRecorderStoresAppliedInTheBackgroundAndFlushWaits(t *testing.T) {
	ctx := context.Background()
	local, st := emptyLocalState(t)
	r := NewStateRecorder(local, st)
	require.NoError(t, r.IntentAll(ctx, []ComponentIntent{{Component: "component.a", Objects: []*plan.Desired{configMapDesired("a1")}}}))

	gated := &gatedBackend{Backend: local, started: make(chan struct{}), release: make(chan struct{})}
	r.Backend = gated
	applied := configMapDesired("a1").Object
	applied.SetUID("uid-a1")
	returned := make(chan error, 1)
	go func() {
		returned <- r.Applied(ctx, "component.a", []AppliedObject{{Cluster: "runtime", Object: applied}}, nil)
	}()
	select {
	case err := <-returned:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Applied waited for its write")
	}
	<-gated.started
	// An apply killed now leaves the object pending in the stored state: the next plan still
	// finds it.
	pending, owned := pendingNames(t, local, "component.a")
	assert.Equal(t, []string{"a1"}, pending)
	assert.Empty(t, owned)
	assert.Nil(t, r.State(), "the outcome is not stored yet")

	close(gated.release)
	require.NoError(t, r.Flush(ctx))
	pending, owned = pendingNames(t, local, "component.a")
	assert.Empty(t, pending)
	assert.Equal(t, []string{"a1@uid-a1"}, owned)
	require.NotNil(t, r.State())
}

func TestStateRecorderFlushReportsAFailedBackgroundWrite(t *testing.T) {
	ctx := context.Background()
	local, st := emptyLocalState(t)
	r := NewStateRecorder(local, st)
	gated := &gatedBackend{Backend: local, started: make(chan struct{}), release: make(chan struct{}), fail: errors.New("state secret: forbidden")}
	r.Backend = gated

	require.NoError(t, r.Applied(ctx, "component.a", []AppliedObject{{Cluster: "runtime", Object: configMapDesired("a1").Object}}, nil))
	<-gated.started
	close(gated.release)
	require.ErrorContains(t, r.Flush(ctx), "forbidden")
	assert.NoError(t, r.Applied(ctx, "component.b", nil, nil), "a failed write does not fail the components that finish after it")
	assert.ErrorContains(t, r.Intent(ctx, "component.c", []*plan.Desired{configMapDesired("c1")}, nil), "forbidden",
		"an intent that cannot be stored fails its component: it must not write unrecorded objects")
	assert.Nil(t, r.State())
}

// flakyBackend fails its first failures writes.
type flakyBackend struct {
	state.Backend
	mu       sync.Mutex
	failures int
}

func (b *flakyBackend) Write(ctx context.Context, s *state.State) error {
	b.mu.Lock()
	fail := b.failures > 0
	b.failures--
	b.mu.Unlock()
	if fail {
		return errors.New("state secret: connection reset by peer")
	}
	return b.Backend.Write(ctx, s)
}

func TestStateRecorderWritesAgainAfterATransientFailure(t *testing.T) {
	ctx := context.Background()
	local, st := emptyLocalState(t)
	r := NewStateRecorder(&flakyBackend{Backend: local, failures: 1}, st)

	applied := configMapDesired("a1").Object
	applied.SetUID("uid-a1")
	require.NoError(t, r.Applied(ctx, "component.a", []AppliedObject{{Cluster: "runtime", Object: applied}}, nil))
	require.NoError(t, r.Applied(ctx, "component.b", nil, nil), "the components after the failed write go on")
	require.NoError(t, r.Flush(ctx), "the write is tried again and succeeds")
	_, owned := pendingNames(t, local, "component.a")
	assert.Equal(t, []string{"a1@uid-a1"}, owned)
	assert.NotNil(t, r.State())
}

func TestStateRecorderStopsComponentsWhenAnotherWriterStoredAState(t *testing.T) {
	ctx := context.Background()
	local, st := emptyLocalState(t)
	gated := &gatedBackend{Backend: local, started: make(chan struct{}), release: make(chan struct{}), fail: fmt.Errorf("state: %w", state.ErrStaleSerial)}
	r := NewStateRecorder(gated, st)
	close(gated.release)
	require.Error(t, r.IntentAll(ctx, []ComponentIntent{{Component: "component.a", Objects: []*plan.Desired{configMapDesired("a1")}}}))
	assert.ErrorIs(t, r.Applied(ctx, "component.b", nil, nil), state.ErrStaleSerial, "nothing goes on beside another writer")
}

func TestStateRecorderWithdrawsTheIntentOfComponentsThatNeverStarted(t *testing.T) {
	ctx := context.Background()
	local, st := emptyLocalState(t)
	// An earlier interrupted apply left one object of component.a pending.
	st.Components = map[string]*state.Component{"component.a": {Address: "component.a", Pending: []state.Object{
		toStateObject("runtime", "v1", object.RefOf(configMapDesired("earlier").Object), "", ""),
	}}}
	r := NewStateRecorder(local, st)
	require.NoError(t, r.IntentAll(ctx, []ComponentIntent{
		{Component: "component.a", Objects: []*plan.Desired{configMapDesired("a1")}},
		{Component: "component.b", Objects: []*plan.Desired{configMapDesired("b1")}},
	}))
	r.Withdraw("component.a")
	r.Withdraw("component.b")
	require.NoError(t, r.Flush(ctx))

	pending, _ := pendingNames(t, local, "component.a")
	assert.Equal(t, []string{"earlier"}, pending, "what was pending before stays pending")
	stored, err := local.Read(ctx)
	require.NoError(t, err)
	assert.NotContains(t, stored.Components, "component.b", "a component with nothing recorded is forgotten")
}

// A change a write stored is reported stored even when a later write failed.
func TestStateRecorderReportsEachChangeByTheWriteThatStoredIt(t *testing.T) {
	ctx := context.Background()
	local, st := emptyLocalState(t)
	flaky := &flakyBackend{Backend: local}
	r := NewStateRecorder(flaky, st)
	require.NoError(t, r.Intent(ctx, "component.a", []*plan.Desired{configMapDesired("a1")}, nil))
	flaky.mu.Lock()
	flaky.failures = 1
	flaky.mu.Unlock()
	require.Error(t, r.Intent(ctx, "component.b", []*plan.Desired{configMapDesired("b1")}, nil))
	assert.NoError(t, r.store(ctx, r.intended["component.a"]), "component.a's intent was stored by the first write")
}

// The plan's retirements are stored with its intent, before anything of them is deleted, and
// the records it forgets are dropped; others stay.
func TestStateRecorderRecordsRetirementsWithTheIntent(t *testing.T) {
	ctx := context.Background()
	local, st := emptyLocalState(t)
	st.Retired = map[string]*state.Retirement{"shoot.old": {Ended: "2026-10-01T00:00:00Z", Reason: "r"}, "shoot.gone": {Ended: "2026-10-02T00:00:00Z", Reason: "r"}}
	require.NoError(t, local.Write(ctx, st))
	st, err := local.Read(ctx)
	require.NoError(t, err)
	r := NewStateRecorder(local, st)

	r.Retire([]plan.Retirement{{Address: "shoot.trial", Ended: "2026-11-20T08:00:00Z", Reason: "the cluster lifetime of Quota garden-dev/trial, 7 days"}}, []string{"shoot.gone"})
	require.NoError(t, r.IntentAll(ctx, []ComponentIntent{{Component: "shoot.trial.etcd", Deletes: []*plan.ObjectChange{{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "ConfigMap", Namespace: "default", Name: "x"}}}}}))
	stored, err := local.Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[string]*state.Retirement{
		"shoot.old":   {Ended: "2026-10-01T00:00:00Z", Reason: "r"},
		"shoot.trial": {Ended: "2026-11-20T08:00:00Z", Reason: "the cluster lifetime of Quota garden-dev/trial, 7 days"},
	}, stored.Retired)

	r.Retire(nil, []string{"shoot.old", "shoot.trial"})
	require.NoError(t, r.IntentAll(ctx, nil))
	stored, err = local.Read(ctx)
	require.NoError(t, err)
	assert.Nil(t, stored.Retired, "no records left")
}
