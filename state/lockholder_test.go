package state

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// plantedHolder is a lock holder written by someone who wants to take over the terminal of
// whoever meets the lock: clear the screen, retitle the window, overwrite the line, add one.
const plantedHolder = "eve\x1b[2J\x1b]0;owned\a\rApply complete!\nforged"

const plantedHolderShown = `eve\x1b[2J\x1b]0;owned\a\rApply complete!\nforged`

// assertOneSafeLine fails when msg holds a character a terminal obeys, a line break included.
func assertOneSafeLine(t *testing.T, msg string) {
	t.Helper()
	for _, r := range msg {
		if !unicode.IsGraphic(r) {
			t.Fatalf("raw %U in %q", r, msg)
		}
	}
}

func TestLocalLockHolderIsEscaped(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), DefaultLocalPath)
	planted, err := json.Marshal(lockFile{ID: "id\x1b[2J", Holder: plantedHolder, Operation: "apply\r", Acquired: time.Now()})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path+".lock", planted, 0o600))

	_, err = NewLocal(path).Lock(ctx, LockInfo{Holder: "alice", Operation: "apply"})
	var locked *LockedError
	require.ErrorAs(t, err, &locked)
	assert.Equal(t, plantedHolder, locked.Holder, "the error keeps the holder as it is for programs")
	assertOneSafeLine(t, err.Error())
	assert.Contains(t, err.Error(), "by "+plantedHolderShown+` for apply\r`)

	err = NewLocal(path).ForceUnlock(ctx, "other\x1b[2J")
	require.ErrorIs(t, err, ErrLockIDMismatch)
	assertOneSafeLine(t, err.Error())
	assert.Contains(t, err.Error(), `the lock is held by id\x1b[2J (`+plantedHolderShown+`), not other\x1b[2J`)
}

// On a real API server a Lease's holder identity and annotations can hold any text.
func TestKubernetesLockHolderIsEscaped(t *testing.T) {
	ctx := context.Background()
	cs := runtimeClientset(t)
	ns := testNamespace(t, cs)
	now := metav1.NewMicroTime(time.Now())
	_, err := cs.CoordinationV1().Leases(ns).Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "gardener-lock-land", Annotations: map[string]string{annoLockHolder: plantedHolder, annoLockOperation: "apply\x1b[31m"}},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity: ptr.To("id\x1b]0;t\a"), LeaseDurationSeconds: ptr.To(int32(60)),
			AcquireTime: &now, RenewTime: &now,
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	b := NewKubernetesWithOptions(cs, ns, "land", testOptions)

	_, err = b.Lock(ctx, LockInfo{Holder: "alice", Operation: "apply"})
	var locked *LockedError
	require.ErrorAs(t, err, &locked)
	assert.Equal(t, plantedHolder, locked.Holder)
	assertOneSafeLine(t, err.Error())
	assert.Contains(t, err.Error(), "by "+plantedHolderShown+` for apply\x1b[31m`)
	assert.Contains(t, err.Error(), `force-unlock id\x1b]0;t\a`)

	err = b.ForceUnlock(ctx, "wrong")
	require.ErrorIs(t, err, ErrLockIDMismatch)
	assertOneSafeLine(t, err.Error())
	assert.Contains(t, err.Error(), `the lease is held by id\x1b]0;t\a (`+plantedHolderShown+`), not wrong`)
}
