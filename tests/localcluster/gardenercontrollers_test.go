package localcluster

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

var (
	projectsGVR                = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "projects"}
	seedsGVR                   = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "seeds"}
	shootsGVR                  = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}
	cloudProfilesGVR           = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "cloudprofiles"}
	controllerRegistrationsGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "controllerregistrations"}
	controllerInstallationsGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "controllerinstallations"}
)

// gardenerControllersOverlays are the test's overlays: a project quota, to see an overlay reach
// gardener-controller-manager, and a seed monitor period longer than the test, which renews its
// seed's Lease only once.
var gardenerControllersOverlays = GardenerControllers{
	ControllerManagerOverlay: `
controllers:
  project:
    quotas:
    - config: {spec: {hard: {count/secrets: "100"}}}
  seed: {monitorPeriod: 10m}
`,
	SchedulerOverlay: `schedulers: {shoot: {concurrentSyncs: 2}}`,
}

// TestGardenerControllers runs the real gardener-controller-manager and gardener-scheduler on a
// virtual garden of its own, with overlays of its own (Topology runs them too, configured for the
// shared planes), and shows them doing Gardener's work: a Project made Ready with its
// namespace and quota, a Shoot left unscheduled while no seed qualifies and bound once one does.
func TestGardenerControllers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts control planes")
	}
	t.Parallel()
	ctx := context.Background()
	began := time.Now()
	c, err := Launch(ctx, Options{Planes: []PlaneOptions{{
		Name: VirtualGardenPlane, GardenerAPI: true, GardenerControllers: &gardenerControllersOverlays,
	}}, Log: testLog{t}})
	require.NoError(t, err)
	t.Logf("virtual garden with gardener-controller-manager and gardener-scheduler ready in %s", time.Since(began).Round(100*time.Millisecond))
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = c.Stop()
		}
	})
	vg := c.Plane(VirtualGardenPlane)
	cs, dyn := clientset(t, vg), dynamicClient(t, vg)

	t.Run("gardener-controller-manager makes a Project Ready with its namespace and quota", func(t *testing.T) {
		projects := dyn.Resource(projectsGVR)
		_, err := projects.Create(ctx, object("core.gardener.cloud/v1beta1", "Project", "gcm", map[string]any{"namespace": "garden-gcm"}), metav1.CreateOptions{})
		require.NoError(t, err)
		waitFor(t, "project gcm Ready", func(ctx context.Context) (bool, error) {
			p, err := projects.Get(ctx, "gcm", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			phase, _, _ := unstructured.NestedString(p.Object, "status", "phase")
			observed, _, _ := unstructured.NestedInt64(p.Object, "status", "observedGeneration")
			return phase == "Ready" && observed == p.GetGeneration(), nil
		})
		project, err := projects.Get(ctx, "gcm", metav1.GetOptions{})
		require.NoError(t, err)
		// kwok has no stage for Projects: the phase is gardener-controller-manager's.
		assert.Equal(t, []string{"gardener-controller-manager"}, statusManagers(project))
		assert.Contains(t, project.GetFinalizers(), "gardener")

		namespace, err := cs.CoreV1().Namespaces().Get(ctx, "garden-gcm", metav1.GetOptions{})
		require.NoError(t, err, "gardener-controller-manager creates the project's namespace")
		assert.Equal(t, "gcm", namespace.Labels["project.gardener.cloud/name"])
		assert.Equal(t, "project", namespace.Labels["gardener.cloud/role"])
		assertControlledBy(t, namespace.OwnerReferences, "Project", "gcm")

		quota, err := cs.CoreV1().ResourceQuotas("garden-gcm").Get(ctx, "gardener", metav1.GetOptions{})
		require.NoError(t, err, "the overlay's project quota reached gardener-controller-manager")
		secrets := quota.Spec.Hard[corev1.ResourceName("count/secrets")]
		assert.Equal(t, "100", secrets.String())
		_, err = cs.RbacV1().ClusterRoles().Get(ctx, "gardener.cloud:system:project-member:gcm", metav1.GetOptions{})
		assert.NoError(t, err, "the project's RBAC")
	})

	t.Run("gardener-scheduler binds a Shoot once a seed qualifies and leaves one no seed serves", func(t *testing.T) {
		createAll(t, dyn, []resourceObject{
			{cloudProfilesGVR, object("core.gardener.cloud/v1beta1", "CloudProfile", "local", localCloudProfileSpec)},
			{controllerRegistrationsGVR, object("core.gardener.cloud/v1beta1", "ControllerRegistration", "provider-local", providerLocalRegistrationSpec)},
		})
		shoots := dyn.Resource(shootsGVR).Namespace("garden-gcm")
		_, err := shoots.Create(ctx, workerlessShoot("waiting", "local"), metav1.CreateOptions{})
		require.NoError(t, err)
		waitForShootEvent(t, cs, "waiting", "SchedulingFailed", "none of the 0 seeds is valid for scheduling")
		assertUnscheduled(t, shoots, "waiting")

		// What gardenlet would do: renew the seed's Lease (the heartbeat gardener-controller-manager's
		// seed lifecycle controller watches, pkg/controllermanager/controller/seed/lifecycle) and
		// report the seed reconciled and ready (what the scheduler requires,
		// pkg/scheduler/controller/shoot/reconciler.go). Nothing else on the plane reports seeds.
		renewSeedLease(t, cs, "local")
		seeds := dyn.Resource(seedsGVR)
		_, err = seeds.Create(ctx, object("core.gardener.cloud/v1beta1", "Seed", "local", localSeedSpec), metav1.CreateOptions{})
		require.NoError(t, err)
		reportSeedReady(t, seeds, "local")

		waitFor(t, "shoot waiting bound to seed local", func(ctx context.Context) (bool, error) {
			shoot, err := shoots.Get(ctx, "waiting", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			seedName, _, _ := unstructured.NestedString(shoot.Object, "spec", "seedName")
			return seedName == "local", nil
		})
		waitForShootEvent(t, cs, "waiting", "SchedulingSuccessful", "Scheduled to seed 'local'")
		shoot, err := shoots.Get(ctx, "waiting", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Contains(t, managers(shoot, "binding"), "gardener-scheduler", "bound through the binding subresource")

		// SameRegion: no seed serves region far.
		_, err = shoots.Create(ctx, workerlessShoot("far", "far"), metav1.CreateOptions{})
		require.NoError(t, err)
		waitForShootEvent(t, cs, "far", "SchedulingFailed", "no matching seed candidate found for Configuration (Cloud Profile 'local', Region 'far', SeedDeterminationStrategy 'SameRegion')")
		assertUnscheduled(t, shoots, "far")
		// Its status is the scheduler's report; no gardenlet reconciles it.
		waitFor(t, "the scheduler's report in shoot far's status", func(ctx context.Context) (bool, error) {
			shoot, err := shoots.Get(ctx, "far", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			state, _, _ := unstructured.NestedString(shoot.Object, "status", "lastOperation", "state")
			return state == "Pending", nil
		})
		far, err := shoots.Get(ctx, "far", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, []string{"gardener-scheduler"}, statusManagers(far))
		_, hasConditions, _ := unstructured.NestedSlice(far.Object, "status", "conditions")
		assert.False(t, hasConditions, "no health conditions for a shoot no gardenlet reconciles")
	})

	t.Run("gardener-controller-manager sets the seed up as it does in a garden", func(t *testing.T) {
		waitFor(t, "namespace seed-local", func(ctx context.Context) (bool, error) {
			_, err := cs.CoreV1().Namespaces().Get(ctx, "seed-local", metav1.GetOptions{})
			return err == nil, nil
		})
		namespace, err := cs.CoreV1().Namespaces().Get(ctx, "seed-local", metav1.GetOptions{})
		require.NoError(t, err)
		assertControlledBy(t, namespace.OwnerReferences, "Seed", "local")
		var installation *unstructured.Unstructured
		waitFor(t, "a ControllerInstallation of provider-local on seed local", func(ctx context.Context) (bool, error) {
			list, err := dyn.Resource(controllerInstallationsGVR).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			for _, item := range list.Items {
				registration, _, _ := unstructured.NestedString(item.Object, "spec", "registrationRef", "name")
				seed, _, _ := unstructured.NestedString(item.Object, "spec", "seedRef", "name")
				if registration == "provider-local" && seed == "local" {
					installation = &item
					return true, nil
				}
			}
			return false, nil
		})
		assert.True(t, strings.HasPrefix(installation.GetName(), "provider-local-"), "a generated name: %s", installation.GetName())
		// The test plays gardenlet and reports the installation healthy (the engine reports it
		// where it deploys the extension); gardener-controller-manager derives
		// the seed's ExtensionsReady from it.
		reportInstallationHealthy(t, dyn.Resource(controllerInstallationsGVR), installation.GetName())
		waitFor(t, "seed local ExtensionsReady from gardener-controller-manager", func(ctx context.Context) (bool, error) {
			seed, err := dyn.Resource(seedsGVR).Get(ctx, "local", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			conditions, _, _ := unstructured.NestedSlice(seed.Object, "status", "conditions")
			for _, c := range conditions {
				m, _ := c.(map[string]any)
				if m["type"] == "ExtensionsReady" {
					return m["status"] == "True" && m["message"] == "All extensions installed into the seed cluster are ready and healthy.", nil
				}
			}
			return false, nil
		})
	})

	t.Run("stopped controllers leave a Project alone and catch up once started again", func(t *testing.T) {
		before := len(c.PIDs())
		require.NoError(t, vg.StopGardenerControllers())
		require.NoError(t, vg.StopGardenerControllers(), "a second stop is a no-op")
		assert.Len(t, c.PIDs(), before-2)
		projects := dyn.Resource(projectsGVR)
		_, err := projects.Create(ctx, object("core.gardener.cloud/v1beta1", "Project", "later", map[string]any{"namespace": "garden-later"}), metav1.CreateOptions{})
		require.NoError(t, err)
		time.Sleep(2 * time.Second)
		project, err := projects.Get(ctx, "later", metav1.GetOptions{})
		require.NoError(t, err)
		assert.NotContains(t, project.GetFinalizers(), "gardener", "nobody reconciled it")

		require.NoError(t, vg.StartGardenerControllers(ctx))
		assert.Len(t, c.PIDs(), before)
		waitFor(t, "project later Ready", func(ctx context.Context) (bool, error) {
			p, err := projects.Get(ctx, "later", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			phase, _, _ := unstructured.NestedString(p.Object, "status", "phase")
			return phase == "Ready", nil
		})
	})

	t.Run("stop leaves no process behind", func(t *testing.T) {
		pids := c.PIDs()
		// etcd, kube-apiserver, the virtual garden's kube-controller-manager, gardener-apiserver,
		// gardener-admission-controller, gardener-controller-manager, gardener-scheduler and the
		// stage kwok.
		assert.Len(t, pids, 8)
		require.NoError(t, c.Stop())
		stopped = true
		for _, pid := range pids {
			assert.False(t, ProcessAlive(pid), "pid %d still running", pid)
		}
		left, err := ProcessesUsing(c.Dir())
		require.NoError(t, err)
		assert.Empty(t, left)
	})
}

// A workerless Shoot needs no extension but its provider's ControlPlane; its services network and
// DNS domain are what gardener-apiserver requires before it may be bound to a seed.
func workerlessShoot(name, region string) *unstructured.Unstructured {
	shoot := object("core.gardener.cloud/v1beta1", "Shoot", name, map[string]any{
		"cloudProfileName": "local",
		"region":           region,
		"provider":         map[string]any{"type": "local"},
		"kubernetes":       map[string]any{"version": "1.32.0"},
		"networking":       map[string]any{"services": "10.3.0.0/16"},
		"dns":              map[string]any{"domain": name + ".gcm.example.com"},
	})
	shoot.SetNamespace("garden-gcm")
	return shoot
}

var localCloudProfileSpec = map[string]any{
	"type":          "local",
	"kubernetes":    map[string]any{"versions": []any{map[string]any{"version": "1.32.0"}}},
	"regions":       []any{map[string]any{"name": "local"}, map[string]any{"name": "far"}},
	"machineImages": []any{map[string]any{"name": "local", "versions": []any{map[string]any{"version": "1.0.0"}}}},
	"machineTypes":  []any{map[string]any{"name": "local", "cpu": "1", "gpu": "0", "memory": "1Gi"}},
}

// providerLocalRegistrationSpec registers what a seed of provider type local needs: admission
// refuses a Seed whose provider and DNS types no ControllerRegistration names, and
// gardener-controller-manager installs an extension for its provider's kinds.
var providerLocalRegistrationSpec = map[string]any{
	"resources": []any{
		map[string]any{"kind": "ControlPlane", "type": "local"},
		map[string]any{"kind": "Infrastructure", "type": "local"},
		map[string]any{"kind": "Worker", "type": "local"},
		map[string]any{"kind": "DNSRecord", "type": "local"},
	},
}

var localSeedSpec = map[string]any{
	"provider": map[string]any{"type": "local", "region": "local"},
	"networks": map[string]any{"nodes": "10.0.0.0/16", "pods": "10.1.0.0/16", "services": "10.2.0.0/16"},
	"ingress":  map[string]any{"domain": "ingress.local.seed.example.com", "controller": map[string]any{"kind": "nginx"}},
	"dns":      map[string]any{"provider": map[string]any{"type": "local", "secretRef": map[string]any{"name": "seed-dns", "namespace": "garden"}}},
}

type resourceObject struct {
	gvr schema.GroupVersionResource
	obj *unstructured.Unstructured
}

func createAll(t *testing.T, dyn dynamic.Interface, objects []resourceObject) {
	t.Helper()
	for _, o := range objects {
		_, err := dyn.Resource(o.gvr).Create(context.Background(), o.obj, metav1.CreateOptions{})
		require.NoError(t, err, o.obj.GetName())
	}
}

// renewSeedLease writes the seed's Lease in gardener-system-seed-lease as gardenlet renews it.
func renewSeedLease(t *testing.T, cs kubernetes.Interface, seed string) {
	t.Helper()
	_, err := cs.CoordinationV1().Leases("gardener-system-seed-lease").Create(context.Background(), &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: seed},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(seed),
			LeaseDurationSeconds: ptr.To[int32](40),
			RenewTime:            ptr.To(metav1.NewMicroTime(time.Now())),
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// reportSeedReady writes, through the status subresource, a seed status the scheduler accepts: a
// last operation and GardenletReady True, merged into the conditions others report
// (gardener-controller-manager's checks) as gardenlet merges them.
func reportSeedReady(t *testing.T, seeds dynamic.ResourceInterface, name string) {
	t.Helper()
	now := time.Now().UTC().Format(time.RFC3339)
	gardenletReady := map[string]any{
		"type": "GardenletReady", "status": "True", "reason": "GardenletReady", "message": "reported by the test",
		"lastTransitionTime": now, "lastUpdateTime": now,
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		seed, err := seeds.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		conditions, _, _ := unstructured.NestedSlice(seed.Object, "status", "conditions")
		conditions = slices.DeleteFunc(conditions, func(c any) bool {
			m, _ := c.(map[string]any)
			return m["type"] == "GardenletReady"
		})
		status := map[string]any{
			"observedGeneration": seed.GetGeneration(),
			"lastOperation": map[string]any{
				"type": "Reconcile", "state": "Succeeded", "progress": int64(100),
				"description": "reported by the test", "lastUpdateTime": now,
			},
			"conditions": append(conditions, gardenletReady),
		}
		if err := unstructured.SetNestedMap(seed.Object, status, "status"); err != nil {
			return err
		}
		_, err = seeds.UpdateStatus(context.Background(), seed, metav1.UpdateOptions{})
		return err
	})
	require.NoError(t, err)
}

// reportInstallationHealthy reports a ControllerInstallation as gardenlet does once it installed
// the extension and found it healthy: Valid, Installed and Healthy True, Progressing False, the
// conditions gardener-controller-manager's seed extensions check reads.
func reportInstallationHealthy(t *testing.T, installations dynamic.ResourceInterface, name string) {
	t.Helper()
	now := time.Now().UTC().Format(time.RFC3339)
	var conditions []any
	for _, c := range [][2]string{{"Valid", "True"}, {"Installed", "True"}, {"Healthy", "True"}, {"Progressing", "False"}} {
		conditions = append(conditions, map[string]any{
			"type": c[0], "status": c[1], "reason": "ReportedByTheTest", "message": "reported by the test",
			"lastTransitionTime": now, "lastUpdateTime": now,
		})
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ci, err := installations.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedSlice(ci.Object, conditions, "status", "conditions"); err != nil {
			return err
		}
		_, err = installations.UpdateStatus(context.Background(), ci, metav1.UpdateOptions{})
		return err
	})
	require.NoError(t, err)
}

// waitForShootEvent waits for an Event of the shoot with reason whose message contains message.
func waitForShootEvent(t *testing.T, cs kubernetes.Interface, shoot, reason, message string) {
	t.Helper()
	var seen []string
	waitFor(t, fmt.Sprintf("event %s of shoot %s", reason, shoot), func(ctx context.Context) (bool, error) {
		events, err := cs.CoreV1().Events("garden-gcm").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + shoot})
		if err != nil {
			return false, err
		}
		seen = seen[:0]
		for _, e := range events.Items {
			seen = append(seen, e.Reason+": "+e.Message)
			if e.Reason == reason && strings.Contains(e.Message, message) {
				return true, nil
			}
		}
		return false, nil
	})
	if t.Failed() {
		t.Logf("events of shoot %s: %s", shoot, strings.Join(seen, "\n"))
	}
}

func assertUnscheduled(t *testing.T, shoots dynamic.ResourceInterface, name string) {
	t.Helper()
	shoot, err := shoots.Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	_, scheduled, _ := unstructured.NestedString(shoot.Object, "spec", "seedName")
	assert.False(t, scheduled, "shoot %s has no seed", name)
}

func assertControlledBy(t *testing.T, refs []metav1.OwnerReference, kind, name string) {
	t.Helper()
	for _, ref := range refs {
		if ref.Kind == kind && ref.Name == name && ptr.Deref(ref.Controller, false) {
			return
		}
	}
	t.Errorf("not controlled by %s %s: %v", kind, name, refs)
}

// managers lists the field managers that wrote through subresource ("" for the object itself).
func managers(obj *unstructured.Unstructured, subresource string) []string {
	var out []string
	for _, entry := range obj.GetManagedFields() {
		if entry.Subresource == subresource {
			out = append(out, entry.Manager)
		}
	}
	return out
}

func statusManagers(obj *unstructured.Unstructured) []string { return managers(obj, "status") }
