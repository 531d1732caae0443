package garden

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// extensionLandscape is a seed's Seed and the provider-local extension on a virtual garden whose
// gardener-controller-manager decides the installations: the Seed is a manifest (the seed block
// needs a whole garden), the seed cluster is the runtime plane.
const extensionLandscape = `
landscape "installations" {
  state {
    backend = "local"
  }
}

cluster "runtime" {
  context = "runtime"
}

cluster "virtual_garden" {
  context = "virtual-garden"
}

component "manifests" "seed" {
  cluster = cluster.virtual_garden
  objects = [{
    apiVersion = "core.gardener.cloud/v1beta1"
    kind       = "Seed"
    metadata   = { name = "local", labels = { base = "kind" } }
    spec = {
      provider = { type = "local", region = "local" }
      networks = { pods = "10.1.0.0/16", services = "10.2.0.0/16", nodes = "10.3.0.0/16" }
      ingress  = { domain = "ingress.local.seed.local.gardener.cloud", controller = { kind = "nginx" } }
      dns      = { provider = { type = "local", secretRef = { name = "internal-domain", namespace = "garden" } } }
    }
  }]
}

component "namespace" "seed_garden" {
  cluster = cluster.runtime
  name    = "garden"
}

component "extension" "provider_local" {
  virtual_cluster         = cluster.virtual_garden
  name                    = "provider-local"
  chart                   = "./charts/provider-local"
  garden_cluster_identity = "local"
  policy                  = "Always"

  resource "Infrastructure" "local" {}
  resource "ControlPlane" "local" {}
  resource "Worker" "local" {}
  resource "OperatingSystemConfig" "local" {}
  resource "DNSRecord" "local" {}

  # The Seed is a manifest above, which exists only once applied: its networks are given here
  # too, so that the installation's namespace gets its NetworkPolicies in the apply that creates
  # the Seed (without them they follow the Seed, one apply later).
  seeds = [{
    name     = "local"
    cluster  = cluster.runtime
    provider = "local"
    region   = "local"
    spec     = { networks = { pods = "10.1.0.0/16", services = "10.2.0.0/16", nodes = "10.3.0.0/16" } }
  }]
}
`

// gcmSeedOverlay keeps gardener-controller-manager from turning the Seed's GardenletReady Unknown
// while the test's Lease stands for gardenlet's heartbeat.
const gcmSeedOverlay = `
controllers:
  seed: {monitorPeriod: 1h}
`

var managedResourcesGVR = schema.GroupVersionResource{Group: "resources.gardener.cloud", Version: "v1alpha1", Resource: "managedresources"}

