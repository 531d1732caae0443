package daemon

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
)

func TestDecide(t *testing.T) {
	changes := &plan.Plan{Summary: plan.Summary{Add: 1, Change: 2}}
	destructive := &plan.Plan{Summary: plan.Summary{Change: 1, Destroy: 1}}
	replacing := &plan.Plan{Summary: plan.Summary{Replace: 1}}
	// A version update whose only deletions are the superseded old versions.
	superseding := &plan.Plan{Summary: plan.Summary{Add: 2, Change: 3, Destroy: 2, Superseded: 2}}
	supersedingAndDeleting := &plan.Plan{Summary: plan.Summary{Add: 2, Destroy: 3, Superseded: 2}}
	// Updates only, but the resource manager deletes what a ManagedResource no longer holds.
	droppingContents := &plan.Plan{Summary: plan.Summary{Change: 1}, IndirectDeletions: []plan.IndirectDeletion{
		{Address: "shoot.dev", Cluster: "seed", Ref: object.Ref{Group: "resources.gardener.cloud", Kind: "ManagedResource", Namespace: "shoot--dev", Name: "coredns"},
			Controller: "gardener-resource-manager", Deletes: "Service kube-system/old"}}}
	// A version update whose superseded deletions go with it, and a worker pool removed.
	supersedingAndRemovingAPool := &plan.Plan{Summary: plan.Summary{Add: 1, Change: 1, Destroy: 1, Superseded: 1}, IndirectDeletions: []plan.IndirectDeletion{
		{Address: "shoot.dev", Cluster: "seed", Controller: "machine-controller-manager", Deletes: "the machines of worker pool b"}}}
	tests := []struct {
		name     string
		policy   Policy
		pl       *plan.Plan
		approved string
		apply    bool
	}{
		{"auto applies everything", PolicyAuto, destructive, "", true},
		{"plan-only applies nothing", PolicyPlanOnly, changes, "", false},
		{"plan-only ignores approvals", PolicyPlanOnly, destructive, "h", false},
		{"non-destructive goes ahead (drift repairs)", PolicyApproveDestructive, changes, "", true},
		{"deletes wait", PolicyApproveDestructive, destructive, "", false},
		{"replacements wait", PolicyApproveDestructive, replacing, "", false},
		{"superseded versions go with their update", PolicyApproveDestructive, superseding, "", true},
		{"other deletions beside superseded ones wait", PolicyApproveDestructive, supersedingAndDeleting, "", false},
		{"an approval of another plan does not count", PolicyApproveDestructive, destructive, "other", false},
		{"the approved plan is applied", PolicyApproveDestructive, destructive, "h", true},
		{"objects dropped from a ManagedResource wait", PolicyApproveDestructive, droppingContents, "", false},
		{"a removed worker pool waits, superseded versions beside it or not", PolicyApproveDestructive, supersedingAndRemovingAPool, "", false},
		{"indirect deletions go once approved", PolicyApproveDestructive, droppingContents, "h", true},
		{"auto applies indirect deletions", PolicyAuto, droppingContents, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(tt.policy, tt.pl, "h", tt.approved)
			assert.Equal(t, tt.apply, d.Apply)
			assert.NotEmpty(t, d.Reason)
		})
	}
	assert.Contains(t, Decide(PolicyApproveDestructive, destructive, "h", "").Reason, "gardener approve h")
	assert.Equal(t, "the plan makes other controllers delete what it no longer renders (gardener-resource-manager deletes Service kube-system/old (ManagedResource.resources.gardener.cloud shoot--dev/coredns in cluster seed, shoot.dev)) and waits for approval: gardener approve h",
		Decide(PolicyApproveDestructive, droppingContents, "h", "").Reason, "the status says why")
	many := &plan.Plan{IndirectDeletions: make([]plan.IndirectDeletion, 7)}
	assert.Contains(t, Decide(PolicyApproveDestructive, many, "h", "").Reason, "; 2 more in the plan's indirect_deletions)")
	_, err := ParsePolicy("yolo")
	assert.ErrorContains(t, err, `policy "yolo" is none of auto, approve-destructive, plan-only`)
}

func TestHashIsStableAndSpecific(t *testing.T) {
	a := &plan.Plan{Landscape: "l", Summary: plan.Summary{Destroy: 1}}
	b := &plan.Plan{Landscape: "l", Summary: plan.Summary{Destroy: 2}}
	ha, err := Hash(a)
	require.NoError(t, err)
	again, err := Hash(&plan.Plan{Landscape: "l", Summary: plan.Summary{Destroy: 1}})
	require.NoError(t, err)
	hb, err := Hash(b)
	require.NoError(t, err)
	assert.Equal(t, ha, again)
	assert.NotEqual(t, ha, hb)
}

