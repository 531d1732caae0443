package state

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/inventory"
)

// Defaults of the kubernetes backend.
const (
	// DefaultLeaseDuration is how long a lease stays valid without renewal: long enough to ride
	// out an API server restart, short enough that a crashed holder's lock frees itself soon.
	DefaultLeaseDuration = 60 * time.Second
	// DefaultRenewInterval gives a holder two more attempts before its lease expires.
	DefaultRenewInterval = 20 * time.Second
	// DefaultChunkSize keeps every Secret well under the API server's 1 MiB limit on Secret data.
	DefaultChunkSize = 900 << 10
	// MaxStateChunks bounds the chunks a read fetches: whoever can write the head Secret must not
	// make a read issue millions of GETs. 1,024 chunks of 64 KiB hold MaxStateSize; the default
	// chunk size needs 73.
	MaxStateChunks = 1024
)

// Labels and annotations of the kubernetes backend's Secrets and Lease. They are deliberately
// not the inventory label: the state must never be mistaken for an object the landscape owns
// (and pruned).
const (
	stateLabel        = "state.declarative-gardener.io/landscape"
	roleLabel         = "state.declarative-gardener.io/role"
	roleHead          = "head"
	roleChunk         = "chunk"
	annoSerial        = "state.declarative-gardener.io/serial"
	annoLineage       = "state.declarative-gardener.io/lineage"
	annoChunks        = "state.declarative-gardener.io/chunks"
	annoSHA256        = "state.declarative-gardener.io/sha256"
	annoWriteID       = "state.declarative-gardener.io/write-id"
	annoIndex         = "state.declarative-gardener.io/index"
	annoLockHolder    = "state.declarative-gardener.io/lock-holder"
	annoLockOperation = "state.declarative-gardener.io/lock-operation"
	// shardLabel marks the Secrets and Lease of a shard (its shardKey); the landscape's own
	// state (the garden shard) has none, so that it reads and collects as before sharding.
	shardLabel = "state.declarative-gardener.io/shard"
	// annoShard names the shard a head Secret belongs to, as Shards reports it.
	annoShard = "state.declarative-gardener.io/shard-name"
	dataKey   = "state.json.gz"
)

// KubernetesOptions tune the kubernetes backend; the zero value means the defaults. Tests use
// short durations.
type KubernetesOptions struct {
	// LeaseDuration is the lock lease's leaseDurationSeconds (whole seconds, at least one).
	LeaseDuration time.Duration
	// RenewInterval is how often a held lease is renewed; it must be shorter than LeaseDuration.
	RenewInterval time.Duration
	// PollInterval is how often a waiting Lock retries; zero means DefaultPollInterval.
	PollInterval time.Duration
	// ChunkSize is the most compressed state bytes one Secret holds.
	ChunkSize int
}