// The real gardener-controller-manager of Gardener v1.120.0 decides the ControllerInstallations:
// the first plan predicts the installation it creates for the Seed and renders the extension's
// deployment on the seed during apply; one apply registers the extension, creates the Seed, waits
// for gardener-controller-manager's installation (with its generated name) and deploys the
// extension for it as gardenlet does; the engine writes no ControllerInstallation; the second plan
// has nothing to do and nothing to predict.
func TestExtensionInstalledForGardenerControllerManagersInstallation(t *testing.T) {
	runtime, vg, dir := extensionGarden(t, extensionLandscape, "provider-local")
	ctx := context.Background()

	const part = "component.extension.provider_local.installation_local"
	pl := planAt(t, dir, time.Now())
	installation := componentOf(t, pl, part)
	assert.Equal(t, plan.Read, installation.Action)
	assert.Equal(t, "rendered during apply, once it exists: the ControllerInstallation of provider-local for seed local, which gardener-controller-manager creates", installation.Note.Text)
	assert.Contains(t, installation.DependsOn, "component.manifests.seed", "it follows the Seed")
	assert.Equal(t, []string{"create: installs extension provider-local on seed local (generateName provider-local-): policy Always installs it on every selected seed"},
		installationPredictions(pl))

	ready := applyInOrder(t, dir)
	assert.Less(t, indexOf(ready, "component.manifests.seed"), indexOf(ready, part), "applied after the Seed: %v", ready)

	// gardener-controller-manager's installation, with its generated name; the engine wrote none.
	ci := installationFor(t, dyn(t, vg), "provider-local", "local")
	name := ci.GetName()
	assert.True(t, strings.HasPrefix(name, "provider-local-") && name != "provider-local-local", "a generated name: %s", name)
	assert.NotContains(t, ci.GetLabels(), inventory.LandscapeLabel)
	for _, m := range ci.GetManagedFields() {
		assert.NotEqual(t, inventory.FieldManager, m.Manager, "the engine writes no ControllerInstallation")
	}

	// gardenlet's part, named after it: the namespace extension-<installation> and the
	// ManagedResource garden/<installation> of class seed.
	ns, err := kubernetes.NewForConfigOrDie(runtime.RESTConfig()).CoreV1().Namespaces().Get(ctx, "extension-"+name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "extension", ns.Labels["gardener.cloud/role"])
	assert.Equal(t, "provider-local", ns.Labels["controllerregistration.core.gardener.cloud/name"])
	assert.Equal(t, "installations", ns.Labels[inventory.LandscapeLabel])
	mr, err := dyn(t, runtime).Resource(managedResourcesGVR).Namespace("garden").Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, name, mr.GetLabels()["controllerinstallation-name"])
	class, _, _ := unstructured.NestedString(mr.Object, "spec", "class")
	assert.Equal(t, "seed", class)
	assert.Equal(t, part, mr.GetAnnotations()[inventory.ComponentAnnotation])

	// Nothing flip-flops: the next plans change nothing and predict nothing about installations.
	for range 2 {
		pl = planAt(t, dir, time.Now())
		assert.False(t, pl.HasChanges(), "%s", planText(t, pl))
		assert.Empty(t, installationPredictions(pl), "%s", planText(t, pl))
		assert.Equal(t, plan.NoOp, componentOf(t, pl, part).Action)
	}
	assert.Equal(t, name, installationFor(t, dyn(t, vg), "provider-local", "local").GetName(), "the same installation")
}

