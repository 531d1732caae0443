package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/declarative-gardener/gardener/internal/atomicfile"
)

// DefaultDiscoveryTTL is how long discovery cached on disk is trusted. Short enough that a kind
// removed from the server does not linger for long, long enough that plan runs in a row skip
// discovery. A kind the cache does not know always triggers a refresh.
const DefaultDiscoveryTTL = 10 * time.Minute

// discoveryCache is a discovery.CachedDiscoveryInterface that keeps the server's groups and
// resources in memory for the run and on disk across runs.
//
// client-go's cached discovery does not fit, which is why this type exists:
//   - discovery/cached/disk needs modules outside this module's graph (peterbourgon/diskv, whose
//     last release is from 2019, and google/btree) and keeps a file per group version plus an
//     HTTP cache beside it; with aggregated discovery the whole answer is two requests, so one
//     JSON file per server is all the caching needed, read in one go.
//   - discovery/cached/memory could keep the answer in memory over a disk-reading delegate, but
//     its Fresh reports true once it holds any answer, also one read from disk minutes ago; the
//     deferred REST mapper then never fetches again when a kind is missing, and a CRD created
//     since the disk copy would stay unknown until the TTL ends. Fresh here means "fetched from
//     the server during this run".
type discoveryCache struct {
	// DiscoveryInterface is the live client; the methods this type does not override (server
	// version, OpenAPI, REST client) go straight to it.
	discovery.DiscoveryInterface

	file string // empty: memory only
	ttl  time.Duration

	mu        sync.Mutex
	loaded    bool
	fresh     bool // fetched from the server during this run
	skipDisk  bool // the disk copy is known to be stale
	groups    *metav1.APIGroupList
	resources map[schema.GroupVersion]*metav1.APIResourceList
	failed    map[schema.GroupVersion]error
}

var (
	_ discovery.CachedDiscoveryInterface     = (*discoveryCache)(nil)
	_ discovery.AggregatedDiscoveryInterface = (*discoveryCache)(nil)
)

// diskFile is the JSON form of the cache on disk.
type diskFile struct {
	Groups    *metav1.APIGroupList      `json:"groups"`
	Resources []*metav1.APIResourceList `json:"resources"`
}

func newDiscoveryCache(live discovery.DiscoveryInterface, file string, ttl time.Duration) *discoveryCache {
	return &discoveryCache{DiscoveryInterface: live, file: file, ttl: ttl}
}

// defaultCacheDir is <user cache dir>/gardener/discovery/<host>, or empty when the platform has
// no user cache directory.
func defaultCacheDir(host string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "gardener", "discovery", sanitizeHost(host))
}

// sanitizeHost turns a server URL into a directory name, as kubectl does for its cache.
func sanitizeHost(host string) string {
	host = strings.TrimPrefix(strings.TrimPrefix(host, "https://"), "http://")
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '_'
	}, host)
}

// load makes sure the cache holds an answer, asking the server under ctx when needed.
func (d *discoveryCache) load(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ensure(ctx)
}

// ensure loads the cache from disk or the server, once per invalidation.
func (d *discoveryCache) ensure(ctx context.Context) error {
	if d.loaded {
		return nil
	}
	if !d.skipDisk && d.readDisk() {
		d.loaded = true
		return nil
	}
	return d.fetch(ctx)
}

// readDisk loads a cache file younger than the TTL; any problem just means "not cached".
func (d *discoveryCache) readDisk() bool {
	if d.file == "" {
		return false
	}
	info, err := os.Stat(d.file)
	if err != nil || time.Since(info.ModTime()) > d.ttl {
		return false
	}
	data, err := os.ReadFile(d.file)
	if err != nil {
		return false
	}
	var f diskFile
	if err := json.Unmarshal(data, &f); err != nil || f.Groups == nil {
		return false
	}
	d.groups = f.Groups
	d.resources = make(map[schema.GroupVersion]*metav1.APIResourceList, len(f.Resources))
	for _, list := range f.Resources {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return false
		}
		d.resources[gv] = list
	}
	d.failed = nil
	d.fresh = false
	return true
}

