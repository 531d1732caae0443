package state

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/internal/termsafe"
)

// The state lock is a coordination.k8s.io Lease written here with the typed client rather than
// through client-go's resourcelock.LeaseLock (or the LeaderElector above it), which does not fit
// a lock that people read and break:
//   - LeaseLock writes only the Lease's name, namespace, labels and spec: the lock's holder
//     (user@host pid N) and operation, which a "state is locked" error and force-unlock show,
//     live in annotations, which its Create drops and its Update cannot set.
//   - force-unlock deletes the Lease with UID and resourceVersion preconditions, so that it never
//     breaks a lock taken meanwhile; LeaseLock has no delete.
//   - LeaderElector campaigns until it leads and calls back on loss; the state lock is tried once
//     per poll until --lock-timeout and reports the holder otherwise, and losing it (ErrLockLost)
//     must fail the next state write, not end the process.
// What LeaseLock would do (Get, then Create or an Update guarded by resourceVersion, renewal of
// RenewTime) is what tryLease and startRenewal do, on the same Lease fields, so the Lease reads
// the same to kubectl and to leader-election tooling.

// leaseAttempts bounds how often one lock attempt retries after losing a race (create or update
// conflicts) before reporting the lock as held.
const leaseAttempts = 3

func (b *kube) Lock(ctx context.Context, info LockInfo) (Lock, error) {
	if b.invalid != nil {
		return nil, b.invalid
	}
	id := newUUID()
	return acquire(ctx, info.Wait, b.opts.PollInterval, func(ctx context.Context) (Lock, error) {
		return b.tryLease(ctx, id, info)
	})
}

// tryLease takes the Lease when it is missing, released or expired. An expired lease (renewTime
// + leaseDurationSeconds in the past) belongs to a holder that died or lost the API server for a
// whole lease duration; it is taken over.
func (b *kube) tryLease(ctx context.Context, id string, info LockInfo) (Lock, error) {
	leases := b.client.CoordinationV1().Leases(b.namespace)
	for range leaseAttempts {
		now := metav1.NowMicro()
		cur, err := leases.Get(ctx, b.leaseName(), metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			cur = nil
		case err != nil:
			return nil, fmt.Errorf("%s: %w", b.leaseWhere(), err)
		case leaseHeld(cur, now.Time):
			return nil, lockedErrorOf(cur)
		}
		lease := b.lease(cur, id, info, now)
		if cur == nil {
			_, err = leases.Create(ctx, lease, metav1.CreateOptions{})
		} else {
			_, err = leases.Update(ctx, lease, metav1.UpdateOptions{})
		}
		switch {
		case err == nil:
			return b.startRenewal(id), nil
		case namespaceMissing(err):
			return nil, b.errNamespace()
		case apierrors.IsAlreadyExists(err), apierrors.IsConflict(err), apierrors.IsNotFound(err):
			continue // someone else was faster; look again
		default:
			return nil, fmt.Errorf("%s: %w", b.leaseWhere(), err)
		}
	}
	return nil, fmt.Errorf("%s: taken and released repeatedly; try again", b.leaseWhere())
}

// lease is the Lease held by id: cur taken over, or a new one.
func (b *kube) lease(cur *coordinationv1.Lease, id string, info LockInfo, now metav1.MicroTime) *coordinationv1.Lease {
	l := &coordinationv1.Lease{}
	transitions := int32(0)
	if cur != nil {
		l = cur.DeepCopy()
		transitions = ptr.Deref(cur.Spec.LeaseTransitions, 0) + 1
	}
	l.Name, l.Namespace = b.leaseName(), b.namespace
	l.Labels = b.labels("")
	l.Annotations = map[string]string{annoLockHolder: info.holder(), annoLockOperation: info.Operation}
	l.Spec = coordinationv1.LeaseSpec{
		HolderIdentity:       ptr.To(id),
		LeaseDurationSeconds: ptr.To(int32(b.opts.LeaseDuration / time.Second)),
		AcquireTime:          &now,
		RenewTime:            &now,
		LeaseTransitions:     ptr.To(transitions),
	}
	return l
}

func (b *kube) leaseWhere() string {
	return fmt.Sprintf("state lock lease %s/%s", b.namespace, b.leaseName())
}

// leaseHeld reports whether a lease has a holder whose last renewal has not expired.
func leaseHeld(l *coordinationv1.Lease, now time.Time) bool {
	if ptr.Deref(l.Spec.HolderIdentity, "") == "" {
		return false
	}
	expires := leaseExpiry(l)
	return expires.IsZero() || now.Before(expires)
}

// leaseExpiry is when a lease expires without renewal; zero when it does not say.
func leaseExpiry(l *coordinationv1.Lease) time.Time {
	renewed := l.Spec.RenewTime
	if renewed == nil {
		renewed = l.Spec.AcquireTime
	}
	if renewed == nil || l.Spec.LeaseDurationSeconds == nil {
		return time.Time{}
	}
	return renewed.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second)
}

func lockedErrorOf(l *coordinationv1.Lease) *LockedError {
	e := &LockedError{
		ID:        ptr.Deref(l.Spec.HolderIdentity, ""),
		Holder:    l.Annotations[annoLockHolder],
		Operation: l.Annotations[annoLockOperation],
		Expires:   leaseExpiry(l),
	}
	if l.Spec.AcquireTime != nil {
		e.Acquired = l.Spec.AcquireTime.Time
	}
	return e
}

