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
	local = state.NewLocal(filepath.Join(t.TempDir(), "state.json"))
	backend = &gatedBackend{Backend: local, started: make(chan struct{}), release: make(chan struct{}), fail: fail}
	st, err := local.Read(ctx)
	require.NoError(t, err)
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
