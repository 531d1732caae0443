package planner

import (
	"fmt"
	"path/filepath"
	"slices"

	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/shard"
	"github.com/declarative-gardener/gardener/state"
)

// The state block of a landscape is read here, not in package state: state keeps and locks
// states in the backends it is handed and knows nothing of the landscape language or of cluster
// blocks, so that it depends only on the object model and the inventory.

// ClusterFunc returns the client of a cluster block by name.
type ClusterFunc func(name string) (*cluster.Client, error)

// DefaultStateNamespace is the kubernetes backend's namespace when the state block names none
// (the loader applies the same default).
const DefaultStateNamespace = "garden"

// StateBackend returns the backend a landscape's state block declares. Without a state block the
// state is local, in state.DefaultLocalPath. A relative local path is relative to the landscape
// directory dir, so that the state is the same wherever gardener runs from. connect is called
// only for the kubernetes backend, with the name of the cluster block holding the state.
func StateBackend(cfg *config.StateConfig, dir, landscape string, connect ClusterFunc) (state.Backend, error) {
	if cfg == nil {
		cfg = &config.StateConfig{Backend: config.BackendLocal}
	}
	switch cfg.Backend {
	case config.BackendLocal, "":
		return state.NewLocalWithOptions(localStatePath(cfg, dir), state.LocalOptions{Landscape: landscape}), nil
	case config.BackendKubernetes:
		if cfg.Cluster == "" {
			return nil, fmt.Errorf("state: the kubernetes backend needs a cluster")
		}
		if connect == nil {
			return nil, fmt.Errorf("state: cannot connect to cluster %q", cfg.Cluster)
		}
		cs, err := stateClientset(cfg, connect)
		if err != nil {
			return nil, err
		}
		ns := stateNamespace(cfg)
		if err := state.CheckKubernetes(ns, landscape); err != nil {
			return nil, err
		}
		return state.NewKubernetes(cs, ns, landscape), nil
	default:
		return nil, fmt.Errorf("state: backend %q is not supported; use %q or %q", cfg.Backend, config.BackendLocal, config.BackendKubernetes)
	}
}

// localStatePath is the file of the local backend: the state block's path (DefaultLocalPath
// without one), relative to the landscape directory dir.
func localStatePath(cfg *config.StateConfig, dir string) string {
	path := cfg.Path
	if path == "" {
		path = state.DefaultLocalPath
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	return path
}

// StateShards returns the store of the shards of the state a landscape's state block declares
// (state.ShardStore): the backend StateBackend returns is its garden shard.
func StateShards(cfg *config.StateConfig, dir, landscape string, connect ClusterFunc) (state.ShardStore, error) {
	if cfg == nil {
		cfg = &config.StateConfig{Backend: config.BackendLocal}
	}
	if cfg.Backend != config.BackendKubernetes {
		if _, err := StateBackend(cfg, dir, landscape, connect); err != nil {
			return nil, err // an unsupported backend
		}
		return state.NewLocalShards(localStatePath(cfg, dir), state.LocalOptions{Landscape: landscape}), nil
	}
	if cfg.Cluster == "" {
		return nil, fmt.Errorf("state: the kubernetes backend needs a cluster")
	}
	if connect == nil {
		return nil, fmt.Errorf("state: cannot connect to cluster %q", cfg.Cluster)
	}
	ns := stateNamespace(cfg)
	if err := state.CheckKubernetes(ns, landscape); err != nil {
		return nil, err
	}
	cs, err := stateClientset(cfg, connect)
	if err != nil {
		return nil, err
	}
	return state.NewKubernetesShards(cs, ns, landscape, state.KubernetesOptions{}), nil
}

// stateClientset connects to the cluster block holding the kubernetes backend's state.
func stateClientset(cfg *config.StateConfig, connect ClusterFunc) (*kubernetes.Clientset, error) {
	c, err := connect(cfg.Cluster)
	if err != nil {
		return nil, fmt.Errorf("state: cluster %s: %w", cfg.Cluster, err)
	}
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		return nil, fmt.Errorf("state: cluster %s: %w", cfg.Cluster, err)
	}
	return cs, nil
}

// ShardedState is the backend of a landscape's state over its shards, as a assigns the
// landscape's instances to them (shard.BySeed; a component a does not place stays in the shard
// that records it). With own set it is the backend of shard home only (a daemon replica leading
// that shard); otherwise of every shard, and a landscape without shards keeps its one state.
func ShardedState(store state.ShardStore, a *shard.Assignment, home string, own bool) state.Backend {
	return state.NewSharded(store, state.ShardedOptions{Place: a.Place, Shards: a.Shards(), Home: home, OwnHome: own})
}

// scopedShards are the shards a plan that left shoots out (config.Scope) reads and writes
// besides the garden shard: those of the shoots it evaluated, the targets and what they need
// (state.ShardedOptions.Within). It is nil, every shard, for a plan that evaluated everything.
func scopedShards(ev *config.Evaluated, a *shard.Assignment) []string {
	if ev == nil || ev.Skipped == 0 {
		return nil
	}
	within := []string{}
	for addr, inst := range ev.Instances {
		if inst.Block == nil || !inst.Block.Schema.Independent {
			continue
		}
		if s, ok := a.Place(string(addr)); ok && s != state.GardenShard && !slices.Contains(within, s) {
			within = append(within, s)
		}
	}
	slices.Sort(within)
	return within
}

// StateHead is where a landscape whose state block keeps the state in a cluster has its head
// Secret: the block's namespace (DefaultStateNamespace when unset) and the Secret's name. ok is
// false for any other backend. The daemon watches the head and plans from the state it last read
// or wrote as long as the head names that version (state.HeadVersion).
func StateHead(cfg *config.StateConfig, landscape string) (namespace, name string, ok bool) {
	if cfg == nil || cfg.Backend != config.BackendKubernetes {
		return "", "", false
	}
	return stateNamespace(cfg), state.HeadName(landscape), true
}

// stateNamespace is the namespace a kubernetes state block names, DefaultStateNamespace when
// unset.
func stateNamespace(cfg *config.StateConfig) string {
	if cfg.Namespace == "" {
		return DefaultStateNamespace
	}
	return cfg.Namespace
}
