package state

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// testOptions keep lock tests fast: a one-second lease renewed five times a second.
var testOptions = KubernetesOptions{
	LeaseDuration: time.Second,
	RenewInterval: 200 * time.Millisecond,
	PollInterval:  50 * time.Millisecond,
}

// runtimeClientset returns a clientset for the shared local control plane's runtime plane.
func runtimeClientset(t *testing.T) kubernetes.Interface {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a local control plane")
	}
	cs, err := kubernetes.NewForConfig(localcluster.Shared(t).Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	return cs
}

var namespaceCounter atomic.Int64

// testNamespace creates a namespace for one test and deletes it afterwards.
func testNamespace(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	name := "state-" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36) + "-" + strconv.FormatInt(namespaceCounter.Add(1), 10)
	_, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name
}

func TestKubernetesConformance(t *testing.T) {
	cs := runtimeClientset(t)
	testConformance(t, func(t *testing.T) opener {
		ns := testNamespace(t, cs)
		return func() Backend { return NewKubernetesWithOptions(cs, ns, "test_Land", testOptions) }
	})
}

// stateSecrets lists the backend's Secrets by name.
func stateSecrets(t *testing.T, cs kubernetes.Interface, ns string) map[string]corev1.Secret {
	t.Helper()
	list, err := cs.CoreV1().Secrets(ns).List(context.Background(), metav1.ListOptions{LabelSelector: stateLabel})
	require.NoError(t, err)
	out := map[string]corev1.Secret{}
	for _, s := range list.Items {
		out[s.Name] = s
	}
	return out
}

func TestKubernetesLayout(t *testing.T) {
	ctx := context.Background()
	cs := runtimeClientset(t)
	ns := testNamespace(t, cs)
	b := NewKubernetesWithOptions(cs, ns, "land", testOptions)

	small := sample("land")
	require.NoError(t, b.Write(ctx, small))
	secrets := stateSecrets(t, cs, ns)
	require.Len(t, secrets, 1, "a small state is one Secret")
	head := secrets["gardener-state-land"]
	assert.Equal(t, corev1.SecretTypeOpaque, head.Type)
	assert.Equal(t, map[string]string{stateLabel: "land", roleLabel: roleHead}, head.Labels)
	assert.Equal(t, "1", head.Annotations[annoSerial])
	assert.Equal(t, small.Lineage, head.Annotations[annoLineage])
	assert.Equal(t, "1", head.Annotations[annoChunks])
	// A watcher finds the head by its name and reads the version it names.
	assert.Equal(t, "gardener-state-land", HeadName("land"))
	lineage, serial, ok := HeadVersion(head.Annotations)
	assert.True(t, ok)
	assert.Equal(t, small.Lineage, lineage)
	assert.Equal(t, small.Serial, serial)
	_, _, ok = HeadVersion(map[string]string{annoSerial: "x", annoLineage: "l"})
	assert.False(t, ok, "an invalid serial")

	large := largeState(t, "land", 4<<20)
	large.Lineage, large.Serial = small.Lineage, small.Serial
	require.NoError(t, b.Write(ctx, large))
	secrets = stateSecrets(t, cs, ns)
	head = secrets["gardener-state-land"]
	chunks, err := strconv.Atoi(head.Annotations[annoChunks])
	require.NoError(t, err)
	assert.GreaterOrEqual(t, chunks, 3)
	require.Len(t, secrets, chunks)
	writeID := head.Annotations[annoWriteID]
	for name, s := range secrets {
		assert.LessOrEqual(t, len(s.Data[dataKey]), DefaultChunkSize, name)
		if name == head.Name {
			continue
		}
		assert.True(t, strings.HasPrefix(name, "gardener-state-land-"+writeID+"-"), name)
		assert.True(t, ptr.Deref(s.Immutable, false), "chunk %s is immutable", name)
		assert.Equal(t, roleChunk, s.Labels[roleLabel])
	}

	// The next write replaces the chunk set and deletes the old one.
	require.NoError(t, b.Write(ctx, large))
	secrets = stateSecrets(t, cs, ns)
	require.Len(t, secrets, chunks)
	assert.NotEqual(t, writeID, secrets["gardener-state-land"].Annotations[annoWriteID])
	for name := range secrets {
		assert.NotContains(t, name, writeID)
	}
	got, err := b.Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, large, got)
}

