package state

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/declarative-gardener/gardener/internal/atomicfile"
)

// DefaultLocalPath is the local backend's state file, relative to the landscape directory, when
// the landscape has no state block (the loader uses the same default for a local state block
// without path).
const DefaultLocalPath = "gardener.state"

// MaxStateSize is the largest state read, from a file or decompressed from Secrets: about 25
// times the state of 12,800 objects, and small enough that no state file or Secret can exhaust
// memory.
const MaxStateSize = 64 << 20

// DefaultPollInterval is how often Lock looks at a held lock while it waits.
const DefaultPollInterval = time.Second

// LocalOptions tune the local backend; the zero value is ready to use.
type LocalOptions struct {
	// Landscape is the name of the landscape whose state the file keeps: a file holding another
	// landscape's state is refused, and writes record the name. Empty accepts any (tests).
	Landscape string
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
	data, err := readRegular(b.path)
	if errors.Is(err, fs.ErrNotExist) {
		return Empty(b.opts.Landscape), nil
	}
	if err != nil {
		return nil, fmt.Errorf("state %s: %w", b.path, err)
	}
	s, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("state %s: %w", b.path, err)
	}
	if want := b.opts.Landscape; want != "" {
		switch s.Landscape {
		case want:
		case "":
			// Written before states recorded their landscape: this one's, as it always was.
			s.Landscape = want
		default:
			return nil, fmt.Errorf("state %s holds the state of landscape %q, not %q; each landscape needs a state of its own (its state block's path)", b.path, s.Landscape, want)
		}
	}
	return s, nil
}

// readRegular reads the regular file at path, up to MaxStateSize: the path is in the landscape
// directory, which is untrusted, and a FIFO or a device there must not hang or exhaust a plan.
func readRegular(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (mode %s)", info.Mode().Type())
	}
	if info.Size() > MaxStateSize {
		return nil, fmt.Errorf("larger than %d MiB, the largest state gardener reads", MaxStateSize>>20)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxStateSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxStateSize {
		return nil, fmt.Errorf("larger than %d MiB, the largest state gardener reads", MaxStateSize>>20)
	}
	return data, nil
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
	if b.opts.Landscape != "" {
		s.Landscape = b.opts.Landscape
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
