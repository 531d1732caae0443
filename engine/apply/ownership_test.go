package apply

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/secrets"
	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// The tests of this file prove on a real API server that the landscape's name proves no
// ownership: key material and objects are the landscape's only by its lineage (and the engine's
// field manager), and nothing is pruned without a state that records it.

// ownedLandscape is a landscape of the given name whose objects live in namespace ns: the
// namespace and the given components, with the state in a file of the landscape directory.
func ownedLandscape(name, ns string, components ...string) map[string]string {
	return map[string]string{"main.hcl": fmt.Sprintf(`landscape %q {}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "namespace" {
  cluster = cluster.runtime
  objects = [{ apiVersion = "v1", kind = "Namespace", metadata = { name = %q } }]
}
%s`, name, ns, strings.Join(components, "\n"))}
}

// generatedCA is a generated CA Secret named ca in ns.
func generatedCA(ns string) string {
	return fmt.Sprintf(`
component "generated_secret" "ca" {
  cluster     = cluster.runtime
  namespace   = %q
  class       = "ca"
  common_name = "%s-ca"
  depends_on  = [component.manifests.namespace]
}
`, ns, ns)
}

// configMapsOf is a manifests component with ConfigMaps of the given names in ns.
func configMapsOf(component, ns string, names ...string) string {
	var objs []string
	for _, n := range names {
		objs = append(objs, fmt.Sprintf(`{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = %q }, data = { k = "v" } }`, n))
	}
	return fmt.Sprintf(`
component "manifests" %q {
  cluster    = cluster.runtime
  namespace  = %q
  objects    = [%s]
  depends_on = [component.manifests.namespace]
}
`, component, ns, strings.Join(objs, ", "))
}

func ownershipCluster(t *testing.T) (*rest.Config, kubernetes.Interface) {
	t.Helper()
	cfg := localcluster.Shared(t).Plane(localcluster.RuntimePlane).RESTConfig()
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return cfg, cs
}

// deleteNamespaceAtEnd removes what a test left in ns from the shared cluster.
func deleteNamespaceAtEnd(t *testing.T, cs kubernetes.Interface, ns string) {
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
}

// landscapeRun plans dir with its state, as `gardener plan` and `gardener apply` do, and applies
// the plan when apply is set (as --auto-approve); it returns the plan and the error of the run.
func landscapeRun(t *testing.T, cfg *rest.Config, dir string, apply bool, mutate func(*LandscapeOptions)) (*plan.Plan, error) {
	t.Helper()
	o := LandscapeOptions{
		Planner: landscapetest.Options(dir, landscapetest.Connector(cfg, cluster.Options{})),
		Lock:    state.LockInfo{Holder: "ownership-test", Operation: "apply"},
		Apply:   Options{Timeout: 30 * time.Second},
		Confirm: func(*plan.Plan) bool { return apply },
	}
	if mutate != nil {
		mutate(&o)
	}
	res, diags, err := Landscape(context.Background(), o)
	landscapetest.RequireNoDiags(t, diags, res.Outcome)
	if errors.Is(err, ErrCancelled) {
		err = nil
	}
	if err == nil && res.Result != nil {
		err = res.Result.Err()
	}
	if res.Outcome == nil || res.Outcome.Result == nil {
		return nil, err
	}
	return res.Outcome.Result.Plan, err
}

func mustRun(t *testing.T, cfg *rest.Config, dir string, apply bool, mutate func(*LandscapeOptions)) *plan.Plan {
	t.Helper()
	pl, err := landscapeRun(t, cfg, dir, apply, mutate)
	require.NoError(t, err)
	return pl
}

// adopting continues a lineage, and pruning allows deletions without a state.
func adopting(lineage string, prune bool) func(*LandscapeOptions) {
	return func(o *LandscapeOptions) { o.Planner.AdoptLineage, o.Planner.PruneWithoutState = lineage, prune }
}

// storedState is the landscape's state as its file holds it.
func storedState(t *testing.T, dir string) *state.State {
	t.Helper()
	st, err := state.NewLocal(filepath.Join(dir, state.DefaultLocalPath)).Read(context.Background())
	require.NoError(t, err)
	return st
}

// loseState deletes the landscape's state file, as a lost state Secret or file would be.
func loseState(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, os.Remove(filepath.Join(dir, state.DefaultLocalPath)))
}