// An extension an earlier version of gardener installed itself: its ControllerInstallation
// provider-local-local, the namespace extension-provider-local-local and the ManagedResource
// garden/provider-local-local on the seed, labelled as the landscape's and recorded in its state.
// The current version hands the installation over to the real gardener-controller-manager, which
// adopts it (no second installation, nothing deleted), and goes on deploying the extension for it
// under the same names.
func TestInstallationOfAnEarlierVersionHandedOver(t *testing.T) {
	runtime, vg, dir := extensionGarden(t, extensionLandscape, "provider-local")
	ctx := context.Background()

	_, err := kubernetes.NewForConfigOrDie(runtime.RESTConfig()).CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "garden"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	const earlier = "component.extension.provider_local"
	recorded := &state.Component{Address: earlier, Type: "extension"}
	applyEarlier := func(cluster string, p *localcluster.Plane, gvr schema.GroupVersionResource, u *unstructured.Unstructured) {
		require.NoError(t, inventory.Stamp(u, "installations", earlier, nil))
		applied, err := dyn(t, p).Resource(gvr).Namespace(u.GetNamespace()).Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: inventory.FieldManager, Force: true})
		require.NoError(t, err, "%s %s", u.GetKind(), u.GetName())
		recorded.Objects = append(recorded.Objects, state.Object{Cluster: cluster, Group: gvr.Group, Version: gvr.Version, Kind: u.GetKind(),
			Namespace: u.GetNamespace(), Name: u.GetName(), UID: string(applied.GetUID())})
	}
	applyEarlier("virtual_garden", vg, installationsGVR, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "ControllerInstallation", "metadata": map[string]any{"name": "provider-local-local"},
		"spec": map[string]any{"registrationRef": map[string]any{"name": "provider-local"}, "deploymentRef": map[string]any{"name": "provider-local"},
			"seedRef": map[string]any{"name": "local"}},
	}})
	applyEarlier("runtime", runtime, schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "extension-provider-local-local",
			"labels": map[string]any{"gardener.cloud/role": "extension", "controllerregistration.core.gardener.cloud/name": "provider-local"}},
	}})
	applyEarlier("runtime", runtime, managedResourcesGVR, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "resources.gardener.cloud/v1alpha1", "kind": "ManagedResource",
		"metadata": map[string]any{"name": "provider-local-local", "namespace": "garden", "labels": map[string]any{"controllerinstallation-name": "provider-local-local"}},
		"spec":     map[string]any{"class": "seed", "secretRefs": []any{map[string]any{"name": "managedresource-provider-local-local"}}},
	}})
	backend := state.NewLocal(filepath.Join(dir, "gardener.state"))
	st, err := backend.Read(ctx)
	require.NoError(t, err)
	st.Components[earlier] = recorded
	require.NoError(t, backend.Write(ctx, st))

	// The installation is handed over, not deleted; the extension's part renders for it at once.
	pl := planAt(t, dir, time.Now())
	released := map[string]string{}
	for _, comp := range pl.Components {
		for _, o := range comp.Objects {
			assert.NotEqual(t, plan.Delete, o.Action, "%s %s: nothing of the earlier version is deleted\n%s", o.Ref.Kind, o.Ref.Name, planText(t, pl))
			if o.Reason.Kind == plan.ReasonReleased {
				released[o.Ref.Kind+" "+o.Ref.Name] = o.Reason.Detail
			}
		}
	}
	assert.Equal(t, map[string]string{"ControllerInstallation provider-local-local": "gardener-controller-manager"}, released, "%s", planText(t, pl))
	assert.NotEqual(t, plan.Read, componentOf(t, pl, "component.extension.provider_local.installation_local").Action, "the installation exists")
	assert.Empty(t, installationPredictions(pl), "gardener-controller-manager keeps the installation it adopts")

	applyInOrder(t, dir)
	ci := installationFor(t, dyn(t, vg), "provider-local", "local")
	assert.Equal(t, "provider-local-local", ci.GetName(), "adopted, not replaced")
	assert.NotContains(t, ci.GetLabels(), inventory.LandscapeLabel)
	assert.NotContains(t, ci.GetAnnotations(), inventory.ComponentAnnotation)
	mr, err := dyn(t, runtime).Resource(managedResourcesGVR).Namespace("garden").Get(ctx, "provider-local-local", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "component.extension.provider_local.installation_local", mr.GetAnnotations()[inventory.ComponentAnnotation], "the part renders it now")
	ns, err := kubernetes.NewForConfigOrDie(runtime.RESTConfig()).CoreV1().Namespaces().Get(ctx, "extension-provider-local-local", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "component.extension.provider_local.installation_local", ns.Annotations[inventory.ComponentAnnotation])
	st, err = backend.Read(ctx)
	require.NoError(t, err)
	for _, o := range st.Components[earlier].Objects {
		assert.NotEqual(t, "ControllerInstallation", o.Kind, "the state forgets the installation")
	}

	pl = planAt(t, dir, time.Now())
	assert.False(t, pl.HasChanges(), "%s", planText(t, pl))
	assert.Empty(t, installationPredictions(pl), "%s", planText(t, pl))
}

