package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/declarative-gardener/gardener/internal/formatversion"
)

// SnapshotFormatVersion is the snapshot file format this build writes and reads ("1.1"; earlier
// snapshots wrote the number 1, which reads as 1.0). Its major version changes whenever a field
// changes meaning; its minor version when a field is added that a reader may ignore: 1.1 added
// recorded_at.
var SnapshotFormatVersion = formatversion.Version{Major: 1, Minor: 1}

// SnapshotFile is a snapshot as stored on disk: one Recording per cluster of the landscape, by
// the cluster's name in the landscape (`cluster "runtime" {...}`).
//
// The file is indented JSON with sorted keys, recordings in canonical order (resources by
// group and kind, reads by group, version, resource, namespace, selector and name, listed objects
// by namespace and name) and objects complete (managedFields included), so it is byte-stable
// and reviewable in a diff; only OpenAPI documents are compressed.
type SnapshotFile struct {
	FormatVersion formatversion.Version `json:"format_version"`
	// RecordedAt is when the clusters were read (to the second, UTC; zero in snapshots recorded
	// before it was kept): a plan from the snapshot is made at that time unless told another
	// (`--at`), so that it reads the same on every run.
	RecordedAt time.Time             `json:"recorded_at,omitzero"`
	Clusters   map[string]*Recording `json:"clusters"`
}

// Cluster returns a Snapshot of the named cluster, or an error naming the clusters the file has.
func (f *SnapshotFile) Cluster(name string) (*Snapshot, error) {
	rec, ok := f.Clusters[name]
	if !ok || rec == nil {
		return nil, fmt.Errorf("snapshot: no recording of cluster %q (recorded: %v)", name, slices.Sorted(maps.Keys(f.Clusters)))
	}
	return NewSnapshot(rec), nil
}

// WriteSnapshot writes f in the canonical form (format version SnapshotFormatVersion; a zero
// FormatVersion means that one). It sorts the recordings in place.
func WriteSnapshot(w io.Writer, f *SnapshotFile) error {
	if !f.FormatVersion.IsZero() && f.FormatVersion != SnapshotFormatVersion {
		return fmt.Errorf("snapshot: cannot write format_version %s (this gardener writes %s)", f.FormatVersion, SnapshotFormatVersion)
	}
	out := SnapshotFile{FormatVersion: SnapshotFormatVersion, RecordedAt: f.RecordedAt.UTC().Truncate(time.Second), Clusters: f.Clusters}
	if out.Clusters == nil {
		out.Clusters = map[string]*Recording{}
	}
	for name, rec := range out.Clusters {
		if rec == nil {
			return fmt.Errorf("snapshot: cluster %q has no recording", name)
		}
		rec.normalize()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("snapshot: encode: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("snapshot: write: %w", err)
	}
	return nil
}

// ReadSnapshot reads a snapshot file written by WriteSnapshot.
func ReadSnapshot(r io.Reader) (*SnapshotFile, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("snapshot: read: %w", err)
	}
	var header struct {
		FormatVersion *formatversion.Version `json:"format_version"`
	}
	if err := json.Unmarshal(data, &header); err != nil {
		return nil, fmt.Errorf("snapshot: not a snapshot file: %w", err)
	}
	if header.FormatVersion == nil {
		return nil, fmt.Errorf("snapshot: not a snapshot file: format_version is missing")
	}
	if !SnapshotFormatVersion.Reads(*header.FormatVersion) {
		return nil, fmt.Errorf("snapshot: format_version %s is not supported (this gardener reads %d.x)", header.FormatVersion, SnapshotFormatVersion.Major)
	}
	var f SnapshotFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("snapshot: decode: %w", err)
	}
	for name, rec := range f.Clusters {
		if rec == nil {
			return nil, fmt.Errorf("snapshot: cluster %q has no recording", name)
		}
	}
	return &f, nil
}
