package report_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
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
	"k8s.io/client-go/rest"

	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/report"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

func TestMain(m *testing.M) { os.Exit(localcluster.RunShared(m)) }

var (
	seedsGVR  = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "seeds"}
	shootsGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}
	leasesGVR = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
)

// The objects the reported Seed and Shoot need in the real Gardener API: the registration of the
// extension types admission checks them for, the cloud profile and the project.
const prerequisites = `
apiVersion: core.gardener.cloud/v1beta1
kind: ControllerRegistration
metadata: {name: report-test-local}
spec:
  resources:
  - {kind: Infrastructure, type: report-local}
  - {kind: ControlPlane, type: report-local}
  - {kind: Worker, type: report-local}
  - {kind: DNSRecord, type: report-local}
---
apiVersion: v1
kind: Namespace
metadata:
  name: garden-reportp
  labels: {gardener.cloud/role: project, project.gardener.cloud/name: reportp}
---
apiVersion: core.gardener.cloud/v1beta1
kind: Project
metadata: {name: reportp}
spec: {namespace: garden-reportp}
---
apiVersion: core.gardener.cloud/v1beta1
kind: CloudProfile
metadata: {name: report-local}
spec:
  type: report-local
  kubernetes: {versions: [{version: 1.31.1}]}
  machineImages: [{name: local, versions: [{version: 1.0.0}]}]
  machineTypes: [{name: local, cpu: "2", memory: 4Gi}]
  regions: [{name: local}]
---
apiVersion: core.gardener.cloud/v1beta1
kind: Seed
metadata: {name: report-seed}
spec:
  provider: {type: report-local, region: local}
  networks: {nodes: 10.0.0.0/16, pods: 10.1.0.0/16, services: 10.2.0.0/16}
  ingress: {domain: ingress.report.example.com, controller: {kind: nginx}}
  dns: {provider: {type: report-local, secretRef: {name: report-dns, namespace: garden}}}
`

// workerless is a Shoot without workers, which admission asks the least of.
const workerless = `
apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata: {name: ops, namespace: garden-reportp}
spec:
  cloudProfile: {kind: CloudProfile, name: report-local}
  kubernetes: {version: 1.31.1}
  networking: {services: 10.4.0.0/16}
  provider: {type: report-local}
  region: local
  seedName: report-seed
  dns: {domain: ops.reportp.report.example.com}
`

func TestReportsOnTheRealGardenerAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local control plane")
	}
	plane := localcluster.Shared(t).Plane(localcluster.VirtualGardenPlane)
	client, err := dynamic.NewForConfig(plane.RESTConfig())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, doc := range strings.Split(prerequisites, "\n---\n") {
		landscapetest.CreateYAML(ctx, t, client, doc)
	}
	// The writer's own client counts its writes: gardener-controller-manager, which the shared
	// virtual garden runs, writes the same objects' status too, so resourceVersions cannot say
	// whether the writer wrote.
	var writes atomic.Int64
	counting := rest.CopyConfig(plane.RESTConfig())
	counting.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if r.Method != http.MethodGet {
				writes.Add(1)
			}
			return rt.RoundTrip(r)
		})
	})
	writerClient, err := dynamic.NewForConfig(counting)
	require.NoError(t, err)
	w := &report.Writer{Clients: map[string]dynamic.Interface{"virtual": writerClient}, Identity: report.Identity{ID: "0123", Name: "engine-test"}}

	t.Run("seed", func(t *testing.T) {
		seed := render.Report{
			Cluster: "virtual", APIVersion: "core.gardener.cloud/v1beta1", Kind: "Seed", Name: "report-seed", GardenerVersion: "v1.120.0",
			Operation: &render.Operation{Subject: "Seed cluster", Flows: map[string]string{"Reconcile": "Seed reconciliation"}},
			Conditions: []render.ReportedCondition{
				{Type: "GardenletReady", Status: "True", Reason: "GardenletReady", Message: "Gardenlet is posting ready status."},
				{Type: "SeedSystemComponentsHealthy", Parts: []string{"istio"}, Reason: "SystemComponentsRunning", Message: "All system components are healthy."},
			},
			Heartbeat: &render.Heartbeat{Cluster: "virtual", Namespace: "gardener-system-seed-lease", Name: "report-seed", Duration: 2 * time.Second},
		}
		typ, err := w.Start(ctx, seed)
		require.NoError(t, err)
		assert.Equal(t, "Reconcile", typ, "a Seed's first operation is a Reconcile")
		live := get(ctx, t, client.Resource(seedsGVR), "report-seed")
		assert.Contains(t, live.GetFinalizers(), "gardener", "added before the first status write")
		assert.Equal(t, "Processing", str(live, "status", "lastOperation", "state"))
		assert.Equal(t, "Reconciliation of Seed cluster initialized.", str(live, "status", "lastOperation", "description"))
		assert.Equal(t, "v1.120.0", str(live, "status", "gardener", "version"))

		require.NoError(t, w.Progress(ctx, seed, typ, 1, 2, []string{"istio"}))
		live = get(ctx, t, client.Resource(seedsGVR), "report-seed")
		assert.Equal(t, int64(50), num(live, "status", "lastOperation", "progress"))

		conds := []report.Condition{report.Judge(seed.Conditions[0], nil), report.Judge(seed.Conditions[1], func(string) (bool, string) { return true, "" })}
		require.NoError(t, w.Finish(ctx, seed, typ, conds, nil))
		live = get(ctx, t, client.Resource(seedsGVR), "report-seed")
		assert.Equal(t, "Succeeded", str(live, "status", "lastOperation", "state"))
		assert.Equal(t, int64(100), num(live, "status", "lastOperation", "progress"))
		assert.Equal(t, live.GetGeneration(), num(live, "status", "observedGeneration"))
		// The engine's conditions beside gardener-controller-manager's ExtensionsReady: the local
		// virtual garden runs it (seed-extensions-check), and the engine leaves that one alone.
		reported := conditions(live)
		delete(reported, "ExtensionsReady")
		assert.Equal(t, map[string]string{"GardenletReady": "True", "SeedSystemComponentsHealthy": "True"}, reported)

		// A sync with nothing new writes nothing.
		before := writes.Load()
		require.NoError(t, w.Sync(ctx, seed, conds, nil))
		assert.Equal(t, before, writes.Load(), "no write")

		// The heartbeat: the Lease gardener-controller-manager and gardener-scheduler look for,
		// renewed; GardenletReady back to True where the lifecycle controller turned it Unknown.
		require.NoError(t, w.Renew(ctx, seed))
		lease := get(ctx, t, client.Resource(leasesGVR).Namespace("gardener-system-seed-lease"), "report-seed")
		assert.Equal(t, "report-seed", str(lease, "spec", "holderIdentity"))
		owners := lease.GetOwnerReferences()
		require.Len(t, owners, 1)
		assert.Equal(t, live.GetUID(), owners[0].UID)
		first := str(lease, "spec", "renewTime")
		setCondition(ctx, t, client.Resource(seedsGVR), "report-seed", "GardenletReady", "Unknown", "SeedStatusUnknown")
		require.Eventually(t, func() bool {
			require.NoError(t, w.Renew(ctx, seed))
			renewed := get(ctx, t, client.Resource(leasesGVR).Namespace("gardener-system-seed-lease"), "report-seed")
			return str(renewed, "spec", "renewTime") != first
		}, 10*time.Second, 100*time.Millisecond)
		assert.Equal(t, "True", conditions(get(ctx, t, client.Resource(seedsGVR), "report-seed"))["GardenletReady"])
	})

	t.Run("shoot", func(t *testing.T) {
		shoots := client.Resource(shootsGVR).Namespace("garden-reportp")
		landscapetest.CreateYAML(ctx, t, client, workerless)
		shoot := render.Report{
			Cluster: "virtual", APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot", Namespace: "garden-reportp", Name: "ops",
			Status: map[string]any{
				"technicalID": "shoot--reportp--ops", "seedName": "report-seed", "hibernated": false,
				"advertisedAddresses": []any{map[string]any{"name": "external", "url": "https://api.ops.reportp.report.example.com"}},
			},
			CopyUID: true, GardenerVersion: "v1.120.0",
			Operation: &render.Operation{Subject: "Shoot cluster", Create: true, LastErrors: true,
				Flows: map[string]string{"Create": "Shoot cluster reconciliation", "Reconcile": "Shoot cluster reconciliation", "Delete": "Shoot cluster deletion"}},
			Conditions: []render.ReportedCondition{{Type: "ControlPlaneHealthy", Parts: []string{"kube_apiserver"}, Reason: "ControlPlaneRunning", Message: "All control plane components are healthy.", FalseReason: "DeploymentUnhealthy"}},
		}
		typ, err := w.Start(ctx, shoot)
		require.NoError(t, err)
		assert.Equal(t, "Create", typ)
		live := get(ctx, t, shoots, "ops")
		assert.Contains(t, live.GetFinalizers(), "gardener")
		assert.Equal(t, "shoot--reportp--ops", str(live, "status", "technicalID"))
		assert.Equal(t, string(live.GetUID()), str(live, "status", "uid"))

		// A failure with a code Gardener does not retry ends the operation as Failed.
		failure := &report.Failure{Part: "kube_apiserver", Err: errors.New("kube_apiserver failed: invalid"), Codes: []string{"ERR_CONFIGURATION_PROBLEM"}}
		require.NoError(t, w.Finish(ctx, shoot, typ, nil, failure))
		live = get(ctx, t, shoots, "ops")
		assert.Equal(t, "Failed", str(live, "status", "lastOperation", "state"))
		errs, _, _ := unstructured.NestedSlice(live.Object, "status", "lastErrors")
		require.Len(t, errs, 1)
		assert.Equal(t, "kube_apiserver", errs[0].(map[string]any)["taskID"])

		typ, err = w.Start(ctx, shoot)
		require.NoError(t, err)
		assert.Equal(t, "Create", typ, "a Create that did not succeed goes on")
		down := report.Judge(shoot.Conditions[0], func(string) (bool, string) { return false, "Deployment kube-apiserver: 0 of 1 replicas available" })
		require.NoError(t, w.Finish(ctx, shoot, typ, []report.Condition{down}, nil))
		live = get(ctx, t, shoots, "ops")
		assert.Equal(t, "Succeeded", str(live, "status", "lastOperation", "state"))
		_, hasErrors, _ := unstructured.NestedSlice(live.Object, "status", "lastErrors")
		assert.False(t, hasErrors, "a success clears the last errors")
		assert.Equal(t, map[string]string{"ControlPlaneHealthy": "False"}, conditions(live))

		// Deleting: gardener-apiserver keeps the Shoot while the finalizer is there, and lets it
		// go only once the Delete operation succeeded, which Finalize writes first.
		_, err = shoots.Patch(ctx, "ops", types.MergePatchType, []byte(`{"metadata":{"annotations":{"confirmation.gardener.cloud/deletion":"true"}}}`), metav1.PatchOptions{})
		require.NoError(t, err)
		require.NoError(t, shoots.Delete(ctx, "ops", metav1.DeleteOptions{}))
		assert.NotNil(t, get(ctx, t, shoots, "ops").GetDeletionTimestamp())
		require.NoError(t, w.Finalize(ctx, "virtual", "core.gardener.cloud/v1beta1", "Shoot", "garden-reportp", "ops"))
		require.Eventually(t, func() bool {
			_, err := shoots.Get(ctx, "ops", metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		}, 30*time.Second, 200*time.Millisecond, "the Shoot is gone once its report finalizer is")
	})

	t.Run("controllerinstallation", func(t *testing.T) {
		installations := client.Resource(schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "controllerinstallations"})
		landscapetest.CreateYAML(ctx, t, client, `
apiVersion: core.gardener.cloud/v1beta1
kind: ControllerInstallation
metadata: {name: report-test-local-x7k2p}
spec:
  registrationRef: {name: report-test-local}
  seedRef: {name: report-seed}
`)
		ci := render.StatusReport{Cluster: "virtual", APIVersion: "core.gardener.cloud/v1beta1", Kind: "ControllerInstallation", Name: "report-test-local-x7k2p"}
		conds := []report.Condition{
			{Type: "Valid", Status: "True", Reason: "RegistrationValid", Message: "chart could be rendered successfully."},
			{Type: "Installed", Status: "True", Reason: "InstallationSuccessful", Message: "The controller was successfully installed in the seed cluster."},
			{Type: "Healthy", Status: "True", Reason: "ControllerHealthy", Message: "The controller running in the seed cluster is healthy."},
			{Type: "Progressing", Status: "False", Reason: "ControllerRolledOut", Message: "The controller has been rolled out successfully."},
			{Type: "Required", Status: "False", Reason: "NoExtensionObjects", Message: "no extension objects exist in the seed having the kind/type combinations the controller is responsible for"},
		}
		require.NoError(t, w.WriteConditions(ctx, ci, conds))
		live := get(ctx, t, installations, "report-test-local-x7k2p")
		assert.Equal(t, map[string]string{"Valid": "True", "Installed": "True", "Healthy": "True", "Progressing": "False", "Required": "False"}, conditions(live))
		assert.Empty(t, live.GetFinalizers(), "gardenlet's finalizer is not the engine's to keep")
		_, hasGardener, _ := unstructured.NestedMap(live.Object, "status", "gardener")
		assert.False(t, hasGardener, "conditions only")
		var managers []string
		for _, m := range live.GetManagedFields() {
			if m.Subresource == "status" {
				managers = append(managers, m.Manager)
			}
		}
		assert.Equal(t, []string{report.FieldManager}, managers, "the engine writes the status as gardenlet")

		// Nothing new: nothing written.
		before := writes.Load()
		require.NoError(t, w.WriteConditions(ctx, ci, conds))
		assert.Equal(t, before, writes.Load(), "no write")

		require.NoError(t, installations.Delete(ctx, "report-test-local-x7k2p", metav1.DeleteOptions{}))
		assert.ErrorIs(t, w.WriteConditions(ctx, ci, conds), report.ErrNotFound)
	})
}

