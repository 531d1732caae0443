package state

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/declarative-gardener/gardener/internal/atomicfile"
)

// DefaultLocalPath is the local backend's state file, relative to the landscape directory, when
// the landscape has no state block (the loader uses the same default for a local state block
// without path).
const DefaultLocalPath = "gardener.state"

// DefaultPollInterval is how often Lock looks at a held lock while it waits.
const DefaultPollInterval = time.Second

// LocalOptions tune the local backend; the zero value is ready to use.
type LocalOptions struct {
	// PollInterval is how often a waiting Lock retries; zero means DefaultPollInterval.
	PollInterval time.Duration
}

// local keeps the state in a JSON file, readable only by its owner because outputs may be
// confidential. Writes go to a temporary file in the same directory that is synced and renamed
// over the state, so a crash leaves the old state or the new one, never a mix. The lock is a
// second file, "<path>.lock", created atomically by hard-linking a complete temporary file, so
// that no reader ever sees an empty lock file.
type local struct {
	path string
	opts LocalOptions
}

// NewLocal returns the backend keeping the state in the file at path.
func NewLocal(path string) Backend { return NewLocalWithOptions(path, LocalOptions{}) }

// NewLocalWithOptions is NewLocal with options.
func NewLocalWithOptions(path string, opts LocalOptions) Backend {
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	return &local{path: path, opts: opts}
}

func (b *local) Read(_ context.Context) (*State, error) {
	data, err := os.ReadFile(b.path)
	if errors.Is(err, fs.ErrNotExist) {
		return Empty(""), nil
	}
	if err != nil {
		return nil, fmt.Errorf("state %s: %w", b.path, err)
	}
	s, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("state %s: %w", b.path, err)
	}
	return s, nil
}

func (b *local) Write(ctx context.Context, s *State) error {
	cur, err := b.Read(ctx)
	if err != nil {
		return err
	}
	lineage, serial, err := next("state "+b.path, stored{exists: cur.Lineage != "", lineage: cur.Lineage, serial: cur.Serial}, s)
	if err != nil {
		return err
	}
	data, err := encode(prepared(s, lineage, serial))
	if err != nil {
		return err
	}
	if err := atomicfile.Write(b.path, data, 0o600); err != nil {
		return fmt.Errorf("state %s: %w", b.path, err)
	}
	s.FormatVersion, s.Lineage, s.Serial = FormatVersion, lineage, serial
	return nil
}