// The hash follows what the plan does: the live version of an object it deletes or changes
// counts, that of an object it leaves alone (the daemon's status ConfigMap, rewritten after every
// plan) does not.
func TestHashIgnoresVersionsOfUnchangedObjects(t *testing.T) {
	planWith := func(statusVersion, deletedVersion string) *plan.Plan {
		return &plan.Plan{Landscape: "l", Summary: plan.Summary{Destroy: 1}, Components: []*plan.Component{{Address: "component.manifests.a", Objects: []*plan.ObjectChange{
			{Ref: object.Ref{Kind: "ConfigMap", Namespace: "gardener-daemon", Name: "gardener-daemon-status"}, Action: plan.NoOp, ResourceVersion: statusVersion},
			{Ref: object.Ref{Kind: "ConfigMap", Namespace: "apps", Name: "b"}, Action: plan.Delete, ResourceVersion: deletedVersion},
		}}}}
	}
	hash := func(pl *plan.Plan) string {
		h, err := Hash(pl)
		require.NoError(t, err)
		return h
	}
	pl := planWith("10", "5")
	before := hash(pl)
	assert.Equal(t, before, hash(planWith("11", "5")), "the status was written since")
	assert.NotEqual(t, before, hash(planWith("10", "6")), "the object to delete changed since")
	assert.Equal(t, "10", pl.Components[0].Objects[0].ResourceVersion, "the plan itself keeps its versions")
}

// A ConfigMap volume keeps its files behind ..data, a symlink the kubelet swaps atomically: the
// fingerprint follows the swap, ignores the bookkeeping entries, and a snapshot is a plain copy.
func TestFingerprintFollowsAtomicSymlinkSwaps(t *testing.T) {
	dir := t.TempDir()
	write := func(version, content string) {
		v := filepath.Join(dir, "..2026_11_21_"+version)
		require.NoError(t, os.MkdirAll(filepath.Join(v, "charts"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(v, "main.hcl"), []byte(content), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(v, "charts", "values.yaml"), []byte("a: 1\n"), 0o644))
		tmp := filepath.Join(dir, "..data_tmp")
		require.NoError(t, os.Symlink(filepath.Base(v), tmp))
		require.NoError(t, os.Rename(tmp, filepath.Join(dir, "..data")))
	}
	write("1", `landscape "l" {}`)
	for _, name := range []string{"main.hcl", "charts"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); os.IsNotExist(err) {
			require.NoError(t, os.Symlink(filepath.Join("..data", name), filepath.Join(dir, name)))
		}
	}
	first, err := Fingerprint(dir)
	require.NoError(t, err)
	same, err := Fingerprint(dir)
	require.NoError(t, err)
	assert.Equal(t, first, same)

	write("2", `landscape "l" { description = "changed" }`)
	second, err := Fingerprint(dir)
	require.NoError(t, err)
	assert.NotEqual(t, first, second, "the swap changed a file")

	snap, fp, err := Snapshot(dir, t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, second, fp)
	data, err := os.ReadFile(filepath.Join(snap, "main.hcl"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "changed")
	_, err = os.Stat(filepath.Join(snap, "charts", "values.yaml"))
	assert.NoError(t, err)
	entries, err := os.ReadDir(snap)
	require.NoError(t, err)
	for _, e := range entries {
		assert.NotContains(t, e.Name(), "..", "bookkeeping entries are not copied")
	}
}

func TestStatusStore(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewSimpleClientset()
	st := StatusStore{Client: cs, Namespace: "garden", Name: "status"}
	approval, err := st.Approval(ctx)
	require.NoError(t, err)
	assert.Empty(t, approval, "no status yet")

	_, err = st.Write(ctx, Status{Phase: PhaseWaitingForApproval, PlanHash: "abc", PlanJSON: "{}", Drifted: []string{"x"}})
	require.NoError(t, err)
	assert.ErrorContains(t, st.Approve(ctx, "old"), "plan old is not the daemon's last plan (abc)")
	require.NoError(t, st.Approve(ctx, "abc"))
	_, err = st.Write(ctx, Status{Phase: PhaseApplied, PlanHash: "abc"})
	require.NoError(t, err)
	approval, err = st.Approval(ctx)
	require.NoError(t, err)
	assert.Equal(t, Approval{Hash: "abc"}, approval, "writing the status keeps the approval")
	// The approval is an object of its own, which RBAC grants separately from the status.
	obj, err := cs.CoreV1().ConfigMaps("garden").Get(ctx, "status-approval", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"plan-hash": "abc"}, obj.Data)
	// A later approval replaces an earlier one.
	_, err = st.Write(ctx, Status{Phase: PhaseWaitingForApproval, PlanHash: "def"})
	require.NoError(t, err)
	require.NoError(t, st.Approve(ctx, "def"))
	approval, err = st.Approval(ctx)
	require.NoError(t, err)
	assert.Equal(t, "def", approval.Hash)

	cm, err := cs.CoreV1().ConfigMaps("garden").Get(ctx, "status", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, PhaseWaitingForApproval, cm.Data["phase"])
	assert.NotContains(t, cm.Data, "drifted-objects", "empty fields are left out")
	assert.Empty(t, cm.Annotations, "approving does not touch the status")

	conds := Status{Conditions: []string{"seed.a: BackupBucketsReady True (BackupBucketsAvailable): Backup Buckets are available.", "seed.a: ExtensionsReady False (NotAllExtensionsReady): x"}}
	assert.Equal(t, "seed.a: BackupBucketsReady True (BackupBucketsAvailable): Backup Buckets are available.\nseed.a: ExtensionsReady False (NotAllExtensionsReady): x",
		conds.data()["conditions"], "one condition a line")

	big := Status{PlanJSON: string(make([]byte, maxPlanJSON+1))}
	assert.Contains(t, big.data()["last-plan.json"], "too large for the status")
}

