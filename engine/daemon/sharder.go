package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"os"
	"slices"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/shard"
	"github.com/declarative-gardener/gardener/state"
)

// Defaults of the shard elections: those of controller-runtime's leader election, which an
// unsharded daemon uses.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// replicaLabel marks the Leases by which a sharded daemon's replicas announce themselves; its
// value is the elections' base Lease name.
const replicaLabel = "daemon.declarative-gardener.io/replicas-of"

// ShardOptions configure a Sharder.
type ShardOptions struct {
	// Daemon is what every shard's daemon runs with; Sharder sets its shard, and names its
	// status and approval ConfigMaps after the shard (StatusName).
	Daemon Options
	// Client, Namespace: where the election Leases live (the daemon's status namespace).
	Client    kubernetes.Interface
	Namespace string
	// LeaseName is the garden shard's election Lease; a seed shard's is LeaseName-<shard slug>
	// (ShardLeaseName). The garden shard's is the Lease an unsharded daemon elects its leader
	// with, so that replicas of both kinds never lead the garden at once.
	LeaseName string
	// Identity names this replica in the Leases; it must differ between replicas.
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod are client-go leader election's; zero means
	// the defaults.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// Sharder runs a sharded daemon replica: it splits the landscape into shards (Options.Assign,
// by seed), takes part in the leader election of every shard with a Lease of its own, and runs
// the daemon of each shard it leads; a shard whose lease it loses stops at once (its cycle's
// context ends, and the state lock's loss ends its writes). Replicas balance the shards: one
// that leads more than its share (the shards divided by the replicas that announce themselves,
// rounded up) hands the surplus over.
type Sharder struct {
	o ShardOptions

	mu sync.Mutex
	// campaigns are the running elections by shard.
	campaigns map[string]*campaign
	// shards are the landscape's shards as last split, garden first; fingerprint its version.
	shards      []string
	fingerprint string
}

// campaign is this replica's part in one shard's election.
type campaign struct {
	cancel context.CancelFunc
	done   chan struct{}
	// leading is set while this replica leads the shard; yield asks it to hand the shard over.
	leading bool
	yield   context.CancelFunc
	// yielded says the shard was handed over: the next campaign waits a lease duration, so
	// that another replica takes it.
	yielded bool
}

// NewSharder returns a sharded replica; Start runs it.
func NewSharder(o ShardOptions) *Sharder {
	if o.LeaseDuration <= 0 {
		o.LeaseDuration = DefaultLeaseDuration
	}
	if o.RenewDeadline <= 0 || o.RenewDeadline >= o.LeaseDuration {
		o.RenewDeadline = min(DefaultRenewDeadline, o.LeaseDuration*2/3)
	}
	if o.RetryPeriod <= 0 || o.RetryPeriod >= o.RenewDeadline {
		o.RetryPeriod = min(DefaultRetryPeriod, o.RenewDeadline/2)
	}
	if o.Daemon.Poll <= 0 {
		o.Daemon.Poll = 2 * time.Second
	}
	return &Sharder{o: o, campaigns: map[string]*campaign{}}
}

// NeedLeaderElection says that every replica runs: the elections are per shard.
func (s *Sharder) NeedLeaderElection() bool { return false }

// ShardLeaseName is the election Lease of a shard.
func ShardLeaseName(base, name string) string {
	if name == shard.Garden {
		return base
	}
	return base + "-" + state.ShardSlug(name)
}

// StatusName is the status ConfigMap of a shard's daemon: base for the garden shard,
// base-<shard slug> for a seed's; its approvals are that name's "-approval" ConfigMap.
func StatusName(base, name string) string { return ShardLeaseName(base, name) }

// Leading returns the shards this replica leads, sorted.
func (s *Sharder) Leading() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for name, c := range s.campaigns {
		if c.leading {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Start runs until ctx ends: it splits the landscape whenever its directory changes, campaigns
// for every shard, announces the replica and balances the shards.
func (s *Sharder) Start(ctx context.Context) error {
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer func() {
		stop()
		s.mu.Lock()
		var done []chan struct{}
		for _, c := range s.campaigns {
			done = append(done, c.done)
		}
		s.mu.Unlock()
		for _, d := range done {
			<-d
		}
	}()
	go func() {
		<-ctx.Done()
		stop()
	}()
	tick := time.NewTicker(s.o.Daemon.Poll)
	defer tick.Stop()
	balance := time.NewTicker(s.o.RetryPeriod)
	defer balance.Stop()
	s.resplit(runCtx)
	s.announce(runCtx)
	for {
		select {
		case <-runCtx.Done():
			s.withdraw()
			return nil
		case <-tick.C:
			s.resplit(runCtx)
		case <-balance.C:
			s.announce(runCtx)
			s.balance(runCtx)
		}
	}
}

// resplit splits the landscape again when its directory changed, and starts and stops the
// campaigns of the shards that came and went. A landscape that does not load keeps the shards
// it had; their daemons report its errors.
func (s *Sharder) resplit(ctx context.Context) {
	fp, err := Fingerprint(s.o.Daemon.Dir)
	if err != nil {
		s.o.Daemon.Log.Error(err, "reading the landscape directory")
		return
	}
	s.mu.Lock()
	same := fp == s.fingerprint
	s.mu.Unlock()
	if same {
		return
	}
	snap, _, err := Snapshot(s.o.Daemon.Dir, s.o.Daemon.WorkDir)
	if err != nil {
		s.o.Daemon.Log.Error(err, "reading the landscape directory")
		return
	}
	po := s.o.Daemon.Planner(snap)
	po.Inputs.Trust.Confined = true
	res, diags := config.Load(snap, po.Schemas, po.Inputs)
	_ = os.RemoveAll(snap)
	shards := []string{shard.Garden}
	if diags.HasErrors() {
		s.mu.Lock()
		known := len(s.shards) > 0
		if known {
			s.fingerprint = fp // loaded again when it changes
		}
		s.mu.Unlock()
		if known {
			return
		}
	} else {
		assign := s.o.Daemon.Assign
		if assign == nil {
			assign = shard.BySeed
		}
		shards = append(shards, assign(res.Evaluated).Shards()...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fingerprint, s.shards = fp, shards
	for name, c := range s.campaigns {
		if !slices.Contains(shards, name) {
			c.cancel()
			delete(s.campaigns, name)
		}
	}
	for _, name := range shards {
		if _, ok := s.campaigns[name]; !ok {
			s.campaigns[name] = s.startCampaign(ctx, name)
		}
	}
}

// startCampaign campaigns for a shard until ctx ends or the campaign is cancelled; s.mu is
// held.
func (s *Sharder) startCampaign(ctx context.Context, name string) *campaign {
	ctx, cancel := context.WithCancel(ctx)
	c := &campaign{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for ctx.Err() == nil {
			s.elect(ctx, c, name)
			pause := s.o.RetryPeriod
			s.mu.Lock()
			if c.yielded {
				// Handed over: the others get a lease duration to take the shard.
				pause, c.yielded = s.o.LeaseDuration, false
			}
			s.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(pause):
			}
		}
	}()
	return c
}

// elect runs one election for the shard; while this replica leads, the shard's daemon runs.
func (s *Sharder) elect(ctx context.Context, c *campaign, name string) {
	lead, yield := context.WithCancel(ctx)
	defer yield()
	var running sync.WaitGroup
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: s.o.Namespace, Name: ShardLeaseName(s.o.LeaseName, name)},
			Client:     s.o.Client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: s.o.Identity},
		},
		LeaseDuration: s.o.LeaseDuration, RenewDeadline: s.o.RenewDeadline, RetryPeriod: s.o.RetryPeriod,
		// A replica that stops (or yields the shard) hands over at once.
		ReleaseOnCancel: true,
		Name:            ShardLeaseName(s.o.LeaseName, name),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				running.Add(1)
				defer running.Done()
				s.setLeading(c, true, yield)
				defer s.setLeading(c, false, nil)
				s.o.Daemon.Log.Info("leading shard", "shard", shardName(name))
				_ = New(s.shardOptions(name)).Start(ctx)
			},
			OnStoppedLeading: func() {},
		},
	})
	if err != nil {
		s.o.Daemon.Log.Error(err, "shard election", "shard", shardName(name))
		return
	}
	le.Run(lead)
	// Run returns as soon as the lease is lost or released; the daemon's cycle ends with its
	// context, and the next campaign waits for it.
	running.Wait()
	if ctx.Err() == nil {
		s.o.Daemon.Log.Info("stopped leading shard", "shard", shardName(name))
	}
}

