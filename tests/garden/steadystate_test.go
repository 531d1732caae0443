package garden

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/daemon"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// daemonSteadyState runs the daemon on the applied local landscape beside the real
// gardener-controller-manager and gardener-scheduler and shows the one-writer rule holds: over
// five cycles the engine writes none of the objects it renders (heartbeats and status reports
// aside), no field of them has a
// second writer besides the engine, and an out-of-band `kubectl set image` on an owned Deployment
// is repaired by the next cycle its watch triggers.
func daemonSteadyState(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	runtimeCS, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	clients := map[string]readable{
		"runtime":        readableOf(t, c.Plane(localcluster.RuntimePlane)),
		"virtual_garden": readableOf(t, c.Plane(localcluster.VirtualGardenPlane)),
	}
	applyForcing(t, dir) // what the earlier steps left to do
	rendered := planAt(t, dir, time.Now())
	require.False(t, rendered.HasChanges(), "the landscape is applied")

	reg := prometheus.NewRegistry()
	d, stop := startDaemon(t, c, dir, "gardener-steady-state", 3*time.Second, reg)
	defer stop()
	cycles := cycleCounter(t, reg)
	require.Eventually(t, func() bool { return d.Last().Phase == daemon.PhaseUpToDate }, 2*time.Minute, 200*time.Millisecond, "the first cycle finds the landscape applied: %+v", d.Last())

	before := engineWrites(t, ctx, clients, rendered)
	require.Greater(t, len(before), 100, "the objects the landscape renders")
	first := cycles()
	require.Eventually(t, func() bool { return cycles() >= first+5 }, 2*time.Minute, 200*time.Millisecond, "five more cycles")
	assert.Equal(t, daemon.PhaseUpToDate, d.Last().Phase, "%+v", d.Last())
	after := engineWrites(t, ctx, clients, rendered)
	assert.Equal(t, before, after, "over five cycles the engine wrote none of the objects it renders")
	assertOneWriter(t, ctx, clients, rendered)

	// An out-of-band change by a person: the watch sees it and the next cycle takes it back.
	const image = "registry.k8s.io/kube-apiserver:v0.0.0-by-hand"
	bin, err := localcluster.FindBinDir()
	require.NoError(t, err)
	out, err := exec.Command(filepath.Join(bin, "kubectl"), "--kubeconfig", c.Kubeconfig(), "--context", localcluster.RuntimePlane,
		"-n", "shoot--local--dev", "set", "image", "deployment/kube-apiserver", "kube-apiserver="+image).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Eventually(t, func() bool {
		kapi, err := runtimeCS.AppsV1().Deployments("shoot--local--dev").Get(ctx, "kube-apiserver", metav1.GetOptions{})
		require.NoError(t, err)
		for _, ct := range kapi.Spec.Template.Spec.Containers {
			if ct.Name == "kube-apiserver" {
				return ct.Image != image
			}
		}
		return false
	}, 2*time.Minute, 200*time.Millisecond, "the daemon repairs kubectl set image; last: %+v", d.Last())
}

// reportedKinds are the kinds whose status the engine reports as gardenlet, and the Lease it
// renews as the seed's heartbeat: written on purpose between applies.
var reportedKinds = map[string]bool{"Shoot": true, "Seed": true, "Lease": true, "ControllerInstallation": true}

// engineWrites describes, for every object the plan renders, when the engine last wrote it: the
// time of the landscape's field manager's entry outside the status subresource, which the API
// server moves with every write of the engine that changes the object. (Generations may move:
// other controllers write fields the engine leaves to them, such as an autoscaler's replicas.)
func engineWrites(t *testing.T, ctx context.Context, clients map[string]readable, pl *plan.Plan) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, u := range renderedObjects(t, ctx, clients, pl) {
		applied := ""
		for _, m := range u.obj.GetManagedFields() {
			if m.Manager == inventory.FieldManager && m.Subresource == "" && m.Time != nil {
				applied = m.Time.UTC().Format(time.RFC3339)
			}
		}
		out[u.key] = "applied " + applied
	}
	return out
}

type renderedObject struct {
	key string
	obj *unstructured.Unstructured
}

// renderedObjects reads every object the plan renders (secrets included, by metadata only), but
// those of the kinds the engine reports on.
func renderedObjects(t *testing.T, ctx context.Context, clients map[string]readable, pl *plan.Plan) []renderedObject {
	t.Helper()
	var out []renderedObject
	for _, c := range pl.Components {
		for _, o := range c.Objects {
			cl, ok := clients[o.Cluster]
			if reportedKinds[o.Ref.Kind] || !ok {
				continue
			}
			gv, err := schema.ParseGroupVersion(o.APIVersion)
			require.NoError(t, err)
			mapping, err := cl.mapper.RESTMapping(gv.WithKind(o.Ref.Kind).GroupKind(), gv.Version)
			require.NoError(t, err, "%s %s", o.Cluster, o.Ref)
			live, err := cl.client.Resource(mapping.Resource).Namespace(o.Ref.Namespace).Get(ctx, o.Ref.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				continue // a part whose object others delete and create (a bootstrap kubeconfig gardenlet removes)
			}
			require.NoError(t, err, "%s %s", o.Cluster, o.Ref)
			out = append(out, renderedObject{key: o.Cluster + " " + o.Ref.String(), obj: live})
		}
	}
	return out
}

