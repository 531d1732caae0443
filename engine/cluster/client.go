package cluster

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/declarative-gardener/gardener/engine/observe"
)

// Client is the live connection to one cluster. It implements observe.Cluster and is safe for
// concurrent use.
type Client struct {
	config    *rest.Config
	opts      Options
	dynamic   dynamic.Interface
	lists     rest.Interface // LIST requests, decoded by listPage
	live      *discovery.DiscoveryClient
	discovery *discoveryCache
	deferred  *restmapper.DeferredDiscoveryRESTMapper
	mapper    *refreshingMapper

	versionMu sync.Mutex
	version   string

	openapi openAPICache
}

var _ observe.Cluster = (*Client)(nil)

// Connect builds a Client for the cluster Access describes.
func Connect(access Access, opts Options) (*Client, error) {
	cfg, err := LoadRESTConfig(access)
	if err != nil {
		return nil, err
	}
	return ConnectConfig(cfg, opts)
}

// ConnectConfig builds a Client from a client configuration, applying opts (rate limits, user
// agent, transport wrapper) to a copy of it. No request is made until the first read.
func ConnectConfig(cfg *rest.Config, opts Options) (*Client, error) {
	cfg = tune(cfg, opts)
	if opts.PageSize == 0 {
		opts.PageSize = DefaultPageSize
	}
	if opts.Retries == 0 {
		opts.Retries = 5
	}
	if opts.DiscoveryTTL == 0 {
		opts.DiscoveryTTL = DefaultDiscoveryTTL
	}
	// One HTTP client (one connection pool, one bound of requests in flight) for every client.
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: http client: %w", cfg.Host, err)
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: dynamic client: %w", cfg.Host, err)
	}
	lists, err := rest.UnversionedRESTClientForConfigAndClient(listConfig(cfg), httpClient)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: list client: %w", cfg.Host, err)
	}
	live, err := discovery.NewDiscoveryClientForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: discovery client: %w", cfg.Host, err)
	}
	file := ""
	if !opts.NoDiskCache {
		dir := opts.CacheDir
		if dir == "" {
			dir = defaultCacheDir(cfg.Host)
		}
		if dir != "" {
			file = filepath.Join(dir, "discovery.json")
		}
	}
	c := &Client{config: cfg, opts: opts, dynamic: dyn, lists: lists, live: live, discovery: newDiscoveryCache(live, file, opts.DiscoveryTTL)}
	c.deferred = restmapper.NewDeferredDiscoveryRESTMapper(c.discovery)
	c.mapper = &refreshingMapper{RESTMapper: c.deferred, refresh: c.RefreshMapper}
	return c, nil
}

// listConfig is the dynamic client's configuration for LISTs, accepting JSON only: listPage
// decodes the body itself.
func listConfig(cfg *rest.Config) *rest.Config {
	out := dynamic.ConfigFor(cfg)
	out.AcceptContentTypes = "application/json"
	out.GroupVersion = nil
	return out
}

// RESTConfig returns a copy of the tuned client configuration, for clients apply builds itself.
func (c *Client) RESTConfig() *rest.Config { return rest.CopyConfig(c.config) }

// Dynamic returns the client's dynamic client (same rate limits and transport).
func (c *Client) Dynamic() dynamic.Interface { return c.dynamic }

// Host is the API server URL, for messages.
func (c *Client) Host() string { return c.config.Host }

// Mapper maps kinds to resources from the cached discovery. A kind it does not know makes it
// refresh discovery once and try again, so that a kind whose CRD was applied earlier in the same
// run maps without the caller doing anything.
func (c *Client) Mapper() meta.RESTMapper { return c.mapper }

// RefreshMapper drops cached discovery (memory and disk) so that the next mapping or Resources
// call asks the server again.
func (c *Client) RefreshMapper() {
	c.discovery.Invalidate()
	c.deferred.Reset()
}

// RefreshDiscovery is RefreshMapper for observe, which calls it when a kind it needs is missing
// from a possibly stale cached discovery.
func (c *Client) RefreshDiscovery(context.Context) error {
	c.RefreshMapper()
	return nil
}

// ServerVersion returns the API server's git version, asked once per Client.
func (c *Client) ServerVersion(ctx context.Context) (string, error) {
	c.versionMu.Lock()
	defer c.versionMu.Unlock()
	if c.version != "" {
		return c.version, nil
	}
	err := c.retry(ctx, func() error {
		info, err := c.live.ServerVersionWithContext(ctx)
		if err != nil {
			return err
		}
		c.version = info.GitVersion
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("cluster %s: server version: %w", c.config.Host, err)
	}
	return c.version, nil
}
