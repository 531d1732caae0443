package state

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// GardenShard is the name of the shard that holds everything no seed shard holds: the
// landscape's own state, stored where an unsharded landscape stores it, so that switching
// sharding on needs no migration.
const GardenShard = ""

// ShardStore keeps the states of one landscape's shards, each stored and locked on its own (a
// state Secret set and a Lease per shard in the kubernetes backend, a file and a lock file per
// shard in the local one), so that writers of different shards never wait on each other.
type ShardStore interface {
	// Shard returns the backend of one shard; GardenShard is the landscape's own state.
	Shard(name string) Backend
	// Shards returns the names of the shards other than GardenShard that have a stored state,
	// sorted. A landscape none of whose shards has a state is not sharded.
	Shards(ctx context.Context) ([]string, error)
}

// NewKubernetesShards returns the store of landscape's shards in namespace, beside its own state
// (NewKubernetesWithOptions is the GardenShard).
func NewKubernetesShards(client kubernetes.Interface, namespace, landscape string, opts KubernetesOptions) ShardStore {
	return &kubeShards{client: client, namespace: namespace, landscape: landscape, opts: opts}
}

type kubeShards struct {
	client    kubernetes.Interface
	namespace string
	landscape string
	opts      KubernetesOptions
}

func (k *kubeShards) Shard(name string) Backend {
	b := NewKubernetesWithOptions(k.client, k.namespace, k.landscape, k.opts).(*kube)
	if name != GardenShard {
		b.shard = name
		b.slug = b.slug + "--" + ShardSlug(name)
	}
	return b
}

// Shards lists the head Secrets that name a shard.
func (k *kubeShards) Shards(ctx context.Context) ([]string, error) {
	if err := CheckKubernetes(k.namespace, k.landscape); err != nil {
		return nil, err
	}
	sel := fmt.Sprintf("%s=%s,%s=%s,%s", stateLabel, k.landscape, roleLabel, roleHead, shardLabel)
	list, err := k.client.CoreV1().Secrets(k.namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if apierrors.IsForbidden(err) {
		// Who may only read the state's head by name (a plan) sees the landscape's own state,
		// as before sharding: what needs every shard (an apply) lists chunks anyway.
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("state shards in namespace %s: %w", k.namespace, err)
	}
	var names []string
	for _, s := range list.Items {
		name := s.Annotations[annoShard]
		// A head whose label does not match its name was not written by a shard's backend.
		if name != "" && s.Labels[shardLabel] == shardKey(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// ShardHeadName is the name of the head Secret of one shard's state in the kubernetes backend
// (HeadName for the GardenShard), which the daemon of that shard watches.
func ShardHeadName(landscape, shard string) string {
	if shard == GardenShard {
		return HeadName(landscape)
	}
	return headName(nameSlug(landscape) + "--" + ShardSlug(shard))
}

// ShardLockName is the name of the Lease that locks one shard's state (LockName for the
// GardenShard).
func ShardLockName(landscape, shard string) string {
	if shard == GardenShard {
		return LockName(landscape)
	}
	return lockName(nameSlug(landscape) + "--" + ShardSlug(shard))
}

// NewLocalShards returns the store of a landscape's shards beside its state file path: the
// shard named n in "<path>.shard.<n escaped>" and its lock in that file's ".lock".
func NewLocalShards(path string, opts LocalOptions) ShardStore {
	return &localShards{path: path, opts: opts}
}

type localShards struct {
	path string
	opts LocalOptions
}

// shardFilePrefix is what the names of a local state's shard files start with, after the
// state file's name.
const shardFilePrefix = ".shard."

func (l *localShards) Shard(name string) Backend {
	if name == GardenShard {
		return NewLocalWithOptions(l.path, l.opts)
	}
	return NewLocalWithOptions(l.path+shardFilePrefix+url.PathEscape(name), l.opts)
}

func (l *localShards) Shards(context.Context) ([]string, error) {
	dir, base := filepath.Split(l.path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("state shards beside %s: %w", l.path, err)
	}
	var names []string
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), base+shardFilePrefix)
		if !ok || strings.HasSuffix(rest, ".lock") || !e.Type().IsRegular() {
			continue
		}
		if name, err := url.PathUnescape(rest); err == nil && name != "" && url.PathEscape(name) == rest {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, nil
}