// fetch asks the server (two requests with aggregated discovery) and writes the disk cache when
// the answer is complete.
func (d *discoveryCache) fetch(ctx context.Context) error {
	groups, lists, err := discovery.ServerGroupsAndResourcesWithContext(ctx, discovery.ToDiscoveryInterfaceWithContext(d.DiscoveryInterface))
	var partial *discovery.ErrGroupDiscoveryFailed
	if err != nil && !errors.As(err, &partial) {
		return fmt.Errorf("discovery: %w", err)
	}
	d.groups = &metav1.APIGroupList{}
	for _, g := range groups {
		d.groups.Groups = append(d.groups.Groups, *g)
	}
	d.resources = make(map[schema.GroupVersion]*metav1.APIResourceList, len(lists))
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return fmt.Errorf("discovery: group version %q: %w", list.GroupVersion, err)
		}
		d.resources[gv] = list
	}
	d.failed = nil
	if partial != nil {
		d.failed = partial.Groups
	}
	d.loaded, d.fresh, d.skipDisk = true, true, false
	if partial == nil {
		d.writeDisk(lists)
	}
	return nil
}

// writeDisk stores the answer atomically; a cache that cannot be written is not an error.
func (d *discoveryCache) writeDisk(lists []*metav1.APIResourceList) {
	if d.file == "" {
		return
	}
	data, err := json.Marshal(diskFile{Groups: d.groups, Resources: lists})
	if err != nil {
		return
	}
	dir := filepath.Dir(d.file)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return
	}
	_ = atomicfile.Write(d.file, data, 0o600) // a cache: failing to write it costs a refetch
}

// ServerGroups returns the cached groups.
func (d *discoveryCache) ServerGroups() (*metav1.APIGroupList, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.ensure(context.Background()); err != nil {
		return nil, err
	}
	return d.groups, nil
}

// ServerResourcesForGroupVersion returns the cached resources of one group version.
func (d *discoveryCache) ServerResourcesForGroupVersion(groupVersion string) (*metav1.APIResourceList, error) {
	gv, err := schema.ParseGroupVersion(groupVersion)
	if err != nil {
		return nil, fmt.Errorf("discovery: group version %q: %w", groupVersion, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.ensure(context.Background()); err != nil {
		return nil, err
	}
	if err := d.failed[gv]; err != nil {
		return nil, err
	}
	list, ok := d.resources[gv]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: gv.Group}, gv.String())
	}
	return list, nil
}

// GroupsAndMaybeResources answers from the cache in one piece, which lets client-go's discovery
// helpers skip the per-group-version calls.
func (d *discoveryCache) GroupsAndMaybeResources() (*metav1.APIGroupList, map[schema.GroupVersion]*metav1.APIResourceList, map[schema.GroupVersion]error, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.ensure(context.Background()); err != nil {
		return nil, nil, nil, err
	}
	resources := make(map[schema.GroupVersion]*metav1.APIResourceList, len(d.resources))
	for gv, list := range d.resources {
		resources[gv] = list
	}
	var failed map[schema.GroupVersion]error
	if len(d.failed) > 0 {
		failed = make(map[schema.GroupVersion]error, len(d.failed))
		for gv, err := range d.failed {
			failed[gv] = err
		}
	}
	return d.groups, resources, failed, nil
}

// ServerGroupsAndResources returns every group and its resources from the cache.
func (d *discoveryCache) ServerGroupsAndResources() ([]*metav1.APIGroup, []*metav1.APIResourceList, error) {
	return discovery.ServerGroupsAndResources(d)
}

// ServerPreferredResources returns the resources in each group's preferred version.
func (d *discoveryCache) ServerPreferredResources() ([]*metav1.APIResourceList, error) {
	return discovery.ServerPreferredResources(d)
}

// ServerPreferredNamespacedResources returns the namespaced resources in preferred versions.
func (d *discoveryCache) ServerPreferredNamespacedResources() ([]*metav1.APIResourceList, error) {
	return discovery.ServerPreferredNamespacedResources(d)
}

// Fresh reports whether the cache was fetched from the server during this run; the deferred
// REST mapper invalidates a cache that is not fresh when a kind does not match.
func (d *discoveryCache) Fresh() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.loaded && d.fresh
}

// Invalidate makes the next read fetch from the server, bypassing the disk.
func (d *discoveryCache) Invalidate() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.loaded, d.fresh, d.skipDisk = false, false, true
}
