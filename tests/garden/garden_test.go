// Package garden applies the garden of landscapes/local to the local control plane and checks
// the documented facts on the live objects: names, namespaces, labels, priority classes,
// replicas with and without high availability, and the order in which components became ready.
package garden

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/internal/golden"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

func TestMain(m *testing.M) { os.Exit(localcluster.RunShared(m)) }

// localLandscape copies landscapes/local, whose cluster blocks name the local control plane's
// contexts (runtime, virtual-garden), with its state in the runtime cluster.
func localLandscape(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("../../landscapes/local"))) // with its charts
	return dir
}

// applyLandscape applies dir like `gardener apply --auto-approve` and returns the components in
// the order they became ready.
func applyLandscape(t *testing.T, dir string, saved *plan.File) (*apply.LandscapeResult, []string) {
	t.Helper()
	var mu sync.Mutex
	var ready []string
	res, diags, err := apply.Landscape(context.Background(), apply.LandscapeOptions{
		Planner: landscapetest.Options(dir, planner.LiveConnector(cluster.Options{NoDiskCache: true})),
		Saved:   saved,
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
	if res.Result != nil {
		require.NoError(t, res.Result.Err())
	}
	return res, ready
}

func TestGardenOnTheLocalControlPlane(t *testing.T) {
	c := localcluster.Shared(t)
	t.Setenv("KUBECONFIG", c.Kubeconfig())
	dir := localLandscape(t)

	// The plan from empty: what a first `gardener plan landscapes/local` shows.
	// Generated secrets are stamped with the plan's time; a fixed one keeps the golden plan stable.
	opts := landscapetest.Options(dir, planner.LiveConnector(cluster.Options{NoDiskCache: true}))
	opts.Now = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	out := landscapetest.Plan(t, opts)
	var text bytes.Buffer
	require.NoError(t, views.Plan(&text, out.Result.Plan, views.PlanOptions{Detail: views.DetailFull}))
	golden.AssertBytes(t, "plan-from-empty.txt", stableCertificates(text.Bytes()))

	// Applied as CI does: a saved plan, refused if anything it would write renders differently at
	// apply time (generated certificates must not leak into objects that are not Secrets).
	live := landscapetest.Plan(t, landscapetest.Options(dir, planner.LiveConnector(cluster.Options{NoDiskCache: true})))
	vars, err := planner.SavedVariables(live.Load.Evaluated, live.Load.Landscape)
	require.NoError(t, err)
	_, ready := applyLandscape(t, dir, plan.NewFile(dir, live.Result, vars))
	before := func(a, b string) {
		ia, ib := slices.Index(ready, "garden.local."+a), slices.Index(ready, "garden.local."+b)
		require.GreaterOrEqual(t, ia, 0, "%s became ready", a)
		require.GreaterOrEqual(t, ib, 0, "%s became ready", b)
		assert.Less(t, ia, ib, "%s is ready before %s starts (ready order %v)", a, b, ready)
	}
	// The documented order (Gardener's "Gardener Operator" docs/concepts/operator.md, "Scoped API
	// Access for gardenlets and Extensions" docs/deployment/gardenlet_api_access.md, "Topology Aware
	// Routing" docs/operations/topology_aware_routing.md).
	for _, system := range []string{"vpa", "etcd_druid", "istio", "nginx_ingress"} {
		before("gardener_resource_manager", system)
		before(system, "virtual_garden_etcd_main")
		before(system, "virtual_garden_etcd_events")
	}
	before("virtual_garden_etcd_main", "virtual_garden_kube_apiserver")
	before("virtual_garden_etcd_events", "virtual_garden_kube_apiserver")
	before("virtual_garden_kube_apiserver", "virtual_garden_kube_controller_manager")
	before("virtual_garden_kube_apiserver", "gardener_apiserver")
	for _, p := range []string{"gardener_admission_controller", "gardener_controller_manager", "gardener_scheduler"} {
		before("gardener_apiserver", p)
	}
	assert.Equal(t, "garden.local", ready[slices.IndexFunc(ready, func(a string) bool { return a == "garden.local" })], "the garden itself is done once its parts are")
	assert.Greater(t, slices.Index(ready, "garden.local"), slices.Index(ready, "garden.local.gardener_scheduler"))

	runtime := c.Plane(localcluster.RuntimePlane)
	cs, err := kubernetes.NewForConfig(runtime.RESTConfig())
	require.NoError(t, err)
	ctx := context.Background()

	// PriorityClasses with the documented values (Gardener's "Priority Classes"
	// docs/development/priority-classes.md).
	for name, value := range map[string]int32{
		"gardener-garden-system-critical": 999999550, "gardener-garden-system-500": 999999500, "gardener-garden-system-400": 999999400,
		"gardener-garden-system-300": 999999300, "gardener-garden-system-200": 999999200, "gardener-garden-system-100": 999999100,
	} {
		pc, err := cs.SchedulingV1().PriorityClasses().Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err, name)
		assert.Equal(t, value, pc.Value, name)
		assert.Equal(t, "local", pc.Labels["declarative-gardener.io/landscape"], "inventory label on %s", name)
	}
	// Deployments in the garden namespace with their documented priority classes, all available.
	for name, class := range map[string]string{
		"gardener-resource-manager": "gardener-garden-system-critical", "virtual-garden-kube-apiserver": "gardener-garden-system-500",
		"gardener-apiserver": "gardener-garden-system-500", "gardener-admission-controller": "gardener-garden-system-400",
		"virtual-garden-kube-controller-manager": "gardener-garden-system-300", "etcd-druid": "gardener-garden-system-300",
		"vpa-admission-controller": "gardener-garden-system-300", "nginx-ingress-controller": "gardener-garden-system-300",
		"vpa-recommender": "gardener-garden-system-200", "vpa-updater": "gardener-garden-system-200",
		"gardener-controller-manager": "gardener-garden-system-200", "gardener-scheduler": "gardener-garden-system-200",
	} {
		d, err := cs.AppsV1().Deployments("garden").Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err, name)
		assert.Equal(t, class, d.Spec.Template.Spec.PriorityClassName, name)
		assert.Equal(t, d.Status.Replicas, d.Status.AvailableReplicas, "%s is available", name)
	}
	// Istio in its namespaces; the virtual garden's gateway in virtual-garden-istio-ingress
	// behind a LoadBalancer Service (Gardener's docs/concepts/operator.md).
	_, err = cs.AppsV1().Deployments("istio-system").Get(ctx, "istiod", metav1.GetOptions{})
	require.NoError(t, err)
	svc, err := cs.CoreV1().Services("virtual-garden-istio-ingress").Get(ctx, "istio-ingressgateway", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "LoadBalancer", string(svc.Spec.Type))
	// The serviceaccount-token controller is off in the virtual kube-controller-manager (Gardener's
	// docs/concepts/operator.md).
	kcm, err := cs.AppsV1().Deployments("garden").Get(ctx, "virtual-garden-kube-controller-manager", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Contains(t, strings.Join(kcm.Spec.Template.Spec.Containers[0].Command, " ")+strings.Join(kcm.Spec.Template.Spec.Containers[0].Args, " "), "-serviceaccount-token")

	etcds := etcdReplicas(t, c)
	assert.Equal(t, map[string]int64{"virtual-garden-etcd-main": 1, "virtual-garden-etcd-events": 1}, etcds)

	// The virtual garden holds the Gardener control plane's RBAC; the landscape registers no
	// APIService there (register_api_services = false): the local control plane registers those
	// of its gardener-apiserver process itself.
	vcs, err := kubernetes.NewForConfig(c.Plane(localcluster.VirtualGardenPlane).RESTConfig())
	require.NoError(t, err)
	roles, err := vcs.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{LabelSelector: "declarative-gardener.io/landscape=local"})
	require.NoError(t, err)
	assert.NotEmpty(t, roles.Items)
	// The project of the landscape's shoots; its namespace is gardener-controller-manager's, not
	// the landscape's (Gardener's "Projects" docs/usage/project/projects.md, "Gardener Controller
	// Manager" docs/concepts/controller-manager.md).
	ns, err := vcs.CoreV1().Namespaces().Get(ctx, "garden-local", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "project", ns.Labels["gardener.cloud/role"])
	assert.NotContains(t, ns.Labels, "declarative-gardener.io/landscape")
	vdyn, err := dynamic.NewForConfig(c.Plane(localcluster.VirtualGardenPlane).RESTConfig())
	require.NoError(t, err)
	project, err := vdyn.Resource(schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "projects"}).Get(ctx, "local", metav1.GetOptions{})
	require.NoError(t, err)
	phase, _, _ := unstructured.NestedString(project.Object, "status", "phase")
	assert.Equal(t, "Ready", phase, "apply waited for the project to be ready")
	binding, err := vdyn.Resource(schema.GroupVersionResource{Group: "security.gardener.cloud", Version: "v1alpha1", Resource: "credentialsbindings"}).Namespace("garden-local").Get(ctx, "local", metav1.GetOptions{})
	require.NoError(t, err)
	ref, _, _ := unstructured.NestedString(binding.Object, "credentialsRef", "name")
	assert.Equal(t, "local-credentials", ref)

	// The seed in the garden's runtime cluster: its own PriorityClasses, gateways and the Seed
	// registered in the virtual garden after them (pkg/gardenlet/controller/seed/seed/reconciler_reconcile.go).
	assert.Less(t, slices.Index(ready, "garden.local"), slices.Index(ready, "seed.local.priority_classes"), "the seed registers with a garden that is up")
	assert.Less(t, slices.Index(ready, "seed.local.istio"), slices.Index(ready, "seed.local.seed"))
	pc, err := cs.SchedulingV1().PriorityClasses().Get(ctx, "gardener-system-critical", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(999998950), pc.Value, "Gardener's docs/development/priority-classes.md")
	seedGateway, err := cs.CoreV1().Services("istio-ingress").Get(ctx, "istio-ingressgateway", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "LoadBalancer", string(seedGateway.Spec.Type))
	_, err = cs.AppsV1().Deployments("garden").Get(ctx, "dependency-watchdog-prober", metav1.GetOptions{})
	require.NoError(t, err)
	// The engine is the gardenlet of the seed it manages: no gardenlet runs beside it, and no
	// bootstrap token waits for one in the virtual garden.
	_, err = cs.AppsV1().Deployments("garden").Get(ctx, "gardenlet", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "no gardenlet on an engine-managed seed: %v", err)
	tokens, err := vcs.CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{LabelSelector: "declarative-gardener.io/landscape=local"})
	require.NoError(t, err)
	assert.Empty(t, tokens.Items)
	seedNamespace, err := vcs.CoreV1().Namespaces().Get(ctx, "seed-local", metav1.GetOptions{})
	require.NoError(t, err, "gardener-controller-manager's, Gardener's docs/concepts/controller-manager.md")
	assert.NotContains(t, seedNamespace.Labels, "declarative-gardener.io/landscape", "the engine does not render it")
	seedObj, err := vdyn.Resource(schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "seeds"}).Get(ctx, "local", metav1.GetOptions{})
	require.NoError(t, err)
	state, _, _ := unstructured.NestedString(seedObj.Object, "status", "lastOperation", "state")
	assert.Equal(t, "Succeeded", state, "the engine reported the seed's operation as gardenlet does")
	assertSeedReported(t, vdyn, seedObj)

	// The local provider extension, installed on the seed for gardener-controller-manager's
	// ControllerInstallation as gardenlet installs it: through a ManagedResource of class seed in
	// the seed's garden namespace (Gardener's docs/concepts/gardenlet.md), named after the
	// installation, whose name gardener-controller-manager generated.
	installation := installationFor(t, vdyn, "provider-local", "local").GetName()
	mrs, err := dyn(t, runtime).Resource(managedResourcesGVR).Namespace("garden").Get(ctx, installation, metav1.GetOptions{})
	require.NoError(t, err)
	class, _, _ := unstructured.NestedString(mrs.Object, "spec", "class")
	assert.Equal(t, "seed", class)
	_, err = cs.CoreV1().Namespaces().Get(ctx, "extension-"+installation, metav1.GetOptions{})
	require.NoError(t, err)
	assertInstallationReported(t, vdyn, installation)

	checkShoots(t, c, ready)
	assertShootReported(t, vdyn, "dev", true)
	assertShootReported(t, vdyn, "ops", false)
	assertAdminKubeconfig(t, vdyn, "dev")
	assertNoChanges(t, dir)
	liveControlPlanes(t, dir)
	projectPredictions(t, c, dir)
	assertSnapshotReplays(t, dir)

	// High availability: three etcd members each (Gardener's docs/concepts/operator.md), the API
	// servers' floor at 3.
	garden := filepath.Join(dir, "garden.hcl")
	data, err := os.ReadFile(garden)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(garden, bytes.Replace(data, []byte("dns_domains = "), []byte("high_availability = true\n    dns_domains = "), 1), 0o644))
	res, _ := applyLandscape(t, dir, nil)
	assert.Zero(t, res.Outcome.Result.Plan.Summary.Replace, "turning high availability on replaces nothing")
	assert.Equal(t, map[string]int64{"virtual-garden-etcd-main": 3, "virtual-garden-etcd-events": 3}, etcdReplicas(t, c))
	hpa, err := cs.AutoscalingV2().HorizontalPodAutoscalers("garden").Get(ctx, "virtual-garden-kube-apiserver", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, hpa.Spec.MinReplicas)
	assert.Equal(t, int32(3), *hpa.Spec.MinReplicas, "Gardener's docs/development/autoscaling-specifics-for-components.md")
	assertNoChanges(t, dir)

	hibernateAndDelete(t, c, dir)
	confineRollout(t, c, dir)
	hibernationSchedule(t, c, dir)
	versionMaintenance(t, c, dir)
	daemonControlLoops(t, c, dir)
	quotaLifetime(t, c, dir)
	extensionFollowsShoots(t, c, dir)
	staleProject(t, c, dir)
}

