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
// deploys the extension for the installation the controller made and reports the installation's
// conditions as gardenlet; once the shoot is gone the installation stays as long as it reports
// Required (local2 shares local's cluster, whose extension resources it sees), and once it no
// longer does the controller deletes it and the apply removes the extension from local2 after it.
func extensionFollowsShoots(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	vg := c.Plane(localcluster.VirtualGardenPlane)
	vdyn := dyn(t, vg)
	rdyn := dyn(t, c.Plane(localcluster.RuntimePlane))
	shoots := vdyn.Resource(shootsGVR).Namespace("garden-local")
	installations := vdyn.Resource(installationsGVR)

	editLandscape(t, dir, "extensions.hcl", `policy                  = "Always"`, `policy                  = "OnDemand"`)
	editLandscape(t, dir, "extensions.hcl", "    has_shoots = true\n  }]", "    has_shoots = true\n    }, {\n    name     = \"local2\"\n    cluster  = cluster.runtime\n    provider = \"other\"\n    region   = \"other\"\n  }]")
	// The registration's policy changes; local keeps the extension for its own provider type, and
	// local2 needs none of its kinds.
	pl := planAt(t, dir, time.Now())
	assert.Empty(t, installationPredictions(pl), "%s", planText(t, pl))
	applyAllowing(t, dir)
	onLocal := installationFor(t, vdyn, "provider-local", "local").GetName()
	// local2 is a Seed registered by hand, as for a seed whose gardenlet runs elsewhere, of a
	// provider nothing of the landscape serves: gardener-apiserver admits a Seed only with a
	// registration for its provider and DNS provider types (plugin/pkg/global/extensionvalidation
	// at Gardener v1.120.0), and gardener-controller-manager installs that registration there, and
	// not provider-local, now that it is OnDemand. Its gardenlet would deploy provider-other;
	// nothing does here.
	registerOtherSeed(t, vdyn, "local2")
	require.Eventually(t, func() bool { return len(installationsOfOn(t, installations, "provider-other", "local2")) == 1 }, time.Minute, 100*time.Millisecond,
		"gardener-controller-manager installs provider-other on local2")
	assert.Empty(t, installationsOfOn(t, installations, "provider-local", "local2"), "local2 needs none of provider-local's kinds")
	assertNoChanges(t, dir)

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
	applyAllowing(t, dir)
	assertNoChanges(t, dir)

	// A control plane migration from local2 to local: scheduled to local, its control plane
	// still on local2 until it has moved. (The other way round would need the binding
	// subresource and backups on local, which gardener-apiserver requires before a shoot may
	// leave a seed, pkg/apiserver/registry/core/shoot/strategy.go.) gardener-controller-manager
	// looks at local2 again only when something of local2's changes, which a Shoot's
	// status.seedName is not (ShootPredicate in
	// pkg/controllermanager/controller/controllerregistration/seed/add.go), or when it starts: it
	// is stopped while the plan shows what it will do, and started again.
	require.NoError(t, vg.StopGardenerControllers())
	_, err = shoots.Patch(ctx, "user", types.MergePatchType, []byte(`{"status":{"seedName":"local2"}}`), metav1.PatchOptions{}, "status")
	require.NoError(t, err)
	planGolden(t, dir, "plan-extension-follows-shoot.txt")
	require.NoError(t, vg.StartGardenerControllers(ctx))
	require.Eventually(t, func() bool { return len(installationsOfOn(t, installations, "provider-local", "local2")) == 1 }, time.Minute, 100*time.Millisecond,
		"gardener-controller-manager installs provider-local on local2 for the user's shoot")
	// The apply deploys the extension for gardener-controller-manager's installation on local2.
	applyAllowing(t, dir)
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
	// reports Required False as its gardenlet would, and gardener-controller-manager deletes the
	// installation at once (policy OnDemand and none of the registration's kinds and types is
	// required on the seed; the plan's prediction of it is components/extension's unit tests').
	notRequired(t, installations, onLocal2)
	require.Eventually(t, func() bool { return len(installationsOfOn(t, installations, "provider-local", "local2")) == 0 }, time.Minute, 100*time.Millisecond,
		"gardener-controller-manager deletes the installation on local2")
	applyAllowing(t, dir)
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

// installationsOfOn are the names of the ControllerInstallations of a registration on a seed.
func installationsOfOn(t *testing.T, installations dynamic.ResourceInterface, registration, seed string) []string {
	t.Helper()
	list, err := installations.List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	var out []string
	for _, ci := range list.Items {
		r, _, _ := unstructured.NestedString(ci.Object, "spec", "registrationRef", "name")
		s, _, _ := unstructured.NestedString(ci.Object, "spec", "seedRef", "name")
		if r == registration && s == seed {
			out = append(out, ci.GetName())
		}
	}
	return out
}

// registerOtherSeed registers a Seed of the provider type "other" in the virtual garden, with the
// ControllerRegistration provider-other (without a deployment) for the kinds such a Seed needs
// registered: its provider's ControlPlane, Infrastructure and Worker, and its DNS provider's
// DNSRecord (pkg/utils/gardener/seed.go at Gardener v1.120.0). Nothing reports the Seed's status.
// It returns once gardener-controller-manager copied the landscape's DNS Secrets into the seed's
// namespace, labels and all; plans leave those copies alone without a warning, as copies of
// objects the landscape renders in another namespace.
func registerOtherSeed(t *testing.T, vdyn dynamic.Interface, name string) {
	t.Helper()
	ctx := context.Background()
	var resources []any
	for _, kind := range []string{"ControlPlane", "Infrastructure", "Worker", "DNSRecord"} {
		resources = append(resources, map[string]any{"kind": kind, "type": "other"})
	}
	_, err := vdyn.Resource(schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "controllerregistrations"}).Create(ctx,
		&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "core.gardener.cloud/v1beta1", "kind": "ControllerRegistration",
			"metadata": map[string]any{"name": "provider-other"},
			"spec":     map[string]any{"resources": resources},
		}}, metav1.CreateOptions{})
	require.NoError(t, err)
	// gardener-apiserver's ExtensionValidator judges the Seed by its informer's copy of the
	// registrations, which may not hold the one just created yet (a refusal seen on a loaded
	// machine): the Seed is created once the plugin knows the registration.
	seed := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Seed",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"provider": map[string]any{"type": "other", "region": "other"},
			"networks": map[string]any{"pods": "10.21.0.0/16", "services": "10.22.0.0/16", "nodes": "10.23.0.0/16"},
			"ingress":  map[string]any{"domain": "ingress." + name + ".seed.local.gardener.cloud", "controller": map[string]any{"kind": "nginx"}},
			"dns":      map[string]any{"provider": map[string]any{"type": "other", "secretRef": map[string]any{"name": "internal-domain-local", "namespace": "garden"}}},
		},
	}}
	require.Eventually(t, func() bool {
		_, err = vdyn.Resource(seedsGVR).Create(ctx, seed, metav1.CreateOptions{})
		return err == nil || !apierrors.IsForbidden(err)
	}, 30*time.Second, 200*time.Millisecond, "gardener-apiserver admits the Seed once it knows provider-other")
	require.NoError(t, err)
	secrets := vdyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}).Namespace("seed-" + name)
	require.Eventually(t, func() bool {
		for _, copied := range []string{"internal-domain-local", "default-domain-local"} {
			if _, err := secrets.Get(ctx, copied, metav1.GetOptions{}); err != nil {
				return false
			}
		}
		return true
	}, time.Minute, 100*time.Millisecond, "gardener-controller-manager copies the garden's DNS Secrets into seed-%s", name)
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
