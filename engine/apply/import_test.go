package apply

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/secrets"
	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
)

// An import block adopts a CA Secret the landscape did not generate (which issue 28's rules
// would otherwise regenerate): the plan says so (reason import, the component's note, the
// summary), apply keeps its key material without --force-conflicts, gives it the landscape's
// lineage and the engine's field ownership of its data, and from then on it is the landscape's
// own, with the import block or without it.
func TestImportAdoptsAPlantedCA(t *testing.T) {
	cfg, cs := ownershipCluster(t)
	ctx := context.Background()
	const ns = "import-ca"
	deleteNamespaceAtEnd(t, cs, ns)
	id := "runtime/Secret/" + ns + "/ca"
	importBlock := fmt.Sprintf(`
import {
  to = component.generated_secret.ca
  id = %q
}
`, id)
	files := ownedLandscape(ns, ns, generatedCA(ns))
	files["import.hcl"] = importBlock
	dir := landscapetest.Dir(t, files)

	// A CA made elsewhere, without the class label and config hash a generated one carries.
	other, err := secrets.Generate(secrets.Request{Name: "ca", Namespace: ns, Class: secrets.ClassCA, CommonName: "made-elsewhere"}, nil, secrets.Provenance{}, time.Now(), false, nil)
	require.NoError(t, err)
	var planted corev1.Secret
	raw, err := json.Marshal(other.Secret.Object)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &planted))
	planted.Labels, planted.Annotations = nil, nil
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{FieldManager: "planter"})
	require.NoError(t, err)
	created, err := cs.CoreV1().Secrets(ns).Create(ctx, &planted, metav1.CreateOptions{FieldManager: "planter"})
	require.NoError(t, err)

	pl := mustRun(t, cfg, dir, false, nil)
	assert.Empty(t, pl.Warnings, "the imported material is not foreign")
	ca := componentOf(pl, "component.generated_secret.ca")
	require.NotNil(t, ca)
	assert.Equal(t, "imported: the key material of the existing Secret is adopted (import block)", ca.Note.Text)
	require.Len(t, ca.Objects, 1)
	assert.Equal(t, plan.Update, ca.Objects[0].Action)
	assert.Equal(t, plan.Reason{Kind: plan.ReasonImport, Detail: id}, ca.Objects[0].Reason)
	assert.Empty(t, ca.Objects[0].Conflicts, "the import takes the fields over")
	for _, c := range ca.Objects[0].Changes {
		assert.NotContains(t, []string{".data[ca.crt]", ".data[ca.key]"}, c.Path, "the key material stays")
	}
	assert.Equal(t, 1, pl.Summary.Imported)
	var text bytes.Buffer
	require.NoError(t, views.Plan(&text, pl, views.PlanOptions{}))
	assert.Contains(t, text.String(), "Secret import-ca/ca (runtime) will be imported into the landscape (import "+id+")")
	assert.Contains(t, text.String(), "1 of the changes import existing objects.")

	mustRun(t, cfg, dir, true, nil) // no --force-conflicts
	live := secretOf(t, cs, ns, "ca")
	assert.Equal(t, planted.Data["ca.crt"], live.Data["ca.crt"], "the imported CA's key material is kept")
	assert.Equal(t, planted.Data["ca.key"], live.Data["ca.key"])
	assert.Equal(t, created.UID, live.UID, "the same Secret")
	st := storedState(t, dir)
	assert.Equal(t, st.Lineage, live.Labels[inventory.LineageLabel], "the Secret carries the landscape's lineage")
	assert.Equal(t, string(secrets.ClassCA), live.Labels[secrets.ClassLabel])
	assert.NotEmpty(t, live.Annotations[secrets.ConfigHashAnnotation])
	owners := sets.New[string]()
	for _, m := range live.ManagedFields {
		if m.FieldsV1 != nil && bytes.Contains(m.FieldsV1.Raw, []byte(`"f:ca.key"`)) {
			owners.Insert(m.Manager)
		}
	}
	assert.True(t, owners.Has(inventory.FieldManager), "the engine's field manager owns the key material: %v", owners.UnsortedList())

	// The Secret is the landscape's own now: nothing changes, with the import block or without.
	again := mustRun(t, cfg, dir, false, nil)
	assert.False(t, again.HasChanges(), "%+v", again.Summary)
	assert.Empty(t, again.Warnings)
	require.NoError(t, os.Remove(filepath.Join(dir, "import.hcl")))
	without := mustRun(t, cfg, dir, false, nil)
	assert.False(t, without.HasChanges(), "%+v", without.Summary)
	assert.Empty(t, without.Warnings)
	assert.Equal(t, planted.Data["ca.key"], secretOf(t, cs, ns, "ca").Data["ca.key"])
}