// A writer that died after creating its chunks but before switching the head leaves chunks that
// readers never see and the next write deletes.
func TestKubernetesAbandonedChunks(t *testing.T) {
	ctx := context.Background()
	cs := runtimeClientset(t)
	ns := testNamespace(t, cs)
	b := NewKubernetesWithOptions(cs, ns, "land", testOptions).(*kube)
	s := sample("land")
	require.NoError(t, b.Write(ctx, s))

	abandoned := b.secret(b.chunkName("deadbeef", 1), roleChunk, []byte("half a state"), map[string]string{annoWriteID: "deadbeef", annoIndex: "1", annoSerial: "2"})
	_, err := cs.CoreV1().Secrets(ns).Create(ctx, abandoned, metav1.CreateOptions{})
	require.NoError(t, err)
	got, err := b.Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, s, got)

	require.NoError(t, b.Write(ctx, s))
	assert.NotContains(t, stateSecrets(t, cs, ns), abandoned.Name)
	got, err = b.Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, s, got)
}

func TestKubernetesDamagedState(t *testing.T) {
	ctx := context.Background()
	cs := runtimeClientset(t)
	ns := testNamespace(t, cs)
	b := NewKubernetesWithOptions(cs, ns, "land", KubernetesOptions{ChunkSize: 64 << 10})
	s := largeState(t, "land", 512<<10)
	require.NoError(t, b.Write(ctx, s))
	head, err := cs.CoreV1().Secrets(ns).Get(ctx, "gardener-state-land", metav1.GetOptions{})
	require.NoError(t, err)
	missing := b.(*kube).chunkName(head.Annotations[annoWriteID], 2)
	require.NoError(t, cs.CoreV1().Secrets(ns).Delete(ctx, missing, metav1.DeleteOptions{}))

	_, err = b.Read(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), missing+" is missing; the state is damaged")
}

func TestKubernetesLandscapeMismatch(t *testing.T) {
	ctx := context.Background()
	cs := runtimeClientset(t)
	ns := testNamespace(t, cs)
	b := NewKubernetesWithOptions(cs, ns, "land", testOptions)
	err := b.Write(ctx, sample("other"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `landscape "other"`)
}

func TestKubernetesMissingNamespace(t *testing.T) {
	ctx := context.Background()
	cs := runtimeClientset(t)
	b := NewKubernetesWithOptions(cs, "no-such-namespace", "land", testOptions)
	want := `namespace "no-such-namespace" does not exist`
	_, err := b.Read(ctx)
	require.ErrorContains(t, err, want)
	require.ErrorContains(t, b.Write(ctx, Empty("land")), want)
	_, err = b.Lock(ctx, LockInfo{Operation: "apply"})
	require.ErrorContains(t, err, want)
}

func TestKubernetesInvalidLandscape(t *testing.T) {
	b := NewKubernetes(nil, "garden", "not a label value!")
	_, err := b.Read(context.Background())
	require.ErrorContains(t, err, "cannot label")
}

// leaseAt creates the backend's Lease as a holder that renewed it at renewed would have.
func leaseAt(t *testing.T, cs kubernetes.Interface, ns string, renewed time.Time, seconds int32) {
	t.Helper()
	at := metav1.NewMicroTime(renewed)
	_, err := cs.CoordinationV1().Leases(ns).Create(context.Background(), &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "gardener-lock-land", Annotations: map[string]string{annoLockHolder: "ghost@gone pid 9", annoLockOperation: "apply"}},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity: ptr.To("dead-id"), LeaseDurationSeconds: ptr.To(seconds),
			AcquireTime: &at, RenewTime: &at,
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
}

func TestKubernetesLease(t *testing.T) {
	tests := []struct {
		name    string
		renewed time.Duration // before now
		seconds int32
		taken   bool
	}{
		{"expired lease is taken over", 10 * time.Second, 5, true},
		{"live lease is respected", 0, 60, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			cs := runtimeClientset(t)
			ns := testNamespace(t, cs)
			leaseAt(t, cs, ns, time.Now().Add(-tt.renewed), tt.seconds)
			b := NewKubernetesWithOptions(cs, ns, "land", testOptions)
			lock, err := b.Lock(ctx, LockInfo{Holder: "alice", Operation: "destroy"})
			if !tt.taken {
				var locked *LockedError
				require.ErrorAs(t, err, &locked)
				assert.Equal(t, "dead-id", locked.ID)
				assert.Equal(t, "ghost@gone pid 9", locked.Holder)
				assert.Equal(t, "apply", locked.Operation)
				assert.WithinDuration(t, time.Now().Add(60*time.Second), locked.Expires, 5*time.Second)
				return
			}
			require.NoError(t, err)
			lease, err := cs.CoordinationV1().Leases(ns).Get(ctx, "gardener-lock-land", metav1.GetOptions{})
			require.NoError(t, err)
			assert.Equal(t, lock.ID(), ptr.Deref(lease.Spec.HolderIdentity, ""))
			assert.Equal(t, int32(1), ptr.Deref(lease.Spec.LeaseDurationSeconds, 0))
			assert.Equal(t, int32(1), ptr.Deref(lease.Spec.LeaseTransitions, 0))
			assert.Equal(t, "alice", lease.Annotations[annoLockHolder])
			assert.Equal(t, "destroy", lease.Annotations[annoLockOperation])
			require.NoError(t, lock.Unlock(ctx))
			_, err = cs.CoordinationV1().Leases(ns).Get(ctx, "gardener-lock-land", metav1.GetOptions{})
			assert.True(t, err != nil, "unlock deletes the lease")
		})
	}
}