func (b *kube) ForceUnlock(ctx context.Context, id string) error {
	if b.invalid != nil {
		return b.invalid
	}
	leases := b.client.CoordinationV1().Leases(b.namespace)
	cur, err := leases.Get(ctx, b.leaseName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("%s: %w", b.leaseWhere(), ErrNotLocked)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", b.leaseWhere(), err)
	}
	if held := ptr.Deref(cur.Spec.HolderIdentity, ""); held != id {
		return fmt.Errorf("%s: %w: the lease is held by %s, not %s", b.leaseWhere(), ErrLockIDMismatch, describeLease(cur), termsafe.Escape(id))
	}
	err = leases.Delete(ctx, b.leaseName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cur.UID, ResourceVersion: &cur.ResourceVersion}})
	switch {
	case apierrors.IsConflict(err), apierrors.IsNotFound(err):
		return fmt.Errorf("%s: %w: the lease changed meanwhile; look again", b.leaseWhere(), ErrLockIDMismatch)
	case err != nil:
		return fmt.Errorf("%s: %w", b.leaseWhere(), err)
	}
	return nil
}

// describeLease names a lease's holder for errors, escaped (termsafe) as LockedError does.
func describeLease(l *coordinationv1.Lease) string {
	id := termsafe.Escape(ptr.Deref(l.Spec.HolderIdentity, ""))
	if id == "" {
		return "nobody"
	}
	if h := l.Annotations[annoLockHolder]; h != "" {
		return fmt.Sprintf("%s (%s)", id, termsafe.Escape(h))
	}
	return id
}

// leaseLock is a held Lease, renewed by a goroutine until Unlock.
type leaseLock struct {
	b      *kube
	id     string
	cancel context.CancelFunc
	done   chan struct{}
	lost   chan struct{}

	mu       sync.Mutex
	lostErr  error
	released bool
}

func (b *kube) startRenewal(id string) *leaseLock {
	ctx, cancel := context.WithCancel(context.Background())
	l := &leaseLock{b: b, id: id, cancel: cancel, done: make(chan struct{}), lost: make(chan struct{})}
	go l.renew(ctx, time.Now())
	return l
}

func (l *leaseLock) ID() string { return l.id }

func (l *leaseLock) Lost() <-chan struct{} { return l.lost }

// renew keeps the lease alive. Transient failures are retried on the next tick; the lock counts
// as lost when the lease was taken or deleted, or when no renewal succeeded for a whole lease
// duration (another process may have taken it over by then).
func (l *leaseLock) renew(ctx context.Context, last time.Time) {
	defer close(l.done)
	ticker := time.NewTicker(l.b.opts.RenewInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		err := l.renewOnce(ctx)
		switch {
		case err == nil:
			last = time.Now()
		case ctx.Err() != nil:
			return
		case errors.Is(err, ErrLockLost):
			l.markLost(err)
			return
		case time.Since(last) >= l.b.opts.LeaseDuration:
			l.markLost(fmt.Errorf("%s: %w: not renewed for %s: %w", l.b.leaseWhere(), ErrLockLost, l.b.opts.LeaseDuration, err))
			return
		}
	}
}

func (l *leaseLock) renewOnce(ctx context.Context) error {
	leases := l.b.client.CoordinationV1().Leases(l.b.namespace)
	cur, err := l.current(ctx)
	if err != nil {
		return err
	}
	cur.Spec.RenewTime = ptr.To(metav1.NowMicro())
	_, err = leases.Update(ctx, cur, metav1.UpdateOptions{})
	return err
}

// current returns the lease if this lock still holds it, and an ErrLockLost error otherwise.
func (l *leaseLock) current(ctx context.Context) (*coordinationv1.Lease, error) {
	cur, err := l.b.client.CoordinationV1().Leases(l.b.namespace).Get(ctx, l.b.leaseName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("%s: %w: %s was force-unlocked", l.b.leaseWhere(), ErrLockLost, l.id)
	}
	if err != nil {
		return nil, err
	}
	if ptr.Deref(cur.Spec.HolderIdentity, "") != l.id {
		return nil, fmt.Errorf("%s: %w: %s is now held by %s", l.b.leaseWhere(), ErrLockLost, l.id, describeLease(cur))
	}
	return cur, nil
}

func (l *leaseLock) markLost(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lostErr = err
	close(l.lost)
}

// Unlock stops the renewal and deletes the lease if this lock still holds it. It goes on when
// ctx is cancelled (a holder interrupted by Ctrl-C still releases its lock), bounded by
// unlockTimeout. A second Unlock after a successful one does nothing.
func (l *leaseLock) Unlock(ctx context.Context) error {
	l.cancel()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return nil
	}
	err := l.lostErr
	if err == nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unlockTimeout)
		defer cancel()
		err = l.release(ctx)
	}
	l.released = err == nil || errors.Is(err, ErrLockLost)
	return err
}

// unlockTimeout bounds Unlock; a lease left behind expires by itself.
const unlockTimeout = 30 * time.Second

func (l *leaseLock) release(ctx context.Context) error {
	leases := l.b.client.CoordinationV1().Leases(l.b.namespace)
	for range leaseAttempts {
		cur, err := l.current(ctx)
		if err != nil {
			if errors.Is(err, ErrLockLost) {
				return err
			}
			return fmt.Errorf("%s: %w", l.b.leaseWhere(), err)
		}
		err = leases.Delete(ctx, l.b.leaseName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cur.UID, ResourceVersion: &cur.ResourceVersion}})
		if err == nil || apierrors.IsNotFound(err) {
			return nil
		}
		if !apierrors.IsConflict(err) {
			return fmt.Errorf("%s: %w", l.b.leaseWhere(), err)
		}
	}
	return fmt.Errorf("%s: the lease kept changing; it expires by itself", l.b.leaseWhere())
}
