package state

import (
	"fmt"
	"path/filepath"

	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
)

// ClusterFunc returns the client of a cluster block by name.
type ClusterFunc func(name string) (*cluster.Client, error)

// DefaultNamespace is the kubernetes backend's namespace when the state block names none (the
// loader applies the same default).
const DefaultNamespace = "garden"

// FromConfig returns the backend a landscape's state block declares. Without a state block the
// state is local, in DefaultLocalPath. A relative local path is relative to the landscape
// directory dir, so that the state is the same wherever gardener runs from. connect is called
// only for the kubernetes backend, with the name of the cluster block holding the state.
func FromConfig(cfg *config.StateConfig, dir, landscape string, connect ClusterFunc) (Backend, error) {
	if cfg == nil {
		cfg = &config.StateConfig{Backend: config.BackendLocal}
	}
	switch cfg.Backend {
	case config.BackendLocal, "":
		path := cfg.Path
		if path == "" {
			path = DefaultLocalPath
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		return NewLocal(path), nil
	case config.BackendKubernetes:
		if cfg.Cluster == "" {
			return nil, fmt.Errorf("state: the kubernetes backend needs a cluster")
		}
		if connect == nil {
			return nil, fmt.Errorf("state: cannot connect to cluster %q", cfg.Cluster)
		}
		c, err := connect(cfg.Cluster)
		if err != nil {
			return nil, fmt.Errorf("state: cluster %s: %w", cfg.Cluster, err)
		}
		cs, err := kubernetes.NewForConfig(c.RESTConfig())
		if err != nil {
			return nil, fmt.Errorf("state: cluster %s: %w", cfg.Cluster, err)
		}
		b := NewKubernetes(cs, kubeNamespace(cfg), landscape)
		if k := b.(*kube); k.invalid != nil {
			return nil, k.invalid
		}
		return b, nil
	default:
		return nil, fmt.Errorf("state: backend %q is not supported; use %q or %q", cfg.Backend, config.BackendLocal, config.BackendKubernetes)
	}
}
