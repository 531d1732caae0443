package openapi

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// Schemas hands out the types of kinds, loading each group version's document at most once and
// only when one of its kinds is first asked for. Safe for concurrent use.
type Schemas struct {
	fetcher Fetcher
	cache   diskCache

	indexOnce sync.Once
	index     map[string]string
	indexErr  error

	mu     sync.Mutex
	groups map[string]*groupLoad
	types  map[schema.GroupVersionKind]*Type
}

// New returns the schemas of the server behind fetcher. cacheDir holds compacted documents
// between runs; empty disables the disk cache. A nil fetcher serves the embedded built-in
// documents only (offline use and tests).
func New(fetcher Fetcher, cacheDir string) *Schemas {
	return &Schemas{
		fetcher: fetcher,
		cache:   diskCache{dir: cacheDir},
		groups:  map[string]*groupLoad{},
		types:   map[schema.GroupVersionKind]*Type{},
	}
}

// groupLoad is one group version's document, loaded once; done is closed when it is.
type groupLoad struct {
	done  chan struct{}
	group *group
	err   error
}

// group is a parsed group version document, or its compiled form (compiled.go).
type group struct {
	source Source
	parser *typed.Parser
	kinds  map[schema.GroupVersionKind]string // kind -> model name
	// models are the document's models; nil for a compiled group, whose transitions hold what
	// the models would tell.
	models      map[string]*spec.Schema
	transitions map[string][]Pattern
}

// transitionsOf lists the fields of a model under `self == oldSelf`.
func (g *group) transitionsOf(model string) []Pattern {
	if g.models == nil {
		return g.transitions[model]
	}
	return immutableRules(g.models, model)
}

