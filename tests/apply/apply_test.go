// Package apply_test proves apply and destroy against the local control plane.
package apply_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

func TestMain(m *testing.M) { os.Exit(localcluster.RunShared(m)) }

func runtimeConfig(t *testing.T) *rest.Config {
	return localcluster.Shared(t).Plane(localcluster.RuntimePlane).RESTConfig()
}

// planAndApply plans dir (destroying with destroy) and applies the plan. It plans without the
// landscape's state, as a library caller may: what it no longer renders is deleted because
// PruneWithoutState says so (`--prune-without-state`).
func planAndApply(t *testing.T, cfg *rest.Config, dir string, destroy bool, opts apply.Options) (*plan.Plan, *apply.Result) {
	t.Helper()
	po := landscapetest.Options(dir, landscapetest.Connector(cfg, cluster.Options{}))
	po.Destroy, po.PruneWithoutState = destroy, true
	out := landscapetest.Plan(t, po)
	res, err := apply.Run(context.Background(), out, opts)
	require.NoError(t, err)
	return out.Result.Plan, res
}

func planOf(t *testing.T, cfg *rest.Config, dir string) *plan.Plan {
	t.Helper()
	return landscapetest.Plan(t, landscapetest.Options(dir, landscapetest.Connector(cfg, cluster.Options{}))).Result.Plan
}

// owned lists "Kind namespace/name" of every ConfigMap, Namespace and Deployment carrying the
// landscape's label: what the landscape owns in the cluster.
func owned(t *testing.T, cfg *rest.Config, landscape string) []string {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	sel := metav1.ListOptions{LabelSelector: inventory.Selector(landscape)}
	ctx := context.Background()
	var out []string
	cms, err := cs.CoreV1().ConfigMaps("").List(ctx, sel)
	require.NoError(t, err)
	for _, o := range cms.Items {
		out = append(out, "ConfigMap "+o.Namespace+"/"+o.Name)
	}
	nss, err := cs.CoreV1().Namespaces().List(ctx, sel)
	require.NoError(t, err)
	for _, o := range nss.Items {
		if o.DeletionTimestamp == nil {
			out = append(out, "Namespace "+o.Name)
		}
	}
	deps, err := cs.AppsV1().Deployments("").List(ctx, sel)
	require.NoError(t, err)
	for _, o := range deps.Items {
		out = append(out, "Deployment "+o.Namespace+"/"+o.Name)
	}
	sort.Strings(out)
	return out
}

func landscape(name string, components ...string) map[string]string {
	return map[string]string{"main.hcl": fmt.Sprintf(`landscape %q {}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "namespace" {
  cluster = cluster.runtime
  objects = [{ apiVersion = "v1", kind = "Namespace", metadata = { name = %q } }]
}
%s`, name, name, strings.Join(components, "\n"))}
}

func configMaps(component, namespace string, extra string, names ...string) string {
	var objs []string
	for _, n := range names {
		objs = append(objs, fmt.Sprintf(`{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = %q }, data = { owner = %q } }`, n, component))
	}
	return fmt.Sprintf(`
component "manifests" %q {
  cluster   = cluster.runtime
  namespace = %q
  %s
  objects   = [%s]
}
`, component, namespace, extra, strings.Join(objs, ", "))
}

func TestApplyFromEmptyThenNoChangesThenDriftIsRepaired(t *testing.T) {
	cfg := runtimeConfig(t)
	dir := landscapetest.Dir(t, landscape("apply-drift", configMaps("app", "apply-drift", "", "a", "b")))
	pl, res := planAndApply(t, cfg, dir, false, apply.Options{})
	require.NoError(t, res.Err())
	assert.Equal(t, 3, pl.Summary.Add)
	assert.False(t, planOf(t, cfg, dir).HasChanges(), "a plan right after apply has no changes")

	// kubectl patch --type json: a data key the landscape owns is removed out of band.
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	_, err = cs.CoreV1().ConfigMaps("apply-drift").Patch(context.Background(), "a", types.JSONPatchType,
		[]byte(`[{"op":"remove","path":"/data/owner"}]`), metav1.PatchOptions{FieldManager: "kubectl-patch"})
	require.NoError(t, err)
	drift := planOf(t, cfg, dir)
	require.Equal(t, 1, drift.Summary.Change)
	assert.Equal(t, plan.ReasonDrift, drift.Components[1].Objects[0].Reason.Kind)

	_, res = planAndApply(t, cfg, dir, false, apply.Options{})
	require.NoError(t, res.Err())
	assert.False(t, planOf(t, cfg, dir).HasChanges(), "the apply repaired the drift")
	cm, err := cs.CoreV1().ConfigMaps("apply-drift").Get(context.Background(), "a", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "app", cm.Data["owner"])
}