// Generated certificates are new on every plan from empty (fresh keys), and so are the checksums
// of configurations that embed one (gardenlet's CA bundle) and, for plans made at the time of
// the test, the issue and expiry times of new secrets; the golden plans show placeholders. So is the
// apiserver-proxy's ManagedResource Secret, named after content that holds the kube-apiserver
// Service's cluster IP, which the API server picks.
var (
	pemBase64   = regexp.MustCompile(`LS0tLS1CRUdJTi[A-Za-z0-9+/=]+`)
	byClusterIP = regexp.MustCompile(`(managedresource-shoot-core-apiserver-proxy-)[0-9a-f]{8}`)
	checksum    = regexp.MustCompile(`(\[checksum/[^\]]+\] = )"[0-9a-f]{64}"`)
	stamped     = regexp.MustCompile(`(\[secrets\.declarative-gardener\.io/(?:issued-at|valid-until)\] = )"[0-9TZ:-]+"`)
)

func stableCertificates(plan []byte) []byte {
	plan = pemBase64.ReplaceAll(plan, []byte("(generated certificate)"))
	plan = stamped.ReplaceAll(plan, []byte(`${1}"(time of the plan)"`))
	plan = byClusterIP.ReplaceAll(plan, []byte(`${1}(checksum of the cluster IP)`))
	return checksum.ReplaceAll(plan, []byte(`${1}"(checksum)"`))
}