func secretOf(t *testing.T, cs kubernetes.Interface, ns, name string) *corev1.Secret {
	t.Helper()
	s, err := cs.CoreV1().Secrets(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return s
}

func componentOf(pl *plan.Plan, addr string) *plan.Component {
	for _, c := range pl.Components {
		if c.Address == addr {
			return c
		}
	}
	return nil
}

// Whoever can create Secrets in the landscape's namespace before its first apply does not choose
// its CA: a Secret with the right class label and config hash (which anyone who knows the landscape
// can compute) is not used, and the plan says so in text and JSON. The engine's own Secret is
// reused from then on; key material changed in place is drift and is not used either.
func TestPlantedKeyMaterialIsNotUsed(t *testing.T) {
	cfg, cs := ownershipCluster(t)
	ctx := context.Background()
	const ns = "own-planted"
	deleteNamespaceAtEnd(t, cs, ns)
	dir := landscapetest.Dir(t, ownedLandscape(ns, ns, generatedCA(ns)))

	// The attacker's CA, as the landscape would request it: same class label, same config hash.
	req := secrets.Request{Name: "ca", Namespace: ns, Class: secrets.ClassCA, CommonName: ns + "-ca"}
	// Issued an hour ago: had it been issued in the second the forced apply below writes its own,
	// the two issued-at and valid-until annotations would be equal, planter would keep a shared
	// ownership of them, and the drift repair at the end would conflict with it (a flake seen).
	attackers, err := secrets.Generate(req, nil, secrets.Provenance{}, time.Now().Add(-time.Hour), false, nil)
	require.NoError(t, err)
	var planted corev1.Secret
	raw, err := json.Marshal(attackers.Secret.Object)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &planted))
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{FieldManager: "planter"})
	require.NoError(t, err)
	_, err = cs.CoreV1().Secrets(ns).Create(ctx, &planted, metav1.CreateOptions{FieldManager: "planter"})
	require.NoError(t, err)
	require.NotEmpty(t, planted.Annotations[secrets.ConfigHashAnnotation], "the planted Secret carries the config hash")

	// The plan does not use it, and says so.
	pl := mustRun(t, cfg, dir, false, nil)
	warning := "Secret own-planted/ca in cluster runtime holds key material this landscape did not generate (its data was written by planter, not by gardener's server-side apply); it is not used: new material is generated"
	assert.Contains(t, pl.Warnings, warning)
	ca := componentOf(pl, "component.generated_secret.ca")
	require.NotNil(t, ca)
	assert.Equal(t, "regenerated: foreign key material was found and not used: its data was written by planter, not by gardener's server-side apply", ca.Note.Text)
	var text, js bytes.Buffer
	require.NoError(t, views.Plan(&text, pl, views.PlanOptions{}))
	require.NoError(t, views.PlanJSON(&js, pl))
	assert.Contains(t, text.String(), warning)
	assert.Contains(t, js.String(), warning)

	// The planted data is owned by its writer: the apply takes it over only when told to
	// (--force-conflicts), after a reviewer read the warning. Until then nothing uses it.
	_, err = landscapeRun(t, cfg, dir, true, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `conflicts with "planter"`)
	mustRun(t, cfg, dir, true, func(o *LandscapeOptions) { o.Apply.ForceConflicts = true })
	live := secretOf(t, cs, ns, "ca")
	assert.NotEqual(t, planted.Data["ca.crt"], live.Data["ca.crt"], "the planted CA is not used")
	assert.NotEqual(t, planted.Data["ca.key"], live.Data["ca.key"])
	lineage := storedState(t, dir).Lineage
	require.NotEmpty(t, lineage)
	assert.Equal(t, lineage, live.Labels[inventory.LineageLabel])

	// The engine's own Secret is reused by every later plan.
	for range 2 {
		again := mustRun(t, cfg, dir, false, nil)
		assert.False(t, again.HasChanges(), "the engine's own CA is reused: %+v", again.Summary)
		assert.Empty(t, again.Warnings)
	}

	// Key material changed in place (kubectl edit) is not used either: it is drift, and the plan
	// shows the Secret changing to new material of the engine's, taking the fields back from
	// their editor; a plain apply writes it (the edited material is never used, and the engine's
	// earlier material is gone, so taking back means regenerating, which the note says).
	before := secretOf(t, cs, ns, "ca").Data
	other, err := secrets.Generate(req, nil, secrets.Provenance{}, time.Now(), false, nil)
	require.NoError(t, err)
	patch, err := json.Marshal(map[string]any{"data": other.Secret.Object["data"]})
	require.NoError(t, err)
	_, err = cs.CoreV1().Secrets(ns).Patch(ctx, "ca", types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-edit"})
	require.NoError(t, err)
	drifted := mustRun(t, cfg, dir, false, nil)
	ca = componentOf(drifted, "component.generated_secret.ca")
	require.NotNil(t, ca)
	require.Len(t, ca.Objects, 1)
	assert.Equal(t, plan.Update, ca.Objects[0].Action)
	assert.Equal(t, plan.Reason{Kind: plan.ReasonDrift}, ca.Objects[0].Reason)
	assert.Equal(t, []string{"kubectl-edit"}, ca.Objects[0].DriftManagers())
	assert.Empty(t, ca.Objects[0].Conflicts)
	assert.Contains(t, ca.Note.Text, "its data was written by kubectl-edit")
	assert.Contains(t, drifted.Warnings, "Secret own-planted/ca in cluster runtime holds key material this landscape did not generate (its data was written by kubectl-edit, not by gardener's server-side apply); it is not used: new material is generated")
	text.Reset()
	require.NoError(t, views.Plan(&text, drifted, views.PlanOptions{}))
	assert.Contains(t, text.String(), "Secret own-planted/ca (runtime) will be updated: drift by kubectl-edit, taken back [drift]")
	assert.NotContains(t, text.String(), string(other.Secret.Object["data"].(map[string]any)["ca.key"].(string)))

	mustRun(t, cfg, dir, true, nil)
	live = secretOf(t, cs, ns, "ca")
	assert.NotEqual(t, other.Secret.Object["data"].(map[string]any)["ca.crt"], base64.StdEncoding.EncodeToString(live.Data["ca.crt"]), "the edited CA is not used")
	assert.NotEqual(t, before["ca.crt"], live.Data["ca.crt"], "new material of the engine's")
	assert.False(t, mustRun(t, cfg, dir, false, nil).HasChanges(), "the new material is the engine's own")
}

