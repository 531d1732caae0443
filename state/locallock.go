package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/declarative-gardener/gardener/internal/atomicfile"
	"github.com/declarative-gardener/gardener/internal/termsafe"
)

// lockFile is the content of the local backend's lock file.
type lockFile struct {
	ID        string    `json:"id"`
	Holder    string    `json:"holder"`
	Operation string    `json:"operation"`
	Acquired  time.Time `json:"acquired"`
}

func (lf lockFile) lockedError() *LockedError {
	return &LockedError{ID: lf.ID, Holder: lf.Holder, Operation: lf.Operation, Acquired: lf.Acquired}
}

func (b *local) lockPath() string { return b.path + ".lock" }

func (b *local) Lock(ctx context.Context, info LockInfo) (Lock, error) {
	lf := lockFile{ID: newUUID(), Holder: info.holder(), Operation: info.Operation, Acquired: time.Now().UTC().Truncate(time.Second)}
	data, err := json.MarshalIndent(lf, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("state lock %s: %w", b.lockPath(), err)
	}
	return acquire(ctx, info.Wait, b.opts.PollInterval, func(context.Context) (Lock, error) {
		return b.tryLock(lf, append(data, '\n'))
	})
}

// tryLock creates the lock file: a complete temporary file hard-linked to the lock's name, which
// fails when the lock exists, so that taking the lock and writing its content are one step.
func (b *local) tryLock(lf lockFile, data []byte) (Lock, error) {
	path := b.lockPath()
	tmp, err := atomicfile.TempNextTo(path, data, 0o600)
	if err != nil {
		return nil, fmt.Errorf("state lock %s: %w", path, err)
	}
	defer os.Remove(tmp)
	// The lock may be released between a failed link and reading it; try again then.
	for range 3 {
		err := os.Link(tmp, path)
		if err == nil {
			atomicfile.SyncDir(filepath.Dir(path))
			return &localLock{backend: b, id: lf.ID}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("state lock %s: %w", path, err)
		}
		held, err := b.readLock()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return nil, held.lockedError()
	}
	return nil, fmt.Errorf("state lock %s: taken and released repeatedly; try again", path)
}

func (b *local) readLock() (lockFile, error) {
	var lf lockFile
	data, err := readRegular(b.lockPath())
	if err != nil {
		return lf, fmt.Errorf("state lock %s: %w", b.lockPath(), err)
	}
	if err := json.Unmarshal(data, &lf); err != nil {
		return lf, fmt.Errorf("state lock %s: unreadable (%w); remove the file if no gardener runs", b.lockPath(), err)
	}
	return lf, nil
}

func (b *local) ForceUnlock(_ context.Context, id string) error {
	held, err := b.readLock()
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("state lock %s: %w", b.lockPath(), ErrNotLocked)
	}
	if err != nil {
		return err
	}
	if held.ID != id {
		return fmt.Errorf("state lock %s: %w: the lock is held by %s (%s), not %s", b.lockPath(), ErrLockIDMismatch, termsafe.Escape(held.ID), termsafe.Escape(held.Holder), termsafe.Escape(id))
	}
	if err := os.Remove(b.lockPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("state lock %s: %w", b.lockPath(), err)
	}
	return nil
}

// localLock is a held lock file.
type localLock struct {
	backend  *local
	id       string
	released bool
}

func (l *localLock) ID() string { return l.id }

func (l *localLock) Lost() <-chan struct{} { return neverLost }

// Unlock removes the lock file if it is still this lock's, so that a lock force-unlocked and
// taken by someone else meanwhile stays theirs. A second Unlock after a successful one does
// nothing.
func (l *localLock) Unlock(context.Context) error {
	if l.released {
		return nil
	}
	err := l.release()
	l.released = err == nil || errors.Is(err, ErrLockLost)
	return err
}

func (l *localLock) release() error {
	path := l.backend.lockPath()
	held, err := l.backend.readLock()
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("state lock %s: %w: %s was force-unlocked", path, ErrLockLost, l.id)
	}
	if err != nil {
		return err
	}
	if held.ID != l.id {
		return fmt.Errorf("state lock %s: %w: %s was force-unlocked and is now held by %s (lock ID %s)", path, ErrLockLost, l.id, termsafe.Escape(held.Holder), termsafe.Escape(held.ID))
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("state lock %s: %w", path, err)
	}
	return nil
}