func dyn(t *testing.T, p *localcluster.Plane) dynamic.Interface {
	t.Helper()
	d, err := dynamic.NewForConfig(p.RESTConfig())
	require.NoError(t, err)
	return d
}

func etcdReplicas(t *testing.T, c *localcluster.Cluster) map[string]int64 {
	t.Helper()
	dyn, err := dynamic.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	list, err := dyn.Resource(schema.GroupVersionResource{Group: "druid.gardener.cloud", Version: "v1alpha1", Resource: "etcds"}).Namespace("garden").List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	out := map[string]int64{}
	for _, e := range list.Items {
		r, _, _ := unstructured.NestedInt64(e.Object, "spec", "replicas")
		out[e.GetName()] = r
		ready, _, _ := unstructured.NestedBool(e.Object, "status", "ready")
		assert.True(t, ready, "%s is ready", e.GetName())
	}
	return out
}

// assertNoChanges plans dir again, with its state, and expects nothing to do.
func assertNoChanges(t *testing.T, dir string) {
	t.Helper()
	res, diags, err := apply.Landscape(context.Background(), apply.LandscapeOptions{
		Planner: landscapetest.Options(dir, planner.LiveConnector(cluster.Options{NoDiskCache: true})),
		Lock:    state.LockInfo{Holder: "garden-test", Operation: "plan"},
		Confirm: func(p *plan.Plan) bool { return false },
	})
	landscapetest.RequireNoDiags(t, diags, res.Outcome)
	if err != nil {
		require.ErrorIs(t, err, apply.ErrCancelled, "a plan with changes is cancelled, not failed")
	}
	var text bytes.Buffer
	require.NoError(t, views.Plan(&text, res.Outcome.Result.Plan, views.PlanOptions{Detail: views.DetailFull}))
	assert.False(t, res.Outcome.Result.Plan.HasChanges(), "a second plan changes nothing:\n%s", text.String())
}

// assertSnapshotReplays records what a plan reads, with warm on-disk OpenAPI caches (which a
// recording must not rely on), and plans again offline from the recording: same result.
func assertSnapshotReplays(t *testing.T, dir string) {
	t.Helper()
	cache := t.TempDir()
	warm := landscapetest.Options(dir, planner.LiveConnector(cluster.Options{NoDiskCache: true}))
	warm.Differs = planner.LocalDiffers(cache)
	landscapetest.Plan(t, warm)

	rec := planner.NewRecording(planner.LiveConnector(cluster.Options{NoDiskCache: true}))
	opts := landscapetest.Options(dir, rec.Connect)
	opts.Differs = planner.LocalDiffers(cache)
	live := landscapetest.Plan(t, opts)
	file := filepath.Join(t.TempDir(), "snapshot.json")
	require.NoError(t, rec.WriteFile(file))

	connect, err := planner.SnapshotConnector(file)
	require.NoError(t, err)
	offline := landscapetest.Plan(t, landscapetest.Options(dir, connect))
	assert.Equal(t, live.Result.Plan.Summary, offline.Result.Plan.Summary, "the offline plan equals the live one")
}