// onDemandLandscape adds to extensionLandscape networking-calico, installed on demand, and what a
// Shoot on the seed needs to be admitted: a project, a cloud profile, credentials, the garden's
// domains, and the Shoot itself (a manifest: the shoot block renders a whole control plane).
const onDemandLandscape = extensionLandscape + `
component "extension" "networking_calico" {
  virtual_cluster         = cluster.virtual_garden
  name                    = "networking-calico"
  chart                   = "./charts/networking-calico"
  garden_cluster_identity = "local"

  resource "Network" "calico" {}

  seeds = [{
    name        = "local"
    cluster     = cluster.runtime
    provider    = "local"
    region      = "local"
    has_shoots  = true
    shoot_types = ["Network/calico"]
  }]
}

component "manifests" "garden" {
  cluster = cluster.virtual_garden
  objects = [
    { apiVersion = "v1", kind = "Namespace", metadata = { name = "garden" } },
    {
      apiVersion = "v1", kind = "Secret", type = "Opaque"
      metadata = {
        name = "default-domain", namespace = "garden", labels = { "gardener.cloud/role" = "default-domain" }
        annotations = { "dns.gardener.cloud/provider" = "local", "dns.gardener.cloud/domain" = "local.gardener.cloud" }
      }
    },
    {
      apiVersion = "v1", kind = "Secret", type = "Opaque"
      metadata = {
        name = "internal-domain", namespace = "garden", labels = { "gardener.cloud/role" = "internal-domain" }
        annotations = { "dns.gardener.cloud/provider" = "local", "dns.gardener.cloud/domain" = "internal.local.gardener.cloud" }
      }
    },
  ]
}

component "manifests" "project" {
  cluster = cluster.virtual_garden
  objects = [
    { apiVersion = "v1", kind = "Namespace", metadata = { name = "garden-dev", labels = { "gardener.cloud/role" = "project", "project.gardener.cloud/name" = "dev" } } },
    {
      apiVersion = "core.gardener.cloud/v1beta1", kind = "Project", metadata = { name = "dev" }
      spec = { namespace = "garden-dev", owner = { apiGroup = "rbac.authorization.k8s.io", kind = "User", name = "admin@local.gardener.cloud" } }
    },
    { apiVersion = "v1", kind = "Secret", type = "Opaque", metadata = { name = "credentials", namespace = "garden-dev" } },
  ]
}

component "cloud_profile" "local" {
  cluster = cluster.virtual_garden
  type    = "local"

  kubernetes_version "1.31.1" {
    classification = "supported"
  }

  machine_image "local" {
    version "1.0.0" {
      classification = "supported"
    }
  }

  machine_type "local" {
    cpu    = "2"
    memory = "4Gi"
  }

  region "local" {
    zones = ["0"]
  }
}

component "credentials_binding" "dev" {
  cluster       = cluster.virtual_garden
  name          = "dev"
  namespace     = "garden-dev"
  provider_type = "local"

  credentials_ref {
    name      = "credentials"
    namespace = "garden-dev"
  }

  depends_on = [component.manifests.project]
}

component "manifests" "shoot" {
  cluster    = cluster.virtual_garden
  depends_on = [component.manifests.garden, component.cloud_profile.local, component.credentials_binding.dev, component.manifests.seed]
  objects = [{
    apiVersion = "core.gardener.cloud/v1beta1", kind = "Shoot"
    metadata   = { name = "dev", namespace = "garden-dev" }
    spec = {
      cloudProfile           = { kind = "CloudProfile", name = "local" }
      region                 = "local"
      seedName               = "local"
      credentialsBindingName = "dev"
      kubernetes             = { version = "1.31.1" }
      networking             = { type = "calico", pods = "10.10.0.0/16", services = "10.11.0.0/16", nodes = "10.12.0.0/16" }
      provider = {
        type    = "local"
        workers = [{ name = "local", minimum = 1, maximum = 1, machine = { type = "local", image = { name = "local", version = "1.0.0" } } }]
      }
    }
  }]
}
`

// An extension installed on demand, with the real gardener-controller-manager: it creates
// networking-calico's installation only once a Shoot on the seed needs Calico, and the engine's
// part for it follows that Shoot. One apply registers both extensions, creates the Seed and the
// Shoot, and deploys each extension for the installation gardener-controller-manager made; no part
// waits for an installation that comes after it.
func TestOnDemandExtensionInstalledOnceAShootNeedsIt(t *testing.T) {
	runtime, vg, dir := extensionGarden(t, onDemandLandscape, "provider-local", "networking-calico")
	ctx := context.Background()

	const calico = "component.extension.networking_calico.installation_local"
	pl := planAt(t, dir, time.Now())
	assert.Equal(t, plan.Read, componentOf(t, pl, calico).Action)
	assert.Subset(t, componentOf(t, pl, calico).DependsOn, []string{"component.manifests.seed", "component.manifests.shoot"},
		"gardener-controller-manager installs Calico once the Shoot that needs it exists")
	assert.Contains(t, installationPredictions(pl), "create: installs extension networking-calico on seed local (generateName networking-calico-): "+
		"policy OnDemand and Network/calico is required by the shoots the landscape declares on the seed")

	ready := applyInOrder(t, dir)
	assert.Less(t, indexOf(ready, "component.manifests.shoot"), indexOf(ready, calico), "applied after the Shoot: %v", ready)
	ci := installationFor(t, dyn(t, vg), "networking-calico", "local")
	_, err := dyn(t, runtime).Resource(managedResourcesGVR).Namespace("garden").Get(ctx, ci.GetName(), metav1.GetOptions{})
	require.NoError(t, err, "Calico is deployed for gardener-controller-manager's installation %s", ci.GetName())

	pl = planAt(t, dir, time.Now())
	assert.Empty(t, installationPredictions(pl), "%s", planText(t, pl))
	assert.Equal(t, plan.NoOp, componentOf(t, pl, calico).Action, "%s", planText(t, pl))
}