// A lost state does not rotate every CA: the plan refuses the objects of the lineage it no longer
// knows, and once the operator continues that lineage the CA is reused and the state records
// everything again.
func TestALostStateRotatesNoCA(t *testing.T) {
	cfg, cs := ownershipCluster(t)
	const ns = "own-lost"
	deleteNamespaceAtEnd(t, cs, ns)
	dir := landscapetest.Dir(t, ownedLandscape(ns, ns, generatedCA(ns), configMapsOf("config", ns, "a")))
	mustRun(t, cfg, dir, true, nil)
	lineage := storedState(t, dir).Lineage
	before := secretOf(t, cs, ns, "ca").Data["ca.crt"]

	loseState(t, dir)
	_, err := landscapeRun(t, cfg, dir, true, nil)
	require.Error(t, err, "a plan from an empty state refuses the lost state's objects")
	assert.Contains(t, err.Error(), "carries the label declarative-gardener.io/landscape=own-lost but lineage "+lineage+", and this landscape has no state yet")
	assert.Contains(t, err.Error(), "continue its lineage with --adopt-lineage "+lineage)
	assert.Equal(t, before, secretOf(t, cs, ns, "ca").Data["ca.crt"], "nothing was applied")

	pl := mustRun(t, cfg, dir, false, adopting(lineage, false))
	assert.Equal(t, plan.Summary{}, pl.Summary, "with its lineage continued nothing changes: the CA is reused")
	assert.True(t, pl.HasChanges(), "but the empty state is to record it")
	assert.Contains(t, pl.Notices, "the landscape's state is empty: applying this plan continues lineage "+lineage+" and records the objects of it the landscape renders")
	mustRun(t, cfg, dir, true, adopting(lineage, false))

	st := storedState(t, dir)
	assert.Equal(t, lineage, st.Lineage, "the state continues the lineage")
	assert.Contains(t, st.Addresses(), "component.generated_secret.ca")
	assert.Contains(t, st.Addresses(), "component.manifests.config")
	assert.Equal(t, before, secretOf(t, cs, ns, "ca").Data["ca.crt"], "the CA was not rotated")
	assert.False(t, mustRun(t, cfg, dir, false, nil).HasChanges(), "plans need no flag any more")
}

// With an empty or lost state nothing is deleted unless --prune-without-state says so, and then
// only objects of the landscape's lineage.
func TestAnEmptyStatePrunesNothing(t *testing.T) {
	cfg, cs := ownershipCluster(t)
	ctx := context.Background()
	const ns = "own-prune"
	deleteNamespaceAtEnd(t, cs, ns)
	dir := landscapetest.Dir(t, ownedLandscape(ns, ns, configMapsOf("keep", ns, "kept"), configMapsOf("drop", ns, "dropped")))
	mustRun(t, cfg, dir, true, nil)
	lineage := storedState(t, dir).Lineage

	loseState(t, dir)
	landscapetest.Write(t, dir, ownedLandscape(ns, ns, configMapsOf("keep", ns, "kept")))
	pl := mustRun(t, cfg, dir, true, adopting(lineage, false))
	assert.Zero(t, pl.Summary.Destroy)
	assert.Contains(t, pl.Warnings, "the landscape's state records nothing, so nothing is deleted: 1 object(s) in cluster runtime carry the label declarative-gardener.io/landscape=own-prune and would be deleted; plan with --prune-without-state to delete those of this landscape's lineage")
	_, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "dropped", metav1.GetOptions{})
	require.NoError(t, err, "an apply from an empty state deleted nothing")

	// The state now records what the landscape renders, not the dropped ConfigMap: a plan with
	// the state leaves it alone too. With the flag and an empty state it goes.
	assert.Zero(t, mustRun(t, cfg, dir, false, nil).Summary.Destroy)
	loseState(t, dir)
	pl = mustRun(t, cfg, dir, true, adopting(lineage, true))
	assert.Equal(t, 1, pl.Summary.Destroy)
	_, err = cs.CoreV1().ConfigMaps(ns).Get(ctx, "dropped", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "deleted with --prune-without-state: %v", err)
	_, err = cs.CoreV1().ConfigMaps(ns).Get(ctx, "kept", metav1.GetOptions{})
	assert.NoError(t, err)
}