// A failed cycle (here: the state's cluster cannot be reached) is retried before the resync,
// backing off while the failure persists, up to the resync period.
func TestFailedCyclesAreRetriedWithBackoff(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(`landscape "l" {
  state {
    backend = "kubernetes"
    cluster = cluster.c
  }
}

cluster "c" {
  kubeconfig = "missing-kubeconfig"
}
`), 0o644))
	d := New(Options{
		Dir: dir, WorkDir: t.TempDir(), Policy: PolicyAuto, Resync: 40 * time.Millisecond, RetryLock: 10 * time.Millisecond,
		Planner: func(dir string) planner.Options {
			return planner.Options{Dir: dir, Schemas: catalog.Schemas(), Inputs: config.InputSources{}}
		},
		Status:  StatusStore{Client: fake.NewSimpleClientset(), Namespace: "garden", Name: "status"},
		Metrics: NewMetrics(prometheus.NewRegistry()), Log: logr.Discard(),
	})
	ctx := context.Background()
	var waits []time.Duration
	for range 4 {
		s := d.Cycle(ctx)
		require.Equal(t, PhaseFailed, s.Phase, s.Message)
		assert.Contains(t, s.Errors, "missing-kubeconfig")
		waits = append(waits, d.backoff)
	}
	assert.Equal(t, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 40 * time.Millisecond}, waits)
	select {
	case <-d.kick:
	case <-time.After(5 * time.Second):
		t.Fatal("the retry did not trigger a cycle")
	}
}

// The annotation that approved plans in earlier versions is an edit of the status ConfigMap like
// any other: it approves nothing now, and is reported as ignored.
func TestApproveAnnotationApprovesNothing(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewSimpleClientset()
	st := StatusStore{Client: cs, Namespace: "garden", Name: "status"}
	_, err := st.Write(ctx, Status{Phase: PhaseWaitingForApproval, PlanHash: "abc"})
	require.NoError(t, err)
	cm, err := cs.CoreV1().ConfigMaps("garden").Get(ctx, "status", metav1.GetOptions{})
	require.NoError(t, err)
	cm.Annotations = map[string]string{ApproveAnnotation: "abc"}
	_, err = cs.CoreV1().ConfigMaps("garden").Update(ctx, cm, metav1.UpdateOptions{})
	require.NoError(t, err)

	approval, err := st.Approval(ctx)
	require.NoError(t, err)
	assert.Equal(t, Approval{Ignored: "abc"}, approval)
	destructive := &plan.Plan{Summary: plan.Summary{Destroy: 1}}
	assert.False(t, Decide(PolicyApproveDestructive, destructive, "abc", approval.Hash).Apply, "the annotation does not approve")
	assert.Equal(t, "the annotation declarative-gardener.io/approve=abc on ConfigMap garden/status is ignored: approvals are the ConfigMap garden/status-approval, which gardener approve HASH writes",
		st.IgnoredApprovalWarning(approval.Ignored))
	assert.Equal(t, "a\nb", Status{Warnings: []string{"a", "b"}}.data()["warnings"], "warnings are published one a line")
}
