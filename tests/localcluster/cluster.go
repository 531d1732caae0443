// Package localcluster runs real Kubernetes control planes on loopback for tests, demos and
// benchmarks: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok, and
// gardener-apiserver and gardener-admission-controller on the virtual garden (with
// gardener-controller-manager and gardener-scheduler when asked for), built from source by
// `make tools`. Several named control planes can run side by side (a garden runtime cluster, a
// virtual garden serving the real Gardener API, seeds), sharing one kubeconfig with a context
// each. A plane's API server can be stopped and started again (Plane.StopAPIServer,
// Plane.StartAPIServer) to show how clients ride out an outage. Every process it starts is stopped
// by Stop, by the test's cleanup, on SIGINT and SIGTERM, and by the kernel if the owning process
// dies.
package localcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Plane names of the default topology.
const (
	RuntimePlane       = "runtime"
	VirtualGardenPlane = "virtual-garden"
)

// Topology returns the default planes, which every test shares: the garden runtime cluster (which
// also serves as the seed, as Gardener allows), the virtual garden with the Gardener API and
// Gardener's controllers (TopologyControllers), and seeds more seed clusters named seed-1 ...
// seed-N.
func Topology(seeds int) []PlaneOptions {
	planes := []PlaneOptions{
		{Name: RuntimePlane, Workloads: true},
		{Name: VirtualGardenPlane, GardenerAPI: true, GardenerControllers: TopologyControllers()},
	}
	for i := 1; i <= seeds; i++ {
		planes = append(planes, PlaneOptions{Name: "seed-" + strconv.Itoa(i), Workloads: true})
	}
	return planes
}

// Options configure a local cluster.
type Options struct {
	// Planes to start; empty means Topology(0).
	Planes []PlaneOptions
	// Dir holds data, logs, credentials and the kubeconfig; empty means a new temporary directory
	// that Stop removes.
	Dir string
	// BinDir holds the binaries; empty means FindBinDir().
	BinDir string
	// Log receives one line per start-up phase; nil discards them.
	Log io.Writer
	// OwnSignals tells the helper that the caller handles SIGINT and SIGTERM itself and calls Stop;
	// by default the helper stops every cluster and exits on those signals.
	OwnSignals bool
}

// Cluster is a set of running control planes.
type Cluster struct {
	dir        string
	removeDir  bool
	kubeconfig string
	planes     []*Plane
	log        io.Writer

	stopOnce sync.Once
	stopErr  error
}

// Launch starts every plane in parallel and returns once all are ready. On failure everything
// already started is stopped again.
func Launch(ctx context.Context, opts Options) (*Cluster, error) {
	if len(opts.Planes) == 0 {
		opts.Planes = Topology(0)
	}
	if err := validatePlanes(opts.Planes); err != nil {
		return nil, err
	}
	binDir := opts.BinDir
	if binDir == "" {
		var err error
		if binDir, err = FindBinDir(); err != nil {
			return nil, err
		}
	}
	c := &Cluster{dir: opts.Dir, log: opts.Log}
	if c.log == nil {
		c.log = io.Discard
	}
	if c.dir == "" {
		dir, err := os.MkdirTemp("", "localcluster-")
		if err != nil {
			return nil, fmt.Errorf("local cluster directory: %w", err)
		}
		c.dir, c.removeDir = dir, true
	} else if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return nil, fmt.Errorf("local cluster directory: %w", err)
	}
	c.kubeconfig = filepath.Join(c.dir, "kubeconfig")
	for _, po := range opts.Planes {
		planeDir := filepath.Join(c.dir, po.Name)
		// A plane always starts empty: stale etcd data would not match its fresh credentials.
		if err := os.RemoveAll(planeDir); err != nil {
			return nil, fmt.Errorf("local cluster plane %s directory: %w", po.Name, err)
		}
		c.planes = append(c.planes, newPlane(po, binDir, planeDir))
	}
	register(c, !opts.OwnSignals)

	began := time.Now()
	errs := c.forEachPlane(func(p *Plane) error {
		planeBegan := time.Now()
		if err := p.start(ctx); err != nil {
			return err
		}
		fmt.Fprintf(c.log, "control plane %q ready at %s (%s)\n", p.Name(), p.Server(), time.Since(planeBegan).Round(100*time.Millisecond))
		return nil
	})
	if err := errors.Join(errs...); err != nil {
		return nil, errors.Join(fmt.Errorf("local cluster start: %w", err), c.Stop())
	}
	if err := writeKubeconfig(c.kubeconfig, c.planes); err != nil {
		return nil, errors.Join(err, c.Stop())
	}
	fmt.Fprintf(c.log, "local cluster ready in %s; kubeconfig %s\n", time.Since(began).Round(100*time.Millisecond), c.kubeconfig)
	return c, nil
}

