package apply

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
)

// Renaming blocks with moved blocks deletes nothing and creates nothing: the plan moves the
// state's records (ConfigMaps and a generated CA) to the new addresses and only rewrites the
// annotation naming each object's component; the apply keeps every object (same UID) and the
// CA's key material, and the next plan has nothing to do.
func TestMovedBlocksRenameWithoutDeleting(t *testing.T) {
	cfg, cs := ownershipCluster(t)
	ctx := context.Background()
	const ns = "moved-rename"
	deleteNamespaceAtEnd(t, cs, ns)
	dir := landscapetest.Dir(t, ownedLandscape(ns, ns, generatedCA(ns), configMapsOf("config", ns, "a", "b")))
	mustRun(t, cfg, dir, true, nil)
	uids := map[string]string{}
	for _, name := range []string{"a", "b"} {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		uids[name] = string(cm.UID)
	}
	ca := secretOf(t, cs, ns, "ca")

	// The blocks are renamed (the CA keeps its Secret's name), with moved blocks saying so.
	renamed := ownedLandscape(ns, ns, configMapsOf("settings", ns, "a", "b"), fmt.Sprintf(`
component "generated_secret" "root_ca" {
  cluster     = cluster.runtime
  namespace   = %q
  secret_name = "ca"
  class       = "ca"
  common_name = "%s-ca"
  depends_on  = [component.manifests.namespace]
}

moved {
  from = component.manifests.config
  to   = component.manifests.settings
}

moved {
  from = component.generated_secret.ca
  to   = component.generated_secret.root_ca
}
`, ns, ns))
	landscapetest.Write(t, dir, renamed)

	pl := mustRun(t, cfg, dir, false, nil)
	assert.Equal(t, []plan.Move{
		{From: "component.generated_secret.ca", To: "component.generated_secret.root_ca"},
		{From: "component.manifests.config", To: "component.manifests.settings"},
	}, pl.Moved)
	assert.Zero(t, pl.Summary.Destroy, "nothing is deleted")
	assert.Zero(t, pl.Summary.Add, "nothing is created")
	assert.Zero(t, pl.Summary.Replace)
	assert.True(t, pl.HasChanges(), "the moves are changes of the state")
	settings := componentOf(pl, "component.manifests.settings")
	require.NotNil(t, settings)
	assert.Equal(t, "component.manifests.config", settings.MovedFrom)
	require.Len(t, settings.Objects, 2)
	for _, o := range settings.Objects {
		assert.Equal(t, plan.Update, o.Action)
		assert.Equal(t, plan.Reason{Kind: plan.ReasonMoved, Detail: "component.manifests.config"}, o.Reason)
	}
	assert.Nil(t, componentOf(pl, "component.manifests.config"), "the old address is no removed component")
	rootCA := componentOf(pl, "component.generated_secret.root_ca")
	require.NotNil(t, rootCA)
	assert.Equal(t, "component.generated_secret.ca", rootCA.MovedFrom)
	var text bytes.Buffer
	require.NoError(t, views.Plan(&text, pl, views.PlanOptions{}))
	assert.Contains(t, text.String(), "# component.manifests.settings (moved from component.manifests.config)")
	assert.Contains(t, text.String(), "component.manifests.config has moved to component.manifests.settings")
	assert.Contains(t, text.String(), "0 to destroy. 2 component(s) moved.")

	mustRun(t, cfg, dir, true, nil)
	for name, uid := range uids {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err, "ConfigMap %s is kept", name)
		assert.Equal(t, uid, string(cm.UID), "ConfigMap %s is the same object", name)
		assert.Equal(t, "component.manifests.settings", cm.Annotations[inventory.ComponentAnnotation])
	}
	after := secretOf(t, cs, ns, "ca")
	assert.Equal(t, ca.UID, after.UID, "the CA Secret is kept")
	assert.Equal(t, ca.Data["ca.crt"], after.Data["ca.crt"], "the CA's key material is kept")
	assert.Equal(t, ca.Data["ca.key"], after.Data["ca.key"])
	st := storedState(t, dir)
	assert.Equal(t, []string{"component.generated_secret.root_ca", "component.manifests.namespace", "component.manifests.settings"}, st.Addresses())
	assert.Len(t, st.Components["component.manifests.settings"].Objects, 2)

	// The moved blocks stay in the landscape; with nothing left to move they change nothing.
	again := mustRun(t, cfg, dir, false, nil)
	assert.False(t, again.HasChanges(), "%+v", again.Summary)
	assert.Empty(t, again.Moved)
}

// A moved block onto an address the state records already is refused at the moved block: the
// two components' records would become one.
func TestMovedOntoARecordedAddressIsRefused(t *testing.T) {
	cfg, cs := ownershipCluster(t)
	const ns = "moved-onto"
	deleteNamespaceAtEnd(t, cs, ns)
	dir := landscapetest.Dir(t, ownedLandscape(ns, ns, configMapsOf("one", ns, "a"), configMapsOf("two", ns, "b")))
	mustRun(t, cfg, dir, true, nil)
	landscapetest.Write(t, dir, map[string]string{"moved.hcl": `moved {
  from = component.manifests.three
  to   = component.manifests.two
}
`})
	st := storedState(t, dir)
	st.Components["component.manifests.three"] = st.Components["component.manifests.one"]
	delete(st.Components, "component.manifests.one")
	st.Components["component.manifests.three"].Address = "component.manifests.three"
	require.NoError(t, state.NewLocal(filepath.Join(dir, state.DefaultLocalPath)).Write(context.Background(), st))

	o := landscapetest.Options(dir, landscapetest.Connector(cfg, cluster.Options{}))
	res, diags, err := Landscape(context.Background(), LandscapeOptions{Planner: o, Lock: state.LockInfo{Holder: "moved-test"}, Confirm: func(*plan.Plan) bool { return false }})
	require.NoError(t, err)
	require.True(t, diags.HasErrors())
	assert.Equal(t, "Invalid move", diags[0].Summary)
	assert.Equal(t, "The state records component.manifests.two already, so component.manifests.three cannot move there; remove one of them from the state (gardener state rm) or move it elsewhere first.", diags[0].Detail)
	require.NotNil(t, diags[0].Subject)
	assert.Equal(t, 3, diags[0].Subject.Start.Line)
	assert.Nil(t, res.Result, "nothing was applied")
}