// extensionGarden starts a runtime cluster and a virtual garden of the test's own, with the real
// gardener-controller-manager, makes the runtime cluster the local seed's (seedCluster), and
// writes the landscape with the named charts of landscapes/local into a new directory.
func extensionGarden(t *testing.T, landscape string, charts ...string) (runtime, vg *localcluster.Plane, dir string) {
	t.Helper()
	c := localcluster.Start(t,
		localcluster.PlaneOptions{Name: localcluster.RuntimePlane, Workloads: true},
		localcluster.PlaneOptions{Name: localcluster.VirtualGardenPlane, GardenerAPI: true,
			GardenerControllers: &localcluster.GardenerControllers{ControllerManagerOverlay: gcmSeedOverlay}},
	)
	t.Setenv("KUBECONFIG", c.Kubeconfig())
	seedCluster(t, c)
	dir = t.TempDir()
	for _, chart := range charts {
		require.NoError(t, os.CopyFS(filepath.Join(dir, "charts", chart), os.DirFS(filepath.Join("../../landscapes/local/charts", chart))))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(landscape), 0o644))
	return c.Plane(localcluster.RuntimePlane), c.Plane(localcluster.VirtualGardenPlane), dir
}

// seedCluster prepares the runtime plane as a seed cluster for the extensions' ManagedResources
// (their CRD, served with its OpenAPI schema, which plans diff with) and stands in for gardenlet
// on the virtual garden: the seed's heartbeat Lease and the status gardenlet reports for Seeds and
// Shoots (playGardenlet).
func seedCluster(t *testing.T, c *localcluster.Cluster) {
	t.Helper()
	ctx := context.Background()
	runtime, vg := c.Plane(localcluster.RuntimePlane), c.Plane(localcluster.VirtualGardenPlane)
	mrCRD, err := localcluster.SeedCRD("managedresources.resources.gardener.cloud")
	require.NoError(t, err)
	require.NoError(t, localcluster.ApplyCRDs(ctx, runtime.RESTConfig(), [][]byte{mrCRD}))
	dc := discovery.NewDiscoveryClientForConfigOrDie(runtime.RESTConfig())
	require.Eventually(t, func() bool {
		paths, err := dc.OpenAPIV3().Paths()
		_, served := paths["apis/resources.gardener.cloud/v1alpha1"]
		return err == nil && served
	}, time.Minute, 200*time.Millisecond, "the runtime plane serves the ManagedResource's OpenAPI schema")
	seedHeartbeat(t, vg, "local")
	playGardenlet(t, vg)
}

