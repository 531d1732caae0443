package planner

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/shard"
	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/state"
)

// offlineScalePlan plans landscapes/scale with count shoots against empty clusters.
func offlineScalePlan(t *testing.T, count int, targets []string, evaluateAll bool) (*Outcome, string) {
	t.Helper()
	connect, err := OfflineConnector()
	require.NoError(t, err)
	return scalePlan(t, count, targets, evaluateAll, connect, nil)
}

func scalePlan(t *testing.T, count int, targets []string, evaluateAll bool, connect Connector, st *state.State) (*Outcome, string) {
	t.Helper()
	out, diags, err := Plan(context.Background(), Options{
		State: st,
		Dir:   filepath.Join("..", "..", "landscapes", "scale"), Schemas: catalog.Schemas(), Renderers: catalog.Renderers(),
		Inputs:  config.InputSources{Vars: []string{fmt.Sprintf("shoot_count=%d", count)}},
		Connect: connect, DeferSecrets: true, Recorded: true, Differs: LocalDiffers(""),
		Now:     time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Targets: targets, evaluateAll: evaluateAll,
	})
	require.NoError(t, err)
	require.False(t, diags.HasErrors(), diags.Error())
	var b bytes.Buffer
	require.NoError(t, views.PlanJSON(&b, out.Result.Plan))
	return out, b.String()
}

// A plan targeted at one shoot evaluates and renders the shoot, what it refers to and every
// block that is not a shoot, and leaves the other shoots out: the same plan as when every shoot
// is evaluated, at a cost that does not grow with the fleet.
func TestTargetedPlanOfOneShootLeavesTheFleetOut(t *testing.T) {
	target := []string{`shoot.on_s1["shoot-003"]`}
	scoped, scopedJSON := offlineScalePlan(t, 12, target, false)
	whole, wholeJSON := offlineScalePlan(t, 12, target, true)
	assert.Equal(t, 11, scoped.Load.Evaluated.Skipped, "the other eleven shoots are left out")
	assert.Zero(t, whole.Load.Evaluated.Skipped)
	assert.Equal(t, wholeJSON, scopedJSON, "leaving the fleet out changes nothing in the plan")
	assert.Equal(t, whole.Graph.Order(), scoped.Graph.Order())

	// The work does not grow with the fleet: the same instances are rendered at 4 and 40 shoots.
	small, _ := offlineScalePlan(t, 4, target, false)
	large, _ := offlineScalePlan(t, 40, target, false)
	assert.Equal(t, renderedAddresses(small), renderedAddresses(large))
	assert.Equal(t, 39, large.Load.Evaluated.Skipped)
}

func renderedAddresses(o *Outcome) []config.InstanceAddress {
	return slices.Sorted(maps.Keys(o.Rendered))
}

// A component whose objects need a shoot's Namespace without referring to the shoot breaks the
// promise targeted plans rely on (a plan of that component would leave the shoot out): the full
// plan says so at the component and names the depends_on to add; with it, the plan is valid.
func TestDependencyOnAShootNeedsAReference(t *testing.T) {
	component := func(dependsOn string) string {
		return `
component "manifests" "in_the_control_plane" {
  cluster   = cluster.runtime
  namespace = "shoot--local--dev"
  objects   = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "extra" } }]
  ` + dependsOn + `
}
`
	}
	dir := localWith(t, "extra.hcl", component(""))
	_, diags := Prepare(Options{Dir: dir, Schemas: catalog.Schemas(), Renderers: catalog.Renderers()})
	require.True(t, diags.HasErrors())
	require.Len(t, diags, 1, diags.Error())
	assert.Equal(t, "Dependency without a reference", diags[0].Summary)
	assert.Contains(t, diags[0].Detail, "add depends_on = [shoot.dev] to component.manifests.in_the_control_plane")
	assert.Equal(t, "extra.hcl", filepath.Base(diags[0].Subject.Filename))
	assert.Equal(t, 2, diags[0].Subject.Start.Line)

	dir = localWith(t, "extra.hcl", component("depends_on = [shoot.dev]"))
	_, diags = Prepare(Options{Dir: dir, Schemas: catalog.Schemas(), Renderers: catalog.Renderers()})
	require.False(t, diags.HasErrors(), diags.Error())
}

