package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/declarative-gardener/gardener/internal/termsafe"
)

// Backend stores one landscape's state and serialises the processes that change it. Writers hold
// the Lock; the lineage and serial checks of Write catch the ones that did not.
type Backend interface {
	// Read returns the stored state, or an empty State (no components, serial 0) when none exists.
	Read(ctx context.Context) (*State, error)
	// Write stores s. On the first write it gives s a new Lineage; every write increments
	// s.Serial. It refuses (ErrLineageMismatch, ErrStaleSerial) a state whose lineage differs
	// from the stored one or whose serial is older than the stored one, because someone else
	// wrote meanwhile and storing s would lose their changes. s is changed only on success.
	Write(ctx context.Context, s *State) error
	// Lock takes the state's lock. When the lock is held it fails at once with a *LockedError, or,
	// with info.Wait > 0, polls until the lock is free or Wait has passed.
	Lock(ctx context.Context, info LockInfo) (Lock, error)
	// ForceUnlock releases the lock with the given ID whoever holds it, for a holder that died.
	// It refuses another ID, so that a lock taken since the ID was read is not broken.
	ForceUnlock(ctx context.Context, id string) error
}

// LockInfo describes who takes a lock, so that a process finding it held can say who holds it.
type LockInfo struct {
	// Holder names the process, e.g. "user@host pid 123"; empty means DefaultHolder().
	Holder string
	// Operation is what the holder does: "apply", "destroy", "daemon", "state rm".
	Operation string
	// Wait is how long Lock polls a held lock before giving up; zero fails at once.
	Wait time.Duration
}

// Lock is a held state lock.
type Lock interface {
	// ID identifies the lock for force-unlock.
	ID() string
	// Unlock releases the lock. It fails when the lock was lost meanwhile (force-unlocked, or a
	// lease that could not be renewed in time and was taken over).
	Unlock(ctx context.Context) error
	// Lost is closed when the lock is known to be lost while held, so that a long-running holder
	// (the daemon, a long apply) stops writing; it is never closed for a lock that cannot expire.
	Lost() <-chan struct{}
}

// LockedError says that the state is locked by someone else and by whom.
type LockedError struct {
	ID, Holder, Operation string
	Acquired, Expires     time.Time
	// Waited is how long Lock waited before giving up.
	Waited time.Duration
}

// Error names the holder. Whoever can write the lock (a Lease, a lock file) chooses its holder,
// operation and ID, and the message is printed on terminals: they are escaped (termsafe) and
// stay on one line.
func (e *LockedError) Error() string {
	var b strings.Builder
	b.WriteString("state is locked")
	if e.Holder != "" {
		fmt.Fprintf(&b, " by %s", termsafe.Escape(e.Holder))
	}
	if e.Operation != "" {
		fmt.Fprintf(&b, " for %s", termsafe.Escape(e.Operation))
	}
	if !e.Acquired.IsZero() {
		fmt.Fprintf(&b, " since %s", e.Acquired.UTC().Format(time.RFC3339))
	}
	id := termsafe.Escape(e.ID)
	fmt.Fprintf(&b, " (lock ID %s", id)
	if !e.Expires.IsZero() {
		fmt.Fprintf(&b, ", expires %s unless renewed", e.Expires.UTC().Format(time.RFC3339))
	}
	b.WriteString(")")
	if e.Waited > 0 {
		fmt.Fprintf(&b, "; waited %s", e.Waited.Round(time.Millisecond))
	}
	fmt.Fprintf(&b, "; if its holder is gone, release it with force-unlock %s", id)
	return b.String()
}

// Errors of Write and ForceUnlock, for errors.Is.
var (
	// ErrLineageMismatch means the state written belongs to another lineage than the stored one.
	ErrLineageMismatch = errors.New("lineage differs from the stored state")
	// ErrStaleSerial means the stored state is newer than the one the writer read.
	ErrStaleSerial = errors.New("stored state is newer")
	// ErrNotLocked means ForceUnlock found no lock.
	ErrNotLocked = errors.New("state is not locked")
	// ErrLockIDMismatch means ForceUnlock was given another ID than the lock's.
	ErrLockIDMismatch = errors.New("lock ID does not match")
	// ErrLockLost means Unlock found the lock released or taken by someone else.
	ErrLockLost = errors.New("lock was lost")
)

// DefaultHolder names this process as "user@host pid N".
func DefaultHolder() string {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if name == "" {
		name = "unknown"
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	return fmt.Sprintf("%s@%s pid %d", name, host, os.Getpid())
}

func (info LockInfo) holder() string {
	if info.Holder == "" {
		return DefaultHolder()
	}
	return info.Holder
}