// assertOneWriter checks that no field the engine applies to an object it renders is also owned
// by another field manager outside the status subresource.
func assertOneWriter(t *testing.T, ctx context.Context, clients map[string]readable, pl *plan.Plan) {
	t.Helper()
	var shared []string
	checked := 0
	for _, u := range renderedObjects(t, ctx, clients, pl) {
		var engine *fieldpath.Set
		others := map[string]*fieldpath.Set{}
		for _, m := range u.obj.GetManagedFields() {
			if m.Subresource != "" || m.FieldsV1 == nil {
				continue
			}
			set := &fieldpath.Set{}
			require.NoError(t, set.FromJSON(strings.NewReader(string(m.FieldsV1.Raw))))
			if m.Manager == inventory.FieldManager {
				engine = set
			} else {
				others[m.Manager] = set
			}
		}
		if engine == nil {
			continue
		}
		checked++
		for manager, set := range others {
			both := engine.Intersection(set).Leaves()
			if !both.Empty() {
				shared = append(shared, fmt.Sprintf("%s: %s shares %s", u.key, manager, both.String()))
			}
		}
	}
	assert.Greater(t, checked, 100, "objects whose fields the engine applied")
	assert.Empty(t, shared, "fields of objects the engine renders with a second writer")
}

// readable is a cluster the test reads any kind of.
type readable struct {
	client dynamic.Interface
	mapper meta.RESTMapper
}

func readableOf(t *testing.T, p *localcluster.Plane) readable {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(p.RESTConfig())
	require.NoError(t, err)
	return readable{client: dyn(t, p), mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

// daemonServesAPIShoots runs the daemon with resync and poll an hour away, so that only its
// watches start cycles, and has a user order a cluster with kubectl: gardener-scheduler assigns
// the local seed, the daemon's watch of the Shoots the seed lists triggers a cycle that deploys
// the control plane and reports it, and once the user deletes the Shoot the next cycle deletes
// the control plane without waiting for an approval (approve-destructive) and lets the Shoot go.
func daemonServesAPIShoots(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	runtimeCS, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	shoots := dyn(t, c.Plane(localcluster.VirtualGardenPlane)).Resource(shootsGVR).Namespace("garden-local")
	d, stop := startDaemon(t, c, dir, "gardener-api-shoots", time.Hour, nil)
	defer stop()
	require.Eventually(t, func() bool { return d.Last().Phase == daemon.PhaseUpToDate }, 2*time.Minute, 200*time.Millisecond, "the first cycle: %+v", d.Last())

	// The maintenance step before expired 1.31.1 in favour of 1.31.3.
	watched := strings.NewReplacer("name: mine", "name: watched", "version: 1.31.1", "version: 1.31.3").Replace(mineShoot)
	kubectl(t, c, watched, "create", "-f", "-")
	require.Eventually(t, func() bool {
		_, err := runtimeCS.AppsV1().Deployments("shoot--local--watched").Get(ctx, "kube-apiserver", metav1.GetOptions{})
		return err == nil
	}, 3*time.Minute, time.Second, "a cycle its watch triggered deploys the control plane; last: %+v", d.Last())
	require.Eventually(t, func() bool {
		s, err := shoots.Get(ctx, "watched", metav1.GetOptions{})
		require.NoError(t, err)
		state, _, _ := unstructured.NestedString(s.Object, "status", "lastOperation", "state")
		return state == "Succeeded"
	}, 3*time.Minute, time.Second, "the daemon reports the Shoot created; last: %+v", d.Last())

	kubectl(t, c, "", "annotate", "-n", "garden-local", "shoot", "watched", "confirmation.gardener.cloud/deletion=true")
	kubectl(t, c, "", "delete", "-n", "garden-local", "shoot", "watched", "--wait=false")
	require.Eventually(t, func() bool {
		_, err := shoots.Get(ctx, "watched", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, 3*time.Minute, time.Second, "the daemon runs the delete flow without an approval and lets the Shoot go; last: %+v", d.Last())
	_, err = runtimeCS.AppsV1().Deployments("shoot--local--watched").Get(ctx, "kube-apiserver", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "its control plane is gone: %v", err)
}

// startDaemon runs the daemon on dir against the test's clusters, as `gardener daemon` runs by
// default (approve-destructive, conflicts forced, watching what it owns and what it lists), with
// resync as its resync period and poll an hour away, until the returned stop is called. The
// registry, when not nil, collects its metrics.
func startDaemon(t *testing.T, c *localcluster.Cluster, dir, name string, resync time.Duration, reg *prometheus.Registry) (*daemon.Daemon, func()) {
	t.Helper()
	ctx := context.Background()
	runtimeCS, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	_, err = runtimeCS.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "garden-daemon-status"}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	clusterOpts := cluster.Options{NoDiskCache: true}
	d := daemon.New(daemon.Options{
		Dir: dir, WorkDir: t.TempDir(), Policy: daemon.PolicyApproveDestructive,
		Resync: resync, Poll: time.Hour, RetryLock: time.Second, Holder: name,
		Planner: func(dir string) planner.Options {
			return landscapetest.Options(dir, planner.LiveConnector(clusterOpts))
		},
		Cluster: clusterOpts,
		Apply:   apply.Options{Timeout: 3 * time.Minute, ForceConflicts: true},
		Status:  daemon.StatusStore{Client: runtimeCS, Namespace: "garden-daemon-status", Name: name},
		Events:  &landscapetest.Events{}, Metrics: daemon.NewMetrics(reg), Log: testr.New(t), WatchDrift: true,
	})
	daemonCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- d.Start(daemonCtx) }()
	require.Eventually(t, func() bool { return !d.Last().PlanTime.IsZero() }, 2*time.Minute, 200*time.Millisecond, "the daemon's first cycle")
	return d, func() { cancel(); require.NoError(t, <-done) }
}
