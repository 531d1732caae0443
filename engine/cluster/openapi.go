package cluster

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"k8s.io/client-go/openapi"
)

// openAPICache keeps the OpenAPI v3 index and every document fetched during the run: the diff
// asks for the same group versions over and over, and they do not change within a run.
type openAPICache struct {
	mu    sync.Mutex
	paths map[string]openapi.GroupVersionWithContext
	index map[string]string
	docs  map[string]*openAPIDoc
}

// openAPIDoc is one document, fetched once even when many goroutines ask at the same time; a
// failed fetch is not remembered, so a later caller tries again.
type openAPIDoc struct {
	mu   sync.Mutex
	data []byte
}

// OpenAPIV3Index returns, for each group version path ("api/v1", "apis/apps/v1"), the URL of its
// OpenAPI v3 document including the hash that changes with the document.
func (c *Client) OpenAPIV3Index(ctx context.Context) (map[string]string, error) {
	c.openapi.mu.Lock()
	defer c.openapi.mu.Unlock()
	if err := c.loadOpenAPIPaths(ctx); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(c.openapi.index))
	for k, v := range c.openapi.index {
		out[k] = v
	}
	return out, nil
}

// loadOpenAPIPaths fetches the index once per run; the caller holds c.openapi.mu.
func (c *Client) loadOpenAPIPaths(ctx context.Context) error {
	if c.openapi.paths != nil {
		return nil
	}
	var paths map[string]openapi.GroupVersionWithContext
	err := c.retry(ctx, func() error {
		var err error
		paths, err = c.live.OpenAPIV3WithContext(ctx).PathsWithContext(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("cluster %s: openapi v3 index: %w", c.config.Host, err)
	}
	c.openapi.paths = paths
	c.openapi.index = make(map[string]string, len(paths))
	for p, gv := range paths {
		c.openapi.index[p] = gv.ServerRelativeURL()
	}
	c.openapi.docs = map[string]*openAPIDoc{}
	return nil
}

// OpenAPIV3 returns the OpenAPI v3 document (JSON) of one group version path, fetched once per
// run.
func (c *Client) OpenAPIV3(ctx context.Context, path string) ([]byte, error) {
	c.openapi.mu.Lock()
	if err := c.loadOpenAPIPaths(ctx); err != nil {
		c.openapi.mu.Unlock()
		return nil, err
	}
	gv, ok := c.openapi.paths[path]
	if !ok {
		c.openapi.mu.Unlock()
		return nil, fmt.Errorf("openapi v3 document %q: not served by %s (served: %v)", path, c.config.Host, slices.Sorted(maps.Keys(c.openapi.paths)))
	}
	doc := c.openapi.docs[path]
	if doc == nil {
		doc = &openAPIDoc{}
		c.openapi.docs[path] = doc
	}
	c.openapi.mu.Unlock()

	doc.mu.Lock()
	defer doc.mu.Unlock()
	if doc.data != nil {
		return doc.data, nil
	}
	var data []byte
	err := c.retry(ctx, func() error {
		var err error
		data, err = gv.SchemaWithContext(ctx, "application/json")
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("openapi v3 document %q: %w", path, err)
	}
	doc.data = data
	return data, nil
}
