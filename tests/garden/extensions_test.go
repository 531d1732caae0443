package garden

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

var installationsGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "controllerinstallations"}

// extensionFollowsShoots makes provider-local an OnDemand extension and gives it a second seed,
// local2, that needs none of its kinds, then has a shoot a user created through the Gardener
// API (not declared in the landscape, its control plane deployed by the engine as local's
// gardenlet) move between local2 and local: the plan predicts that
// gardener-controller-manager installs the extension on local2 and says which shoot needs it
// (Gardener's "Gardener Controller Manager" docs/concepts/controller-manager.md), the apply
// deploys the extension for the installation the controller made (played here from the
// prediction, as the shared control plane runs no gardener-controller-manager yet) and reports
// the installation's conditions as gardenlet; once the shoot is gone the installation stays as
// long as it reports Required (local2 shares local's cluster, whose extension resources it sees),
// and once it no longer does the plan predicts its deletion and the apply removes the extension
// from local2 after it.
func extensionFollowsShoots(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	vdyn := dyn(t, c.Plane(localcluster.VirtualGardenPlane))
	rdyn := dyn(t, c.Plane(localcluster.RuntimePlane))
	shoots := vdyn.Resource(shootsGVR).Namespace("garden-local")
	installations := vdyn.Resource(installationsGVR)
	// applyEnacting plans, plays what gardener-controller-manager will do about the installations
	// and applies.
	applyEnacting := func() {
		enactInstallations(t, c, planAt(t, dir, time.Now()))
		applyAllowing(t, dir)
	}

	editLandscape(t, dir, "extensions.hcl", `policy                  = "Always"`, `policy                  = "OnDemand"`)
	editLandscape(t, dir, "extensions.hcl", "    has_shoots = true\n  }]", "    has_shoots = true\n    }, {\n    name     = \"local2\"\n    cluster  = cluster.runtime\n    provider = \"other\"\n    region   = \"other\"\n  }]")
	// The registration's policy changes; local keeps the extension for its own provider type, and
	// local2 needs none of its kinds.
	pl := planAt(t, dir, time.Now())
	assert.Empty(t, installationPredictions(pl), "%s", planText(t, pl))
	applyEnacting()
	onLocal := installationFor(t, vdyn, "provider-local", "local").GetName()
	assert.Empty(t, installationsOn(t, installations, "local2"), "local2 needs none of the kinds")

	dev, err := shoots.Get(ctx, "dev", metav1.GetOptions{})
	require.NoError(t, err)
	spec, _, _ := unstructured.NestedMap(dev.Object, "spec")
	// gardener-apiserver writes cloudProfileName beside the cloudProfile reference, and refuses a
	// new Shoot that names both (plugin/pkg/shoot/validator/admission.go at Gardener v1.120.0).
	delete(spec, "cloudProfileName")
	// Its default domain must be <shoot>.<project>.<default domain> (plugin/pkg/shoot/dns); the
	// ShootDNS admission plugin fills it in.
	delete(spec, "dns")
	user := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
		"metadata": map[string]any{"name": "user", "namespace": "garden-local"},
		"spec":     spec,
	}}
	_, err = shoots.Create(ctx, user, metav1.CreateOptions{})
	require.NoError(t, err)
	defer func() { _ = shoots.Delete(ctx, "user", metav1.DeleteOptions{}) }()
	_, err = shoots.Patch(ctx, "user", types.MergePatchType, []byte(`{"status":{"seedName":"local"}}`), metav1.PatchOptions{}, "status")
	require.NoError(t, err)
	// The engine is local's gardenlet: it deploys the user's control plane on local, as parts of
	// the seed, and needs no installation that local does not have already.
	pl = planAt(t, dir, time.Now())
	assert.Contains(t, changedAddresses(pl), "seed.local.shoot__local__user__kube_apiserver")
	assert.Empty(t, installationPredictions(pl), "%s", planText(t, pl))
	applyEnacting()
	assertNoChanges(t, dir)

	// A control plane migration from local2 to local: scheduled to local, its control plane
	// still on local2 until it has moved. (The other way round would need the binding
	// subresource and backups on local, which gardener-apiserver requires before a shoot may
	// leave a seed, pkg/apiserver/registry/core/shoot/strategy.go.)
	_, err = shoots.Patch(ctx, "user", types.MergePatchType, []byte(`{"status":{"seedName":"local2"}}`), metav1.PatchOptions{}, "status")
	require.NoError(t, err)
	planGolden(t, dir, "plan-extension-follows-shoot.txt")
	applyEnacting()
	onLocal2 := installationFor(t, vdyn, "provider-local", "local2").GetName()
	assert.True(t, strings.HasPrefix(onLocal2, "provider-local-"), "a generated name: %s", onLocal2)
	_, err = rdyn.Resource(managedResourcesGVR).Namespace("garden").Get(ctx, onLocal2, metav1.GetOptions{})
	require.NoError(t, err, "the apply deployed the extension for the installation on local2")
	assertNoChanges(t, dir)

	// The seed's ExtensionsReady, derived from its ControllerInstallations (Gardener's
	// docs/concepts/controller-manager.md): an installation that reports itself unhealthy turns it
	// False, naming it.
	conditions := func() []string {
		return landscapetest.Plan(t, landscapetest.Options(dir, planner.LiveConnector(cluster.Options{NoDiskCache: true}))).Conditions()
	}
	assert.Contains(t, conditions(), "seed.local: ExtensionsReady True (AllExtensionsReady): All 2 extensions installed into the seed are ready and healthy.")
	healthy := func(status string) {
		live, err := installations.Get(ctx, onLocal, metav1.GetOptions{})
		require.NoError(t, err)
		conds, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
		for _, c := range conds {
			if m := c.(map[string]any); m["type"] == "Healthy" {
				m["status"], m["message"] = status, "the controller's pods crash"
			}
		}
		require.NoError(t, unstructured.SetNestedSlice(live.Object, conds, "status", "conditions"))
		_, err = installations.UpdateStatus(ctx, live, metav1.UpdateOptions{})
		require.NoError(t, err)
	}
	healthy("False")
	assert.Contains(t, conditions(), "seed.local: ExtensionsReady False (NotAllExtensionsReady): Extensions are not ready: "+onLocal+": Healthy is False (the controller's pods crash)")
	healthy("True")

	// The shoot goes: nothing on local2 needs the extension any more. gardener-apiserver deletes
	// a Shoot only with the deletion confirmation (plugin/pkg/global/deletionconfirmation).
	_, err = shoots.Patch(ctx, "user", types.MergePatchType, []byte(`{"metadata":{"annotations":{"confirmation.gardener.cloud/deletion":"true"}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	require.NoError(t, shoots.Delete(ctx, "user", metav1.DeleteOptions{}))
	// local's gardenlet, the engine, deletes its control plane and then lets the Shoot go.
	applyAllowing(t, dir)
	require.Eventually(t, func() bool {
		_, err := shoots.Get(ctx, "user", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, time.Minute, time.Second, "the Shoot is gone once the engine ended its deletion")
	// The engine, local2's gardenlet, reported its installation Required: local2 shares the
	// runtime cluster with local, whose shoots' extension resources of type local gardenlet sees
	// there as well (it watches the whole seed cluster), and gardener-controller-manager keeps an
	// installation that reports Required. The plan says so by predicting nothing.
	required := func() string {
		live, err := installations.Get(ctx, onLocal2, metav1.GetOptions{})
		require.NoError(t, err)
		conds, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
		for _, c := range conds {
			if m := c.(map[string]any); m["type"] == "Required" {
				return m["status"].(string) + " " + m["reason"].(string)
			}
		}
		return ""
	}
	assert.Equal(t, "True ExtensionObjectsExist", required())
	out := planAt(t, dir, time.Now())
	assert.False(t, out.HasChanges(), "%s", planText(t, out))
	assert.Empty(t, installationPredictions(out), "the installation reports Required: %s", planText(t, out))
	// A seed with a cluster of its own would see none of local's extension resources: the test
	// reports Required False as its gardenlet would, and gardener-controller-manager's rule
	// deletes the installation. (The engine reports Required True again when this plan, which
	// has no changes, brings the reports up to date; the played gardener-controller-manager
	// acts on the plan's prediction.)
	notRequired(t, installations, onLocal2)
	out = planAt(t, dir, time.Now())
	assert.False(t, out.HasChanges(), "the installation is gardener-controller-manager's to delete: %s", planText(t, out))
	assert.Equal(t, []string{"delete: removes extension provider-local from seed local2: policy OnDemand and none of the registration's kinds and types is required on the seed"},
		installationPredictions(out))
	enactInstallations(t, c, out)
	applyAllowing(t, dir)
	assert.Empty(t, installationsOn(t, installations, "local2"), "gardener-controller-manager (played) deleted the installation on local2")
	_, err = rdyn.Resource(managedResourcesGVR).Namespace("garden").Get(ctx, onLocal2, metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the apply removed the extension from local2 after it: %v", err)
	assertNoChanges(t, dir)
}

// notRequired reports the installation's Required condition False, as gardenlet reports it for
// a seed whose cluster holds no extension resources of the registration's kinds and types.
func notRequired(t *testing.T, installations dynamic.ResourceInterface, name string) {
	t.Helper()
	live, err := installations.Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	conds, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
	for _, c := range conds {
		if m := c.(map[string]any); m["type"] == "Required" {
			m["status"], m["reason"] = "False", "NoExtensionObjects"
			m["message"] = "no extension objects exist in the seed having the kind/type combinations the controller is responsible for"
		}
	}
	require.NoError(t, unstructured.SetNestedSlice(live.Object, conds, "status", "conditions"))
	_, err = installations.UpdateStatus(context.Background(), live, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// installationsOn are the names of the ControllerInstallations of a seed.
func installationsOn(t *testing.T, installations dynamic.ResourceInterface, seed string) []string {
	t.Helper()
	list, err := installations.List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	var out []string
	for _, ci := range list.Items {
		if s, _, _ := unstructured.NestedString(ci.Object, "spec", "seedRef", "name"); s == seed {
			out = append(out, ci.GetName())
		}
	}
	return out
}

// changedAddresses are the addresses of the components pl changes.
func changedAddresses(pl *plan.Plan) []string {
	var out []string
	for _, c := range pl.Components {
		if c.Action != plan.NoOp {
			out = append(out, c.Address)
		}
	}
	return out
}