func (s *Sharder) setLeading(c *campaign, leading bool, yield context.CancelFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.leading, c.yield = leading, yield
}

// shardOptions are the options of one shard's daemon.
func (s *Sharder) shardOptions(name string) Options {
	o := s.o.Daemon
	o.Sharded, o.Shard = true, name
	o.Status.Name = StatusName(o.Status.Name, name)
	o.Holder += " shard " + shardName(name)
	o.Log = o.Log.WithValues("shard", shardName(name))
	return o
}

// replicaLease is the Lease by which this replica announces itself.
func (s *Sharder) replicaLease() string {
	sum := sha256.Sum256([]byte(s.o.Identity))
	return s.o.LeaseName + "-replica-" + hex.EncodeToString(sum[:6])
}

// announce creates or renews this replica's Lease.
func (s *Sharder) announce(ctx context.Context) {
	leases := s.o.Client.CoordinationV1().Leases(s.o.Namespace)
	now := metav1.NowMicro()
	secs := int64(s.o.LeaseDuration / time.Second)
	if secs < 1 || secs > math.MaxInt32 {
		secs = int64(DefaultLeaseDuration / time.Second)
	}
	cur, err := leases.Get(ctx, s.replicaLease(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, _ = leases.Create(ctx, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: s.replicaLease(), Namespace: s.o.Namespace, Labels: map[string]string{replicaLabel: s.o.LeaseName}},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity: ptr.To(s.o.Identity), LeaseDurationSeconds: ptr.To(int32(secs)),
				AcquireTime: &now, RenewTime: &now,
			},
		}, metav1.CreateOptions{})
	case err == nil:
		cur.Spec.RenewTime = &now
		cur.Spec.HolderIdentity = ptr.To(s.o.Identity)
		_, _ = leases.Update(ctx, cur, metav1.UpdateOptions{})
	}
}

