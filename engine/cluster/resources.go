package cluster

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/declarative-gardener/gardener/engine/observe"
)

// Resources lists the main resources (no subresources) the server serves, each kind once in the
// preferred version of its group (or, for a kind only an older version serves, in that version),
// sorted by group, kind and resource. Groups whose discovery fails (an aggregated API that is
// down) are left out rather than failing every plan; a kind of such a group is then unknown.
func (c *Client) Resources(ctx context.Context) ([]observe.Resource, error) {
	if err := c.retry(ctx, func() error { return c.discovery.load(ctx) }); err != nil {
		return nil, fmt.Errorf("cluster %s: %w", c.config.Host, err)
	}
	lists, err := discovery.ServerPreferredResources(c.discovery)
	var partial *discovery.ErrGroupDiscoveryFailed
	if err != nil && !errors.As(err, &partial) {
		return nil, fmt.Errorf("cluster %s: discovery: %w", c.config.Host, err)
	}
	var out []observe.Resource
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return nil, fmt.Errorf("cluster %s: discovery: group version %q: %w", c.config.Host, list.GroupVersion, err)
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			out = append(out, observe.Resource{
				GroupVersionKind: gv.WithKind(r.Kind),
				Resource:         r.Name,
				Namespaced:       r.Namespaced,
				Verbs:            append([]string(nil), r.Verbs...),
			})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Resource < b.Resource
	})
	return out, nil
}
