package cluster

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// refreshingMapper retries a mapping that found no match once after refreshing discovery. The
// deferred discovery mapper only does that while its cache is not fresh; within a run whose
// discovery was fetched before a CRD was applied, the cache is fresh and the new kind would stay
// unknown.
type refreshingMapper struct {
	meta.RESTMapper
	refresh func()

	mu        sync.Mutex
	refreshes int
}

// generation is the number of refreshes so far; callers that saw a no-match at the same
// generation share one refresh.
func (m *refreshingMapper) generation() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.refreshes
}

// refreshAfter refreshes discovery unless another caller already did since generation seen.
func (m *refreshingMapper) refreshAfter(seen int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.refreshes == seen {
		m.refresh()
		m.refreshes++
	}
}

// retry runs f, and once more after a refresh when it reports no match.
func retryNoMatch[T any](m *refreshingMapper, f func() (T, error)) (T, error) {
	seen := m.generation()
	v, err := f()
	if err == nil || !meta.IsNoMatchError(err) {
		return v, err
	}
	m.refreshAfter(seen)
	return f()
}

// RESTMapping maps a kind to its resource, refreshing discovery once on no match.
func (m *refreshingMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	return retryNoMatch(m, func() (*meta.RESTMapping, error) { return m.RESTMapper.RESTMapping(gk, versions...) })
}

// RESTMappings maps a kind to all its resources, refreshing discovery once on no match.
func (m *refreshingMapper) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	return retryNoMatch(m, func() ([]*meta.RESTMapping, error) { return m.RESTMapper.RESTMappings(gk, versions...) })
}

// KindFor maps a resource to its kind, refreshing discovery once on no match.
func (m *refreshingMapper) KindFor(resource schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	return retryNoMatch(m, func() (schema.GroupVersionKind, error) { return m.RESTMapper.KindFor(resource) })
}

// ResourceFor completes a partial resource, refreshing discovery once on no match.
func (m *refreshingMapper) ResourceFor(input schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	return retryNoMatch(m, func() (schema.GroupVersionResource, error) { return m.RESTMapper.ResourceFor(input) })
}
