package planner

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/atomicfile"
)

// Rendering reads live objects one after the other as render functions ask for them: a project
// reads the namespace and the RBAC objects gardener-controller-manager made for it, a seed lists
// the Shoots, BackupBuckets and ControllerInstallations of the Gardener API, a shoot GETs its
// extension resources. Each read is a round trip on rendering's path (landscapes/local: about 30,
// a seventh of a no-op plan). The read-ahead issues, before rendering starts and all at once, the
// reads the previous full plan of the same landscape made, as hints kept in a file beside the
// discovery and OpenAPI caches (Options.ReadHints); rendering then takes the answer of exactly
// the read it makes (the same cluster, resource, namespace and name or label selector) from this
// run's read-ahead instead of asking again. The answers are read during this plan, as the
// prefetched LISTs are, so the plan is the one it would be without the hints; a hint the
// landscape no longer needs costs one request and is dropped from the file by the next plan.

// maxReadHints bounds the hints kept for one landscape: a read-ahead is for the few dozen reads
// of a landscape's rendering, not a copy of a cluster.
const maxReadHints = 500

// readHint is one read rendering made: a GET of one object, or a LIST of a resource (in a
// namespace, with a label selector).
type readHint struct {
	Cluster   string `json:"cluster"`
	Group     string `json:"group,omitempty"`
	Version   string `json:"version"`
	Resource  string `json:"resource"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	List      bool   `json:"list,omitempty"`
	Selector  string `json:"selector,omitempty"`
}

func (h readHint) gvr() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: h.Group, Version: h.Version, Resource: h.Resource}
}

func compareHints(a, b readHint) int {
	return cmp.Or(cmp.Compare(a.Cluster, b.Cluster), cmp.Compare(a.Group, b.Group), cmp.Compare(a.Version, b.Version),
		cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name),
		cmp.Compare(a.Selector, b.Selector), boolCompare(a.List, b.List))
}

func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// hintFile is the content of a landscape's hint file.
type hintFile struct {
	Format int        `json:"format"`
	Reads  []readHint `json:"reads"`
}

// hintFormat is the layout of hintFile.
const hintFormat = 1

// readAhead holds this run's reads of the hints and records what rendering read.
type readAhead struct {
	file   string
	loaded []readHint

	mu      sync.Mutex
	started map[readHint]*aheadRead
	made    map[readHint]bool
}

// aheadRead is one read started ahead, answered once done is closed.
type aheadRead struct {
	done  chan struct{}
	obj   *unstructured.Unstructured
	items []unstructured.Unstructured
	err   error
}

// DefaultReadHints is the directory of the read-ahead's hint files in the user's cache
// directory, beside the discovery and OpenAPI caches; empty where there is none.
func DefaultReadHints() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "gardener", "reads")
}

// hintPath is the hint file of a landscape: one per landscape directory and name.
func hintPath(dir, landscapeDir, name string) string {
	abs, err := filepath.Abs(landscapeDir)
	if err != nil {
		abs = landscapeDir
	}
	sum := sha256.Sum256([]byte(abs + "\x00" + name))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".json")
}

// startReadAhead reads the landscape's hints and starts their reads in the background, at most
// parallelism at a time; reads of clusters that are not connected or not known yet are left out.
// It returns nil without a hint directory.
func startReadAhead(ctx context.Context, opts *Options, conns *connections, res *config.Result) *readAhead {
	if opts.ReadHints == "" || res == nil || res.Evaluated == nil || res.Landscape == nil {
		return nil
	}
	ra := &readAhead{file: hintPath(opts.ReadHints, opts.Dir, res.Landscape.Name), started: map[readHint]*aheadRead{}, made: map[readHint]bool{}}
	data, err := os.ReadFile(ra.file)
	if err != nil {
		return ra // no hints yet: this plan records them
	}
	var f hintFile
	if json.Unmarshal(data, &f) != nil || f.Format != hintFormat || len(f.Reads) > maxReadHints {
		return ra // a file of another layout is rewritten by this plan
	}
	ra.loaded = f.Reads
	parallelism := opts.Parallelism
	if parallelism <= 0 {
		parallelism = 10
	}
	sem := make(chan struct{}, parallelism)
	for _, h := range f.Reads {
		v, ok := res.Evaluated.Clusters[h.Cluster]
		if unmarked, _ := v.UnmarkDeep(); !ok || !unmarked.IsWhollyKnown() {
			continue
		}
		if _, dup := ra.started[h]; dup {
			continue
		}
		r := &aheadRead{done: make(chan struct{})}
		ra.started[h] = r
		go func() {
			defer close(r.done)
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				r.err = ctx.Err()
				return
			}
			cl, err := conns.get(h.Cluster, v)
			if err != nil {
				r.err = err
				return
			}
			if h.List {
				r.items, r.err = cl.List(ctx, h.gvr(), h.Namespace, h.Selector)
				if apierrors.IsNotFound(r.err) {
					r.items, r.err = nil, nil // a resource the server does not serve has no objects
				}
			} else {
				r.obj, r.err = cl.Get(ctx, h.gvr(), h.Namespace, h.Name)
			}
		}()
	}
	return ra
}

// take returns the answer of a read started ahead and records the read; ok is false when no
// such read was started or it failed (the caller then reads itself, and the failure it meets is
// its own). An answer is taken once: rendering keeps what it read.
func (ra *readAhead) take(h readHint) (r *aheadRead, ok bool) {
	if ra == nil {
		return nil, false
	}
	ra.mu.Lock()
	ra.made[h] = true
	r = ra.started[h]
	delete(ra.started, h)
	ra.mu.Unlock()
	if r == nil {
		return nil, false
	}
	<-r.done
	return r, r.err == nil
}

// record notes a read rendering made itself.
func (ra *readAhead) record(h readHint) {
	if ra == nil {
		return
	}
	ra.mu.Lock()
	ra.made[h] = true
	ra.mu.Unlock()
}

// save writes the reads rendering made as the hints of the next plan, when they differ from the
// ones read: without the reads whose namespace, name or selector holds one of the landscape's
// secret values (the file is no place for them), and none beyond maxReadHints. A file that
// cannot be written costs the next plan its read-ahead, nothing else.
func (ra *readAhead) save(secrets []string) {
	if ra == nil {
		return
	}
	red := render.NewRedactor(secrets)
	ra.mu.Lock()
	reads := slices.Collect(maps.Keys(ra.made))
	ra.mu.Unlock()
	reads = slices.DeleteFunc(reads, func(h readHint) bool {
		return red.Sensitive(h.Namespace) || red.Sensitive(h.Name) || red.Sensitive(h.Selector)
	})
	slices.SortFunc(reads, compareHints)
	if len(reads) > maxReadHints {
		reads = reads[:maxReadHints]
	}
	if slices.Equal(reads, ra.loaded) || (len(reads) == 0 && ra.loaded == nil) {
		return
	}
	data, err := json.Marshal(hintFile{Format: hintFormat, Reads: reads})
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(ra.file), 0o700); err != nil {
		return
	}
	_ = atomicfile.Write(ra.file, data, 0o600)
}