func TestRemovingAComponentPrunesExactlyItsObjects(t *testing.T) {
	cfg := runtimeConfig(t)
	files := landscape("apply-prune", configMaps("keep", "apply-prune", "", "k1"), configMaps("drop", "apply-prune", "", "d1", "d2"))
	dir := landscapetest.Dir(t, files)
	_, res := planAndApply(t, cfg, dir, false, apply.Options{})
	require.NoError(t, res.Err())
	// Something the landscape does not own, in the same namespace, with a similar name.
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	_, err = cs.CoreV1().ConfigMaps("apply-prune").Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "d3"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	landscapetest.Write(t, dir, landscape("apply-prune", configMaps("keep", "apply-prune", "", "k1")))
	pl, res := planAndApply(t, cfg, dir, false, apply.Options{})
	require.NoError(t, res.Err())
	assert.Equal(t, 2, pl.Summary.Destroy)
	assert.Equal(t, []string{"ConfigMap apply-prune/k1", "Namespace apply-prune"}, owned(t, cfg, "apply-prune"))
	_, err = cs.CoreV1().ConfigMaps("apply-prune").Get(context.Background(), "d3", metav1.GetOptions{})
	assert.NoError(t, err, "objects the landscape does not own are never pruned")
}

func TestAFailingComponentBlocksOnlyItsDependents(t *testing.T) {
	cfg := runtimeConfig(t)
	dir := landscapetest.Dir(t, landscape("apply-fail",
		// Upper case is not a valid object name: the API server rejects it.
		configMaps("bad", "apply-fail", "", "Not_Valid"),
		configMaps("dependent", "apply-fail", "depends_on = [component.manifests.bad]", "dep"),
		configMaps("independent", "apply-fail", "", "ind"),
	))
	_, res := planAndApply(t, cfg, dir, false, apply.Options{})
	got := map[string]apply.Status{}
	for _, c := range res.Components {
		got[c.Address] = c.Status
		if c.Address == "component.manifests.dependent" {
			assert.Equal(t, "component.manifests.bad", c.BlockedBy)
		}
	}
	assert.Equal(t, map[string]apply.Status{
		"component.manifests.namespace": apply.Applied, "component.manifests.bad": apply.Failed,
		"component.manifests.dependent": apply.Blocked, "component.manifests.independent": apply.Applied,
	}, got)
	require.Error(t, res.Err())
	assert.Contains(t, res.Err().Error(), "component.manifests.dependent blocked by component.manifests.bad")
	assert.Equal(t, []string{"ConfigMap apply-fail/ind", "Namespace apply-fail"}, owned(t, cfg, "apply-fail"))
}

func TestDestroyKeepsProtectedObjectsUnlessAllowed(t *testing.T) {
	cfg := runtimeConfig(t)
	dir := landscapetest.Dir(t, landscape("apply-destroy",
		configMaps("app", "apply-destroy", "", "a"),
		`
component "manifests" "crd" {
  cluster = cluster.runtime
  files   = ["crd.yaml"]
}
`))
	crd, err := localcluster.SeedCRD("etcds.druid.gardener.cloud")
	require.NoError(t, err)
	landscapetest.Write(t, dir, map[string]string{"crd.yaml": string(crd)})
	_, res := planAndApply(t, cfg, dir, false, apply.Options{})
	require.NoError(t, res.Err())

	pl, res := planAndApply(t, cfg, dir, true, apply.Options{})
	assert.True(t, pl.Destroy)
	require.Error(t, res.Err())
	assert.Contains(t, res.Err().Error(), "refusing to delete or replace protected objects without --allow-destroy component.manifests.crd")
	assert.Empty(t, owned(t, cfg, "apply-destroy"), "everything else is gone")
	assertCRD(t, cfg, true)

	_, res = planAndApply(t, cfg, dir, true, apply.Options{AllowDestroy: []string{"component.manifests.crd"}})
	require.NoError(t, res.Err())
	assertCRD(t, cfg, false)
}

func assertCRD(t *testing.T, cfg *rest.Config, exists bool) {
	t.Helper()
	dc, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	crd, err := dc.Resource(crdGVR).Get(context.Background(), "etcds.druid.gardener.cloud", metav1.GetOptions{})
	if exists {
		require.NoError(t, err)
		return
	}
	// Deleted, or being deleted (the CRD's finalizer removes its objects first).
	if err == nil {
		assert.NotNil(t, crd.GetDeletionTimestamp())
	}
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