// Type returns the type of a kind, loading its group version's document if needed. It fails when
// no source has the group version or the document lacks the kind.
func (s *Schemas) Type(ctx context.Context, gvk schema.GroupVersionKind) (*Type, error) {
	s.mu.Lock()
	t, ok := s.types[gvk]
	s.mu.Unlock()
	if ok {
		return t, nil
	}
	g, err := s.group(ctx, gvk.GroupVersion())
	if err != nil {
		return nil, err
	}
	model, ok := g.kinds[gvk]
	if !ok {
		return nil, fmt.Errorf("openapi %s: kind %s not in the schema", PathOf(gvk.GroupVersion()), gvk.Kind)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.types[gvk]; ok {
		return t, nil
	}
	t = &Type{gvk: gvk, source: g.source, model: model, group: g, parseable: g.parser.Type(model)}
	s.types[gvk] = t
	return t, nil
}

// Warm loads the documents of the given kinds' group versions concurrently, so that later Type
// calls do not wait on the network one group version at a time. It returns the first error.
func (s *Schemas) Warm(ctx context.Context, gvks ...schema.GroupVersionKind) error {
	seen := map[schema.GroupVersion]bool{}
	errs := make(chan error, len(gvks))
	var wg sync.WaitGroup
	for _, gvk := range gvks {
		gv := gvk.GroupVersion()
		if seen[gv] {
			continue
		}
		seen[gv] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.group(ctx, gv); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// group returns a group version's parsed document, loading it on first use. Concurrent callers
// wait for one load. A load that failed because its context ended is forgotten, so that a later
// caller retries.
func (s *Schemas) group(ctx context.Context, gv schema.GroupVersion) (*group, error) {
	path := PathOf(gv)
	s.mu.Lock()
	l, ok := s.groups[path]
	if !ok {
		l = &groupLoad{done: make(chan struct{})}
		s.groups[path] = l
	}
	s.mu.Unlock()
	if ok {
		select {
		case <-l.done:
			return l.group, l.err
		case <-ctx.Done():
			return nil, fmt.Errorf("openapi %s: %w", path, ctx.Err())
		}
	}
	l.group, l.err = s.load(ctx, path)
	if l.err != nil && ctx.Err() != nil {
		s.mu.Lock()
		delete(s.groups, path)
		s.mu.Unlock()
	}
	close(l.done)
	return l.group, l.err
}

// load finds a group version's document: the embedded copy when the server announces the same
// hash, else the disk cache under the server's hash, else the server, else the embedded copy.
func (s *Schemas) load(ctx context.Context, path string) (*group, error) {
	index, indexErr := s.serverIndex(ctx)
	url, served := index[path]
	if !served {
		g, ok, err := s.loadEmbedded(path)
		if ok || err != nil {
			return g, err
		}
		if indexErr != nil {
			return nil, fmt.Errorf("openapi %s: not built in and the server's index is unavailable: %w", path, indexErr)
		}
		return nil, fmt.Errorf("openapi %s: the server does not serve it", path)
	}
	hash := hashOf(url)
	if embeddedHash, err := s.embeddedHash(path); err == nil && hash != "" && embeddedHash == hash {
		if g, ok, err := s.loadEmbedded(path); ok && err == nil {
			return g, nil
		}
	}
	if g, ok := s.cache.readCompiled(path, hash, SourceCache); ok {
		return g, nil
	}
	if data, ok := s.cache.read(path, hash); ok {
		if g, err := parseGroup(data, SourceCache); err == nil {
			s.cache.writeCompiled(path, hash, g)
			return g, nil
		}
		// A corrupt or truncated entry: fall through and refetch, which overwrites it.
	}
	raw, fetchErr := s.fetcher.OpenAPIV3(ctx, path)
	if fetchErr == nil {
		data, err := Compact(raw)
		if err != nil {
			return nil, fmt.Errorf("openapi %s: %w", path, err)
		}
		g, err := parseGroup(data, SourceServer)
		if err != nil {
			return nil, fmt.Errorf("openapi %s: %w", path, err)
		}
		if err := s.cache.write(path, hash, data); err != nil {
			// The cache only saves time; a read-only or full disk must not fail a plan.
			_ = err
		}
		s.cache.writeCompiled(path, hash, g)
		return g, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("openapi %s: %w", path, fetchErr)
	}
	g, ok, err := s.loadEmbedded(path)
	if ok || err != nil {
		return g, err
	}
	return nil, fmt.Errorf("openapi %s: %w", path, fetchErr)
}

// serverIndex fetches the server's index once per Schemas.
func (s *Schemas) serverIndex(ctx context.Context) (map[string]string, error) {
	s.indexOnce.Do(func() {
		if s.fetcher == nil {
			s.indexErr = errors.New("no server")
			return
		}
		s.index, s.indexErr = s.fetcher.OpenAPIV3Index(ctx)
	})
	return s.index, s.indexErr
}

func (s *Schemas) embeddedHash(path string) (string, error) {
	idx, err := embeddedIndex()
	if err != nil {
		return "", err
	}
	return idx[path], nil
}

// loadEmbedded parses the embedded document of a path, or takes its compiled form from the disk
// cache under the embedded hash.
func (s *Schemas) loadEmbedded(path string) (*group, bool, error) {
	hash, err := s.embeddedHash(path)
	if err != nil {
		return nil, false, err
	}
	if g, ok := s.cache.readCompiled(path, hash, SourceEmbedded); ok {
		return g, true, nil
	}
	data, ok, err := embeddedDocument(path)
	if !ok || err != nil {
		return nil, ok, err
	}
	g, err := parseGroup(data, SourceEmbedded)
	if err != nil {
		return nil, true, fmt.Errorf("embedded openapi %s: %w", path, err)
	}
	s.cache.writeCompiled(path, hash, g)
	return g, true, nil
}

// parseGroup builds the structured-merge-diff schema of a compacted document, the way
// managedfields.NewTypeConverter does, and indexes its kinds.
func parseGroup(data []byte, source Source) (*group, error) {
	models, err := decodeModels(data)
	if err != nil {
		return nil, err
	}
	sc, err := schemaconv.ToSchemaFromOpenAPI(models, false)
	if err != nil {
		return nil, fmt.Errorf("openapi schema: %w", err)
	}
	g := &group{
		source: source,
		models: models,
		parser: &typed.Parser{Schema: smdschema.Schema{Types: sc.Types}},
		kinds:  map[schema.GroupVersionKind]string{},
	}
	for name, model := range models {
		for _, gvk := range kindsOf(model.Extensions) {
			// Shared meta types (DeleteOptions, WatchEvent) list many kinds; a real kind's own
			// model is the one whose name ends in its kind.
			if prev, ok := g.kinds[gvk]; ok && !endsWithKind(prev, gvk.Kind) {
				g.kinds[gvk] = name
			} else if !ok {
				g.kinds[gvk] = name
			}
		}
	}
	return g, nil
}

func endsWithKind(model, kind string) bool {
	return len(model) > len(kind) && model[len(model)-len(kind)-1:] == "."+kind
}

// kindsOf reads x-kubernetes-group-version-kind.
func kindsOf(ext spec.Extensions) []schema.GroupVersionKind {
	list, ok := ext["x-kubernetes-group-version-kind"].([]any)
	if !ok {
		return nil
	}
	var out []schema.GroupVersionKind
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		g, _ := m["group"].(string)
		v, _ := m["version"].(string)
		k, _ := m["kind"].(string)
		if v != "" && k != "" {
			out = append(out, schema.GroupVersionKind{Group: g, Version: v, Kind: k})
		}
	}
	return out
}