// Two landscapes of the same name on one cluster, each with its own state, never delete each
// other's objects, not even on a first apply with --prune-without-state, nor when destroyed; one
// that renders the other's object refuses to take it over.
func TestLandscapesOfTheSameNameDeleteNothingOfEachOther(t *testing.T) {
	cfg, cs := ownershipCluster(t)
	ctx := context.Background()
	const name = "own-twin"
	for _, ns := range []string{"own-twin-a", "own-twin-b"} {
		deleteNamespaceAtEnd(t, cs, ns)
	}
	first := landscapetest.Dir(t, ownedLandscape(name, "own-twin-a", configMapsOf("config", "own-twin-a", "a"), generatedCA("own-twin-a")))
	second := landscapetest.Dir(t, ownedLandscape(name, "own-twin-b", configMapsOf("config", "own-twin-b", "b")))
	mustRun(t, cfg, first, true, nil)
	firstLineage := storedState(t, first).Lineage
	firstCA := secretOf(t, cs, "own-twin-a", "ca").Data["ca.crt"]
	firstObjects := func() []string {
		var out []string
		nss, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: inventory.LineageLabel + "=" + firstLineage})
		require.NoError(t, err)
		for _, o := range nss.Items {
			if o.DeletionTimestamp == nil {
				out = append(out, "Namespace "+o.Name)
			}
		}
		cms, err := cs.CoreV1().ConfigMaps("own-twin-a").List(ctx, metav1.ListOptions{LabelSelector: inventory.LineageLabel + "=" + firstLineage})
		require.NoError(t, err)
		for _, o := range cms.Items {
			out = append(out, "ConfigMap "+o.Name)
		}
		return out
	}
	want := []string{"Namespace own-twin-a", "ConfigMap a"}
	require.Equal(t, want, firstObjects())

	// The second landscape's first apply, with --prune-without-state: nothing of the first goes.
	pl := mustRun(t, cfg, second, true, func(o *LandscapeOptions) { o.Planner.PruneWithoutState = true })
	assert.Zero(t, pl.Summary.Destroy)
	// The first's namespace and ConfigMap: the second lists no Secrets, rendering none.
	assert.Contains(t, pl.Warnings, "2 object(s) in cluster runtime carry the label declarative-gardener.io/landscape=own-twin with lineage "+firstLineage+
		", not this landscape, which has no state yet: another landscape of the same name owns them, or this landscape's state was lost (then continue its lineage with --adopt-lineage "+firstLineage+"); they are left alone")
	secondLineage := storedState(t, second).Lineage
	require.NotEqual(t, firstLineage, secondLineage)
	assert.Equal(t, want, firstObjects())

	// Each plans with its state: nothing of the other is deleted, nothing changes.
	for _, dir := range []string{first, second} {
		pl := mustRun(t, cfg, dir, false, nil)
		assert.False(t, pl.HasChanges(), "%s: %+v", dir, pl.Summary)
	}

	// A third landscape of the name that renders the first's namespace refuses to take it over.
	third := landscapetest.Dir(t, ownedLandscape(name, "own-twin-a"))
	_, err := landscapeRun(t, cfg, third, true, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Namespace own-twin-a in cluster runtime carries the label declarative-gardener.io/landscape=own-twin but lineage "+firstLineage)

	// Destroying the second deletes its objects only.
	pl = mustRun(t, cfg, second, true, func(o *LandscapeOptions) { o.Planner.Destroy = true })
	assert.Equal(t, 2, pl.Summary.Destroy, "its namespace and ConfigMap: %+v", pl.Summary)
	assert.Equal(t, want, firstObjects())
	assert.Equal(t, firstCA, secretOf(t, cs, "own-twin-a", "ca").Data["ca.crt"])
	assert.False(t, mustRun(t, cfg, first, false, nil).HasChanges())
}