// playGardenlet reports, until the test ends, every Seed and Shoot of the virtual garden
// reconciled as gardenlet does once per generation (a last operation that Succeeded, the observed
// generation, the Seed's GardenletReady and SeedSystemComponentsHealthy): the Seed and Shoot of
// these landscapes are manifests, which the engine does not report on, and kwok reports on no
// Gardener object.
func playGardenlet(t *testing.T, vg *localcluster.Plane) {
	t.Helper()
	vdyn := dyn(t, vg)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { stop(); <-done })
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			for _, gvr := range []schema.GroupVersionResource{seedsGVR, shootsGVR} {
				list, err := vdyn.Resource(gvr).List(ctx, metav1.ListOptions{})
				if err != nil {
					continue
				}
				for i := range list.Items {
					reportReconciled(ctx, vdyn.Resource(gvr).Namespace(list.Items[i].GetNamespace()), &list.Items[i])
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
}

// reportReconciled writes the status of a reconciled generation, once per generation.
func reportReconciled(ctx context.Context, ri dynamic.ResourceInterface, obj *unstructured.Unstructured) {
	observed, _, _ := unstructured.NestedInt64(obj.Object, "status", "observedGeneration")
	if observed == obj.GetGeneration() {
		return
	}
	now := time.Now().UTC().Format(time.RFC3339)
	operation := "Reconcile"
	if obj.GetKind() == "Shoot" && observed == 0 {
		operation = "Create"
	}
	status := map[string]any{
		"observedGeneration": obj.GetGeneration(),
		"lastOperation":      map[string]any{"type": operation, "state": "Succeeded", "progress": int64(100), "lastUpdateTime": now, "description": "reconciled"},
	}
	if obj.GetKind() == "Seed" {
		condition := func(typ string) map[string]any {
			return map[string]any{"type": typ, "status": "True", "reason": "Played", "message": "played by the test", "lastTransitionTime": now, "lastUpdateTime": now}
		}
		status["conditions"] = []any{condition("GardenletReady"), condition("SeedSystemComponentsHealthy")}
	}
	patch, _ := json.Marshal(map[string]any{"status": status})
	_, _ = ri.Patch(ctx, obj.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}, "status")
}

// seedHeartbeat stands in for gardenlet's heartbeat of a seed: the Lease gardener-controller-
// manager's seed lifecycle controller reads (gardener-system-seed-lease/<seed>), renewed now.
func seedHeartbeat(t *testing.T, vg *localcluster.Plane, seed string) {
	t.Helper()
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(vg.RESTConfig())
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gardener-system-seed-lease"}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) { // the local virtual garden has it, as gardener-operator's does
		require.NoError(t, err)
	}
	now := metav1.NewMicroTime(time.Now())
	_, err = cs.CoordinationV1().Leases("gardener-system-seed-lease").Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: seed},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To(seed), LeaseDurationSeconds: ptr.To[int32](40), AcquireTime: &now, RenewTime: &now},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// componentOf is a plan's component at address.
func componentOf(t *testing.T, pl *plan.Plan, address string) *plan.Component {
	t.Helper()
	for _, c := range pl.Components {
		if c.Address == address {
			return c
		}
	}
	require.FailNow(t, "no component "+address, "%s", planText(t, pl))
	return nil
}

// installationPredictions are a plan's predictions about ControllerInstallations, as "action:
// description" lines.
func installationPredictions(pl *plan.Plan) []string {
	var out []string
	for _, p := range pl.Predictions {
		if p.Ref.Kind == "ControllerInstallation" {
			out = append(out, p.Action+": "+p.Description)
		}
	}
	return out
}

// installationFor is the one ControllerInstallation of the registration on the seed.
func installationFor(t *testing.T, vdyn dynamic.Interface, registration, seed string) *unstructured.Unstructured {
	t.Helper()
	list, err := vdyn.Resource(installationsGVR).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	var found []*unstructured.Unstructured
	for i := range list.Items {
		ci := &list.Items[i]
		reg, _, _ := unstructured.NestedString(ci.Object, "spec", "registrationRef", "name")
		s, _, _ := unstructured.NestedString(ci.Object, "spec", "seedRef", "name")
		if reg == registration && s == seed {
			found = append(found, ci)
		}
	}
	require.Len(t, found, 1, "one ControllerInstallation of %s on %s", registration, seed)
	return found[0]
}

// applyInOrder applies dir like `gardener apply` and returns the components in the order they
// were applied.
func applyInOrder(t *testing.T, dir string) []string {
	t.Helper()
	var mu sync.Mutex
	var ready []string
	res, diags, err := apply.Landscape(context.Background(), apply.LandscapeOptions{
		Planner: plannerAt(dir, time.Now()),
		Lock:    state.LockInfo{Holder: "garden-test", Operation: "apply"},
		Apply: apply.Options{Timeout: 2 * time.Minute, Events: func(e apply.Event) {
			if e.Status == "applied" {
				mu.Lock()
				ready = append(ready, e.Address)
				mu.Unlock()
			}
		}},
	})
	landscapetest.RequireNoDiags(t, diags, res.Outcome)
	require.NoError(t, err)
	require.NotNil(t, res.Result)
	require.NoError(t, res.Result.Err())
	return ready
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