func (o KubernetesOptions) withDefaults() KubernetesOptions {
	if o.LeaseDuration <= 0 {
		o.LeaseDuration = DefaultLeaseDuration
	}
	o.LeaseDuration = max(o.LeaseDuration.Round(time.Second), time.Second)
	if o.RenewInterval <= 0 || o.RenewInterval >= o.LeaseDuration {
		o.RenewInterval = min(DefaultRenewInterval, o.LeaseDuration/3)
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.ChunkSize <= 0 {
		o.ChunkSize = DefaultChunkSize
	}
	return o
}

// kube keeps the state in Secrets and locks it with a Lease, both in one namespace of a cluster
// the landscape declares, so that the CLI and the daemon (running in that cluster) share them.
// Layout (docs: "State"):
//
//   - Secret gardener-state-<landscape> (the head): the state's first chunk under
//     "state.json.gz", and annotations naming its serial, lineage, chunk count, the SHA-256 of
//     all compressed bytes and the write ID of the chunks.
//   - Secrets gardener-state-<landscape>-<write ID>-<n>, n = 1...: the further chunks of a state
//     too large for one Secret. They are immutable and never reused: a write creates a new set
//     under a fresh write ID, then switches the head to it in one update (guarded by the head's
//     resourceVersion), then deletes the previous sets. A reader follows the head to a complete
//     set; a writer that dies before switching the head leaves an unused set that the next write
//     deletes.
//   - Lease gardener-lock-<landscape>: the lock.
type kube struct {
	client    kubernetes.Interface
	namespace string
	landscape string
	// slug is the landscape as it appears in object names; for a shard, followed by the
	// shard's slug.
	slug string
	// shard is the shard this backend keeps ("" for the landscape's own state).
	shard string
	opts  KubernetesOptions
	// invalid is why the backend cannot be used (an invalid landscape name), reported by every
	// call.
	invalid error
}

// NewKubernetes returns the backend keeping the state of landscape in namespace. The namespace
// must exist: the backend never creates it, so that a typo is an error, not a new namespace.
func NewKubernetes(client kubernetes.Interface, namespace, landscape string) Backend {
	return NewKubernetesWithOptions(client, namespace, landscape, KubernetesOptions{})
}

// NewKubernetesWithOptions is NewKubernetes with options.
func NewKubernetesWithOptions(client kubernetes.Interface, namespace, landscape string, opts KubernetesOptions) Backend {
	return &kube{client: client, namespace: namespace, landscape: landscape, slug: nameSlug(landscape), opts: opts.withDefaults(),
		invalid: CheckKubernetes(namespace, landscape)}
}

// CheckKubernetes returns why the kubernetes backend cannot keep the state of landscape in
// namespace (an invalid landscape name, no namespace), nil when it can: the error every call of
// such a backend reports, for callers that want it before the first call.
func CheckKubernetes(namespace, landscape string) error {
	if err := inventory.ValidateLandscapeName(landscape); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	if namespace == "" {
		return errors.New("state: the kubernetes backend needs a namespace")
	}
	return nil
}

// nameSlug makes a landscape name (a label value: letters, digits, '-', '_', '.') usable in
// object names (lower-case letters, digits, '-'). A name that had to change gets a hash of the
// original, so that "A_b" and "a-b" do not share a state.
func nameSlug(landscape string) string {
	slug := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		default:
			return '-'
		}
	}, landscape)
	if slug == landscape {
		return slug
	}
	sum := sha256.Sum256([]byte(landscape))
	return slug + "-" + hex.EncodeToString(sum[:4])
}

// HeadName is the name of the head Secret of a landscape's state in the kubernetes backend. The
// daemon watches the head and plans from the state it last read or wrote as long as the head
// names that version (HeadVersion).
func HeadName(landscape string) string { return headName(nameSlug(landscape)) }

// HeadVersion returns the lineage and serial a head Secret's annotations record; ok is false
// when they are missing or invalid (the state is then damaged, and reading it says so).
func HeadVersion(annotations map[string]string) (lineage string, serial int64, ok bool) {
	m, err := parseHead(annotations)
	if err != nil {
		return "", 0, false
	}
	return m.lineage, m.serial, true
}

// LockName is the name of the Lease that locks a landscape's state in the kubernetes backend.
// With HeadName it is what RBAC can name (the landscape_daemon component's Role); the state's
// further chunks are named after a random write ID, which no rule can know beforehand.
func LockName(landscape string) string { return lockName(nameSlug(landscape)) }

func headName(slug string) string { return "gardener-state-" + slug }
func lockName(slug string) string { return "gardener-lock-" + slug }

// ShardSlug makes a shard name (an instance address such as `seed.x["a"]`) usable in object
// names, the way landscape names are: lower-case letters, digits and '-', with a hash of the
// name when it had to change.
func ShardSlug(shard string) string { return nameSlug(shard) }

// shardKey is the shard's label value: a hash, because an address holds characters and may be
// longer than a label value allows.
func shardKey(shard string) string {
	sum := sha256.Sum256([]byte(shard))
	return hex.EncodeToString(sum[:8])
}

func (b *kube) headName() string  { return headName(b.slug) }
func (b *kube) leaseName() string { return lockName(b.slug) }
func (b *kube) chunkName(writeID string, n int) string {
	return fmt.Sprintf("gardener-state-%s-%s-%d", b.slug, writeID, n)
}

// where names the state in errors.
func (b *kube) where() string {
	return fmt.Sprintf("state secret %s/%s", b.namespace, b.headName())
}

// labels are those of the backend's Secrets and Lease with role (empty for the Lease).
func (b *kube) labels(role string) map[string]string {
	l := map[string]string{stateLabel: b.landscape}
	if role != "" {
		l[roleLabel] = role
	}
	if b.shard != "" {
		l[shardLabel] = shardKey(b.shard)
	}
	return l
}

// namespaceMissing reports whether err is the API server's answer to creating an object in a
// namespace that does not exist.
func namespaceMissing(err error) bool {
	var status apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &status) {
		return false
	}
	d := status.Status().Details
	return d != nil && d.Kind == "namespaces"
}

func (b *kube) errNamespace() error {
	return fmt.Errorf("state: namespace %q does not exist; create it or name another one with state { namespace = ... }", b.namespace)
}