func get(ctx context.Context, t *testing.T, ri dynamic.ResourceInterface, name string) *unstructured.Unstructured {
	t.Helper()
	u, err := ri.Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	return u
}

func str(u *unstructured.Unstructured, path ...string) string {
	s, _, _ := unstructured.NestedString(u.Object, path...)
	return s
}

func num(u *unstructured.Unstructured, path ...string) int64 {
	n, _, _ := unstructured.NestedInt64(u.Object, path...)
	return n
}

// conditions are the object's conditions' statuses by type.
func conditions(u *unstructured.Unstructured) map[string]string {
	out := map[string]string{}
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range list {
		m := c.(map[string]any)
		out[m["type"].(string)] = m["status"].(string)
	}
	return out
}

// setCondition changes one condition as another controller would, through the status
// subresource.
func setCondition(ctx context.Context, t *testing.T, ri dynamic.ResourceInterface, name, typ, status, reason string) {
	t.Helper()
	live := get(ctx, t, ri, name)
	list, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
	for _, c := range list {
		if m := c.(map[string]any); m["type"] == typ {
			m["status"], m["reason"] = status, reason
		}
	}
	require.NoError(t, unstructured.SetNestedSlice(live.Object, list, "status", "conditions"))
	_, err := ri.UpdateStatus(ctx, live, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// roundTripper is a function as an http.RoundTripper.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