func TestKubernetesRenewalKeepsLeaseAlive(t *testing.T) {
	ctx := context.Background()
	cs := runtimeClientset(t)
	ns := testNamespace(t, cs)
	lock, err := NewKubernetesWithOptions(cs, ns, "land", testOptions).Lock(ctx, LockInfo{Holder: "alice", Operation: "daemon"})
	require.NoError(t, err)
	first, err := cs.CoordinationV1().Leases(ns).Get(ctx, "gardener-lock-land", metav1.GetOptions{})
	require.NoError(t, err)

	time.Sleep(3 * testOptions.LeaseDuration)
	_, err = NewKubernetesWithOptions(cs, ns, "land", testOptions).Lock(ctx, LockInfo{Operation: "apply"})
	var locked *LockedError
	require.ErrorAs(t, err, &locked, "a renewed lease is not taken over after its duration")
	assert.Equal(t, lock.ID(), locked.ID)
	now, err := cs.CoordinationV1().Leases(ns).Get(ctx, "gardener-lock-land", metav1.GetOptions{})
	require.NoError(t, err)
	assert.True(t, now.Spec.RenewTime.After(first.Spec.RenewTime.Time))
	select {
	case <-lock.Lost():
		t.Fatal("a renewed lock is not lost")
	default:
	}
	require.NoError(t, lock.Unlock(ctx))
}

func TestKubernetesLockLostAfterForceUnlock(t *testing.T) {
	ctx := context.Background()
	cs := runtimeClientset(t)
	ns := testNamespace(t, cs)
	b := NewKubernetesWithOptions(cs, ns, "land", testOptions)
	lock, err := b.Lock(ctx, LockInfo{Operation: "apply"})
	require.NoError(t, err)
	require.NoError(t, b.ForceUnlock(ctx, lock.ID()))
	select {
	case <-lock.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("the holder does not learn that its lock was lost")
	}
	require.ErrorIs(t, lock.Unlock(ctx), ErrLockLost)
}

// TestKubernetesChunkCountIsBounded: a head Secret that names more chunks than a state can have
// is refused before a single chunk is read.
func TestKubernetesChunkCountIsBounded(t *testing.T) {
	ctx := context.Background()
	cs := runtimeClientset(t)
	ns := testNamespace(t, cs)
	b := NewKubernetes(cs, ns, "land")
	require.NoError(t, b.Write(ctx, largeState(t, "land", 1<<10)))
	head, err := cs.CoreV1().Secrets(ns).Get(ctx, "gardener-state-land", metav1.GetOptions{})
	require.NoError(t, err)
	head.Annotations[annoChunks] = "100000000"
	_, err = cs.CoreV1().Secrets(ns).Update(ctx, head, metav1.UpdateOptions{})
	require.NoError(t, err)

	_, err = b.Read(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the head names 100000000 chunks, more than the 1024 gardener reads")
}