// What a target leaves out: a shoot block keeps its own instances, a target that is not a shoot
// (which may be a composite whose parts follow what shoots create) leaves nothing out.
func TestTargetScopeByKindOfTarget(t *testing.T) {
	tests := []struct {
		targets []string
		skipped int
	}{
		{targets: []string{"shoot.on_s2"}, skipped: 8}, // 12 shoots, 4 per seed
		{targets: []string{`shoot.on_s2["shoot-001"]`, `shoot.on_s3["shoot-002"]`}, skipped: 10},
		{targets: []string{`shoot.on_s1["shoot-000"].kube_apiserver`}, skipped: 11}, // a part of a shoot
		{targets: []string{"seed.s1"}, skipped: 0},
		{targets: []string{"component.project.scale", `shoot.on_s1["shoot-000"]`}, skipped: 0},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.targets, ","), func(t *testing.T) {
			out, _ := offlineScalePlan(t, 12, tt.targets, false)
			assert.Equal(t, tt.skipped, out.Load.Evaluated.Skipped)
		})
	}
}

// countingCluster counts the reads a plan makes of an empty cluster.
type countingCluster struct {
	observe.Cluster
	gets *atomic.Int64
	got  *sync.Map
}

func (c countingCluster) List(ctx context.Context, gvr k8sschema.GroupVersionResource, namespace, selector string) ([]unstructured.Unstructured, error) {
	c.got.Store("list "+gvr.Resource+" "+namespace+" "+selector, true)
	return c.Cluster.List(ctx, gvr, namespace, selector)
}

func (c countingCluster) Get(ctx context.Context, gvr k8sschema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	c.gets.Add(1)
	c.got.Store(gvr.Resource+" "+namespace+"/"+name, true)
	return c.Cluster.Get(ctx, gvr, namespace, name)
}

// A plan targeted at one shoot reads its objects by name: observation lists no kind, whose cost
// would follow the landscape (a project's Shoots, every shoot's Secrets on a seed), and GETs what
// the state records of the shoot, so that what it no longer renders is found and deleted.
func TestTargetedPlanOfOneShootReadsByName(t *testing.T) {
	var gets atomic.Int64
	got := &sync.Map{}
	connect := func(name string, a cluster.Access) (observe.Cluster, error) {
		empty, err := observe.EmptyCluster()
		return countingCluster{Cluster: empty, gets: &gets, got: got}, err
	}
	target := []string{`shoot.on_s1["shoot-003"]`}
	st := state.Empty("scale")
	st.Serial, st.Lineage = 1, "0f6a1c9e-5b8a-4c47-9a55-1d9c0e2b7a41"
	st.Components[target[0]] = &state.Component{Address: target[0], Type: "shoot", Objects: []state.Object{
		// Cluster-scoped: nothing is read in a namespace that does not exist (the shoot's).
		{Cluster: "seed_1", Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Name: "left-over", UID: "u1"},
	}}
	_, _ = scalePlan(t, 12, target, false, connect, st)
	// Rendering lists what it renders from (the seeds' Shoots created through the API, the
	// garden's domain Secrets); observation lists no kind across namespaces, only namespaces
	// holding several of the plan's objects of a kind.
	namespaceLists := 0
	got.Range(func(k, _ any) bool {
		key := k.(string)
		if strings.Contains(key, "declarative-gardener.io/landscape") {
			assert.NotContains(t, key, "  ", "observation lists no kind across namespaces: %s", key)
			namespaceLists++
		}
		return true
	})
	assert.NotZero(t, namespaceLists)
	assert.NotZero(t, gets.Load())
	_, recordedRead := got.Load("clusterroles /left-over")
	assert.True(t, recordedRead, "what the state records of the shoot is read by name")

	got.Clear()
	_, _ = scalePlan(t, 12, target, true, connect, st)
	clusterWide := 0
	got.Range(func(k, _ any) bool {
		if key := k.(string); strings.Contains(key, "declarative-gardener.io/landscape") && strings.Contains(key, "  ") {
			clusterWide++
		}
		return true
	})
	assert.NotZero(t, clusterWide, "a plan over the whole landscape lists kinds across namespaces")
}

// The state a plan targeted at one shoot reads and writes: its seed's shard (and the garden
// shard, always); a plan of the whole landscape covers every shard.
func TestTargetedPlanCoversItsSeedsShard(t *testing.T) {
	scoped, _ := offlineScalePlan(t, 12, []string{`shoot.on_s2["shoot-001"]`}, false)
	ev := scoped.Load.Evaluated
	assert.Equal(t, []string{"seed.s2"}, scopedShards(ev, shard.BySeed(ev)))
	whole, _ := offlineScalePlan(t, 12, []string{`shoot.on_s2["shoot-001"]`}, true)
	assert.Nil(t, scopedShards(whole.Load.Evaluated, shard.BySeed(whole.Load.Evaluated)))
}