// An import block that names an object its instance does not render, or one that does not
// exist, is an error at the block.
func TestImportOfNothingIsRefused(t *testing.T) {
	cfg, cs := ownershipCluster(t)
	const ns = "import-nothing"
	deleteNamespaceAtEnd(t, cs, ns)
	for _, tc := range []struct{ id, summary, detail string }{
		{"runtime/Secret/" + ns + "/other", "Nothing to import into", "component.generated_secret.ca renders no Secret " + ns + "/other in cluster runtime, so it cannot import it; check the import block's id and to."},
		{"runtime/Secret/" + ns + "/ca", "Cannot import a missing object", "Secret " + ns + "/ca does not exist in cluster runtime, so there is nothing to import; remove the import block to create it."},
	} {
		files := ownedLandscape(ns, ns, generatedCA(ns))
		files["import.hcl"] = fmt.Sprintf("import {\n  to = component.generated_secret.ca\n  id = %q\n}\n", tc.id)
		dir := landscapetest.Dir(t, files)
		o := landscapetest.Options(dir, landscapetest.Connector(cfg, cluster.Options{}))
		res, diags, err := Landscape(context.Background(), LandscapeOptions{Planner: o, Lock: state.LockInfo{Holder: "import-test"}, Confirm: func(*plan.Plan) bool { return false }})
		require.NoError(t, err)
		require.True(t, diags.HasErrors(), tc.id)
		assert.Equal(t, tc.summary, diags[0].Summary)
		assert.Equal(t, tc.detail, diags[0].Detail)
		require.NotNil(t, diags[0].Subject)
		assert.Equal(t, 3, diags[0].Subject.Start.Line)
		assert.Nil(t, res.Result)
	}
}

// An object of another lineage of the landscape fails the plan, unless an import block names it:
// then the plan imports it and apply gives it the landscape's lineage.
func TestImportTakesOverAnotherLineage(t *testing.T) {
	cfg, cs := ownershipCluster(t)
	ctx := context.Background()
	const ns = "import-lineage"
	deleteNamespaceAtEnd(t, cs, ns)
	dir := landscapetest.Dir(t, ownedLandscape(ns, ns, configMapsOf("config", ns, "a")))
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	require.NoError(t, err)
	const foreign = "0f0f0f0f-other-lineage"
	_, err = cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: ns, Labels: map[string]string{inventory.LandscapeLabel: ns, inventory.LineageLabel: foreign}},
		Data:       map[string]string{"k": "other"},
	}, metav1.CreateOptions{FieldManager: "other-landscape"})
	require.NoError(t, err)

	_, err = landscapeRun(t, cfg, dir, false, nil)
	require.Error(t, err, "without an import the plan refuses the object")
	assert.Contains(t, err.Error(), "but lineage "+foreign)

	id := "runtime/ConfigMap/" + ns + "/a"
	landscapetest.Write(t, dir, map[string]string{"import.hcl": fmt.Sprintf("import {\n  to = component.manifests.config\n  id = %q\n}\n", id)})
	pl := mustRun(t, cfg, dir, false, nil)
	config := componentOf(pl, "component.manifests.config")
	require.NotNil(t, config)
	require.Len(t, config.Objects, 1)
	assert.Equal(t, plan.Reason{Kind: plan.ReasonImport, Detail: id}, config.Objects[0].Reason)
	assert.Empty(t, config.Objects[0].Conflicts)

	mustRun(t, cfg, dir, true, nil) // the field k is taken from other-landscape without --force-conflicts
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "a", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, storedState(t, dir).Lineage, cm.Labels[inventory.LineageLabel])
	assert.Equal(t, "v", cm.Data["k"])
	assert.False(t, mustRun(t, cfg, dir, false, nil).HasChanges())
}
