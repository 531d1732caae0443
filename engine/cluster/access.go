// Package cluster is the engine's live access to a Kubernetes API server: it builds a client-go
// configuration from a landscape's cluster block and offers the reads a plan needs (discovery,
// paged LISTs, GETs, OpenAPI documents) as an observe.Cluster, plus the mapper, dynamic client and
// server-side apply dry-run that apply builds on.
package cluster

import (
	"net/http"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Access says how to reach one cluster, as a landscape's cluster block declares it.
type Access struct {
	// Kubeconfig is the path of a kubeconfig file; empty means the standard loading rules (the
	// KUBECONFIG environment variable, then ~/.kube/config), as kubectl does.
	Kubeconfig string
	// Context is the kubeconfig context to use; empty means the kubeconfig's current context.
	Context string
	// InCluster uses the pod's service account (the daemon runs this way) and ignores the other
	// fields.
	InCluster bool
}

// Client-side rate limits and paging defaults. client-go's own defaults (QPS 5, burst 10) are
// sized for controllers that mostly watch; a plan issues up to --parallelism reads at once and
// apply writes hundreds of objects, which those defaults would throttle to a crawl. The server
// protects itself with API Priority and Fairness (answering 429, which we retry), so the client
// limit only has to stop a runaway loop.
const (
	DefaultQPS      = 100
	DefaultBurst    = 200
	DefaultPageSize = 500
)

// Options tune a Client. The zero value is ready to use.
type Options struct {
	// Version is the gardener version sent in the user agent ("gardener/<version>"), so that
	// audit logs and API Priority and Fairness can tell our requests apart; empty means "dev".
	Version string
	// QPS and Burst are the client-side rate limits; zero means DefaultQPS and DefaultBurst.
	QPS   float32
	Burst int
	// Timeout bounds each HTTP request; zero means no per-request timeout beyond the context's.
	Timeout time.Duration
	// PageSize is the LIST page size (the limit parameter); zero means DefaultPageSize.
	PageSize int64
	// CacheDir holds the discovery cache; empty means <user cache dir>/gardener/discovery/<host>.
	CacheDir string
	// NoDiskCache keeps discovery in memory only (nothing read from or written to disk).
	NoDiskCache bool
	// DiscoveryTTL is how long a discovery cache on disk is trusted; zero means
	// DefaultDiscoveryTTL. A kind missing from a cached answer always triggers a refresh, so the
	// TTL only bounds how long a removed kind can linger.
	DiscoveryTTL time.Duration
	// WrapTransport wraps the HTTP transport of every request the client makes (tests count
	// requests with it; it can also add tracing).
	WrapTransport func(http.RoundTripper) http.RoundTripper
	// Retries is how many times a read is attempted on 429, 5xx and timeouts; zero means 5.
	Retries int
	// MaxInFlight bounds the requests of one cluster in flight at once, watches aside (they
	// last as long as a wait); zero means no bound beyond QPS.
	MaxInFlight int
}

// LoadRESTConfig returns the client configuration Access describes, without the tuning Connect
// applies.
func LoadRESTConfig(access Access) (*rest.Config, error) {
	if access.InCluster {
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, &AccessError{Problem: err.Error(), Err: err}
		}
		return cfg, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if access.Kubeconfig != "" {
		rules.ExplicitPath = access.Kubeconfig
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: access.Context}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err != nil {
		return nil, accessError(access, rules, err)
	}
	return cfg, nil
}

// tune applies Options to a copy of cfg.
func tune(cfg *rest.Config, opts Options) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = opts.QPS, opts.Burst
	if cfg.QPS == 0 {
		cfg.QPS = DefaultQPS
	}
	if cfg.Burst == 0 {
		cfg.Burst = DefaultBurst
	}
	cfg.RateLimiter = nil
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	cfg.UserAgent = "gardener/" + version
	if opts.Timeout != 0 {
		cfg.Timeout = opts.Timeout
	}
	if opts.WrapTransport != nil {
		cfg.Wrap(opts.WrapTransport)
	}
	if opts.MaxInFlight > 0 {
		cfg.Wrap(limitInFlight(opts.MaxInFlight)) // one bound per cluster: tune runs per Connect
	}
	return cfg
}