func validatePlanes(planes []PlaneOptions) error {
	seen := map[string]bool{}
	for _, p := range planes {
		if p.Name == "" {
			return errors.New("local cluster plane without a name")
		}
		if seen[p.Name] {
			return fmt.Errorf("local cluster plane %q declared twice", p.Name)
		}
		seen[p.Name] = true
		if p.GardenerControllers != nil && !p.GardenerAPI {
			return fmt.Errorf("local cluster plane %q: gardener controllers need the Gardener API (GardenerAPI)", p.Name)
		}
	}
	return nil
}

// Kubeconfig is the path of the kubeconfig with one context per plane; the first plane is current.
func (c *Cluster) Kubeconfig() string { return c.kubeconfig }

// Dir is the directory with data, logs and credentials.
func (c *Cluster) Dir() string { return c.dir }

// Planes returns the planes in the order they were declared.
func (c *Cluster) Planes() []*Plane { return append([]*Plane(nil), c.planes...) }

// Plane returns the plane with the given name, or nil.
func (c *Cluster) Plane(name string) *Plane {
	for _, p := range c.planes {
		if p.opts.Name == name {
			return p
		}
	}
	return nil
}

// PIDs lists the process ids of every binary the cluster currently runs.
func (c *Cluster) PIDs() []int {
	var pids []int
	for _, p := range c.planes {
		pids = append(pids, p.PIDs()...)
	}
	return pids
}

// Stop stops every plane in parallel and removes a temporary directory. It is safe to call more
// than once and from several goroutines.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		errs := c.forEachPlane((*Plane).stop)
		unregister(c)
		if c.removeDir {
			errs = append(errs, os.RemoveAll(c.dir))
		}
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}

// forEachPlane runs fn for every plane in parallel and returns the errors in plane order.
func (c *Cluster) forEachPlane(fn func(*Plane) error) []error {
	errs := make([]error, len(c.planes))
	var wg sync.WaitGroup
	for i, p := range c.planes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn(p)
		}()
	}
	wg.Wait()
	return errs
}

// The registry of running clusters lets one signal handler stop them all on SIGINT or SIGTERM.
var (
	registryMu   sync.Mutex
	running      = map[*Cluster]struct{}{}
	handlerSetUp sync.Once
)

func register(c *Cluster, handleSignals bool) {
	registryMu.Lock()
	running[c] = struct{}{}
	registryMu.Unlock()
	if !handleSignals {
		return
	}
	handlerSetUp.Do(func() {
		signals := make(chan os.Signal, 1)
		signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
		go func() {
			sig := <-signals
			StopAll()
			code := 128 + int(sig.(syscall.Signal))
			os.Exit(code)
		}()
	})
}

func unregister(c *Cluster) {
	registryMu.Lock()
	delete(running, c)
	registryMu.Unlock()
}

// StopAll stops every cluster this process started and has not stopped yet.
func StopAll() {
	registryMu.Lock()
	clusters := make([]*Cluster, 0, len(running))
	for c := range running {
		clusters = append(clusters, c)
	}
	registryMu.Unlock()
	var wg sync.WaitGroup
	for _, c := range clusters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.Stop()
		}()
	}
	wg.Wait()
}