// withdraw deletes this replica's announcement, so that the others take its share at once.
func (s *Sharder) withdraw() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.o.Client.CoordinationV1().Leases(s.o.Namespace).Delete(ctx, s.replicaLease(), metav1.DeleteOptions{})
}

// replicas counts the replicas whose announcement has not expired (this one at least).
func (s *Sharder) replicas(ctx context.Context) int {
	list, err := s.o.Client.CoordinationV1().Leases(s.o.Namespace).List(ctx, metav1.ListOptions{LabelSelector: replicaLabel + "=" + s.o.LeaseName})
	if err != nil {
		return 1
	}
	n := 0
	now := time.Now()
	for _, l := range list.Items {
		if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
			continue
		}
		if now.Before(l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second)) {
			n++
		}
	}
	return max(n, 1)
}

// balance hands over one shard when this replica leads more than its share: the last one by
// name, which the other replicas then take.
func (s *Sharder) balance(ctx context.Context) {
	s.mu.Lock()
	total := len(s.shards)
	s.mu.Unlock()
	leading := s.Leading()
	if len(leading) <= 1 {
		return
	}
	replicas := s.replicas(ctx)
	share := (total + replicas - 1) / replicas
	if len(leading) <= share {
		return
	}
	name := leading[len(leading)-1]
	s.mu.Lock()
	var yield context.CancelFunc
	if c := s.campaigns[name]; c != nil && c.yield != nil {
		c.yielded, yield = true, c.yield
	}
	s.mu.Unlock()
	if yield == nil {
		return
	}
	s.o.Daemon.Log.Info("handing over shard", "shard", shardName(name), "leading", len(leading), "share", share)
	yield()
}
