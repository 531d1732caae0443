package observe

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Recorder is a Cluster that passes every read to another Cluster and remembers each answer, so
// that `gardener snapshot` can save exactly what a plan read. Failed reads are not recorded.
type Recorder struct {
	cluster Cluster

	mu            sync.Mutex
	serverVersion string
	resources     []Resource
	lists         map[readKey][]unstructured.Unstructured
	gets          map[readKey]*unstructured.Unstructured
	index         map[string]string
	documents     map[string][]byte
}

var (
	_ Cluster            = (*Recorder)(nil)
	_ DiscoveryRefresher = (*Recorder)(nil)
)

// NewRecorder records the answers of c.
func NewRecorder(c Cluster) *Recorder {
	return &Recorder{
		cluster:   c,
		lists:     map[readKey][]unstructured.Unstructured{},
		gets:      map[readKey]*unstructured.Unstructured{},
		documents: map[string][]byte{},
	}
}

// ServerVersion passes the read on and records the answer.
func (r *Recorder) ServerVersion(ctx context.Context) (string, error) {
	v, err := r.cluster.ServerVersion(ctx)
	if err == nil {
		r.mu.Lock()
		r.serverVersion = v
		r.mu.Unlock()
	}
	return v, err
}

// Resources passes the read on and records the answer (the latest, after a refresh).
func (r *Recorder) Resources(ctx context.Context) ([]Resource, error) {
	res, err := r.cluster.Resources(ctx)
	if err == nil {
		r.mu.Lock()
		r.resources = append(make([]Resource, 0, len(res)), res...)
		r.mu.Unlock()
	}
	return res, err
}

// RefreshDiscovery refreshes the recorded cluster's discovery if it caches it.
func (r *Recorder) RefreshDiscovery(ctx context.Context) error {
	if refresher, ok := r.cluster.(DiscoveryRefresher); ok {
		return refresher.RefreshDiscovery(ctx)
	}
	return nil
}

// List passes the read on and records a deep copy of the answer. A resource the server does not
// serve is recorded as an empty list, which is what readers make of it.
func (r *Recorder) List(ctx context.Context, gvr schema.GroupVersionResource, namespace, labelSelector string) ([]unstructured.Unstructured, error) {
	items, err := r.cluster.List(ctx, gvr, namespace, labelSelector)
	if err == nil || apierrors.IsNotFound(err) {
		copied := make([]unstructured.Unstructured, len(items))
		for i := range items {
			copied[i] = *items[i].DeepCopy()
		}
		r.mu.Lock()
		r.lists[readKey{gvr: gvr, namespace: namespace, selector: labelSelector}] = copied
		r.mu.Unlock()
	}
	return items, err
}

// Get passes the read on and records a deep copy of the answer, including "not found".
func (r *Recorder) Get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	obj, err := r.cluster.Get(ctx, gvr, namespace, name)
	if err == nil {
		r.mu.Lock()
		r.gets[readKey{gvr: gvr, namespace: namespace, name: name}] = obj.DeepCopy()
		r.mu.Unlock()
	}
	return obj, err
}

// OpenAPIV3Index passes the read on and records the answer.
func (r *Recorder) OpenAPIV3Index(ctx context.Context) (map[string]string, error) {
	index, err := r.cluster.OpenAPIV3Index(ctx)
	if err == nil {
		copied := make(map[string]string, len(index))
		for k, v := range index {
			copied[k] = v
		}
		r.mu.Lock()
		r.index = copied
		r.mu.Unlock()
	}
	return index, err
}

// OpenAPIV3 passes the read on and records the answer.
func (r *Recorder) OpenAPIV3(ctx context.Context, path string) ([]byte, error) {
	doc, err := r.cluster.OpenAPIV3(ctx, path)
	if err == nil {
		r.mu.Lock()
		r.documents[path] = append([]byte(nil), doc...)
		r.mu.Unlock()
	}
	return doc, err
}

// Recording returns everything recorded so far, in canonical order.
func (r *Recorder) Recording() (*Recording, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := &Recording{ServerVersion: r.serverVersion}
	if r.resources != nil {
		rec.Resources = make([]RecordedResource, 0, len(r.resources))
		for _, res := range r.resources {
			rec.Resources = append(rec.Resources, recordResource(res))
		}
	}
	for k, items := range r.lists {
		objs := make([]*unstructured.Unstructured, len(items))
		for i := range items {
			objs[i] = items[i].DeepCopy()
		}
		rec.Lists = append(rec.Lists, RecordedList{Group: k.gvr.Group, Version: k.gvr.Version, Resource: k.gvr.Resource, Namespace: k.namespace, Selector: k.selector, Objects: objs})
	}
	for k, obj := range r.gets {
		rec.Gets = append(rec.Gets, RecordedGet{Group: k.gvr.Group, Version: k.gvr.Version, Resource: k.gvr.Resource, Namespace: k.namespace, Name: k.name, Object: obj.DeepCopy()})
	}
	if r.index != nil {
		rec.OpenAPIIndex = make(map[string]string, len(r.index))
		for k, v := range r.index {
			rec.OpenAPIIndex[k] = v
		}
	}
	for path, doc := range r.documents {
		encoded, err := compressDocument(doc)
		if err != nil {
			return nil, fmt.Errorf("recording openapi v3 document %q: %w", path, err)
		}
		rec.OpenAPIDocuments = append(rec.OpenAPIDocuments, RecordedDocument{Path: path, GzipBase64: encoded})
	}
	rec.normalize()
	return rec, nil
}

// compressDocument gzips (no name, no timestamp, so the bytes depend on the content only) and
// base64-encodes a document.
func compressDocument(doc []byte) (string, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return "", err
	}
	if _, err := zw.Write(doc); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// decompressDocument reverses compressDocument.
func decompressDocument(encoded string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(zr); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
