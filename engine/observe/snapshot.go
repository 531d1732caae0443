package observe

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ErrNotRecorded is wrapped by every Snapshot error for a read the recording does not hold: the
// landscape changed since the snapshot was taken, or the snapshot came from a different plan.
var ErrNotRecorded = errors.New("not recorded")

// Snapshot is a Cluster that replays a Recording, so that `gardener plan --observed SNAPSHOT`
// and golden tests run without a cluster and read exactly what the recorded plan read. Every
// answer is a deep copy; a read that was not recorded fails with ErrNotRecorded, unless the
// recording is of an empty cluster (Recording.Empty), where it finds nothing.
type Snapshot struct {
	rec   *Recording
	lists map[readKey][]*unstructured.Unstructured
	gets  map[readKey]*unstructured.Unstructured
	docs  map[string]string
}

var _ Cluster = (*Snapshot)(nil)

// NewSnapshot replays rec. Later entries with the same key win.
func NewSnapshot(rec *Recording) *Snapshot {
	s := &Snapshot{
		rec:   rec,
		lists: make(map[readKey][]*unstructured.Unstructured, len(rec.Lists)),
		gets:  make(map[readKey]*unstructured.Unstructured, len(rec.Gets)),
		docs:  make(map[string]string, len(rec.OpenAPIDocuments)),
	}
	for _, l := range rec.Lists {
		s.lists[l.key()] = l.Objects
	}
	for _, g := range rec.Gets {
		s.gets[g.key()] = g.Object
	}
	for _, d := range rec.OpenAPIDocuments {
		s.docs[d.Path] = d.GzipBase64
	}
	return s
}

// ServerVersion replays the recorded server version.
func (s *Snapshot) ServerVersion(context.Context) (string, error) {
	if s.rec.ServerVersion == "" {
		return "", fmt.Errorf("snapshot: server version: %w", ErrNotRecorded)
	}
	return s.rec.ServerVersion, nil
}

// Resources replays the recorded discovery.
func (s *Snapshot) Resources(context.Context) ([]Resource, error) {
	if s.rec.Resources == nil {
		return nil, fmt.Errorf("snapshot: discovery: %w", ErrNotRecorded)
	}
	out := make([]Resource, 0, len(s.rec.Resources))
	for _, r := range s.rec.Resources {
		out = append(out, r.resource())
	}
	return out, nil
}

// List replays a recorded LIST with exactly these arguments.
func (s *Snapshot) List(_ context.Context, gvr schema.GroupVersionResource, namespace, labelSelector string) ([]unstructured.Unstructured, error) {
	key := readKey{gvr: gvr, namespace: namespace, selector: labelSelector}
	objs, ok := s.lists[key]
	if !ok && s.rec.Empty {
		return nil, nil
	}
	if !ok {
		return nil, fmt.Errorf("snapshot: %s: %w", describeRead("LIST", key), ErrNotRecorded)
	}
	out := make([]unstructured.Unstructured, len(objs))
	for i, obj := range objs {
		out[i] = *obj.DeepCopy()
	}
	return out, nil
}

// Get replays a recorded GET, including a recorded "not found".
func (s *Snapshot) Get(_ context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	key := readKey{gvr: gvr, namespace: namespace, name: name}
	obj, ok := s.gets[key]
	if !ok && s.rec.Empty {
		return nil, nil
	}
	if !ok {
		return nil, fmt.Errorf("snapshot: %s: %w", describeRead("GET", key), ErrNotRecorded)
	}
	return obj.DeepCopy(), nil
}

// OpenAPIV3Index replays the recorded OpenAPI v3 index.
func (s *Snapshot) OpenAPIV3Index(context.Context) (map[string]string, error) {
	if s.rec.OpenAPIIndex == nil {
		return nil, fmt.Errorf("snapshot: openapi v3 index: %w", ErrNotRecorded)
	}
	out := make(map[string]string, len(s.rec.OpenAPIIndex))
	for k, v := range s.rec.OpenAPIIndex {
		out[k] = v
	}
	return out, nil
}

// OpenAPIV3 replays a recorded OpenAPI v3 document.
func (s *Snapshot) OpenAPIV3(_ context.Context, path string) ([]byte, error) {
	encoded, ok := s.docs[path]
	if !ok {
		return nil, fmt.Errorf("snapshot: openapi v3 document %q: %w", path, ErrNotRecorded)
	}
	doc, err := decompressDocument(encoded)
	if err != nil {
		return nil, fmt.Errorf("snapshot: openapi v3 document %q: %w", path, err)
	}
	return doc, nil
}

// RefreshDiscovery does nothing: the recording already holds the discovery answer the recorded
// run ended with, refreshed or not. Implementing it keeps Observe's request counts identical
// between a live run and its replay.
func (s *Snapshot) RefreshDiscovery(context.Context) error { return nil }
