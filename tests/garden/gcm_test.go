package garden

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// gcmOverlay keeps the seed's heartbeat good for a day: the engine's applies renew the seed's
// Lease, where gardenlet (or the engine's daemon) would renew it all the time.
const gcmOverlay = `controllers:
  seed: {monitorPeriod: 24h, shootMonitorPeriod: 24h}
`

// TestShootsBesideGardenerControllerManager applies landscapes/local to a local control plane
// that runs the real gardener-controller-manager (v1.120.0) and shows that its shoot loops and
// the engine each write their own fields of a Shoot: a hibernation schedule a few minutes ahead
// is carried out by gardener-controller-manager, the engine hibernates the control plane because
// the Shoot says so and never flips it back; the maintain operation makes gardener-controller-
// manager raise dev's Kubernetes version, and the engine runs the control plane on it and never
// lowers it although the landscape still says 1.31.1.
func TestShootsBesideGardenerControllerManager(t *testing.T) {
	if testing.Short() {
		t.Skip("applies a whole landscape")
	}
	c := localcluster.Start(t,
		localcluster.PlaneOptions{Name: localcluster.RuntimePlane, Workloads: true},
		localcluster.PlaneOptions{Name: localcluster.VirtualGardenPlane, GardenerAPI: true,
			GardenerControllers: &localcluster.GardenerControllers{ControllerManagerOverlay: gcmOverlay}},
	)
	t.Setenv("KUBECONFIG", c.Kubeconfig())
	dir := localLandscape(t)
	applyForcing(t, dir)

	apiShootLifecycle(t, c, dir)
	hibernationByGardenerControllerManager(t, c, dir)
	maintenanceByGardenerControllerManager(t, c, dir)
	daemonSteadyState(t, c, dir)
	daemonServesAPIShoots(t, c, dir)
}

// hibernationByGardenerControllerManager gives qa a hibernation schedule that starts a few
// minutes from now (UTC). Before the start, a plan for a minute after it predicts
// gardener-controller-manager's flip and hibernates the control plane without writing the Shoot;
// at the start gardener-controller-manager flips the Shoot, the daemon (triggered by its watch)
// hibernates the control plane, and neither it nor a plan after it flips the Shoot back.
func hibernationByGardenerControllerManager(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	rdyn, vdyn := dyn(t, c.Plane(localcluster.RuntimePlane)), dyn(t, c.Plane(localcluster.VirtualGardenPlane))
	start := time.Now().UTC().Add(3 * time.Minute).Truncate(time.Minute)
	schedule := fmt.Sprintf("%d %d * * *", start.Minute(), start.Hour())
	editLandscape(t, dir, "shoots.hcl", "    enabled = var.hibernate_qa\n",
		"    enabled = var.hibernate_qa\n\n    schedules {\n      start = \""+schedule+"\"\n    }\n")
	applyForcing(t, dir)
	require.True(t, time.Now().Before(start), "the schedule was applied before its start; a slower machine needs a longer lead")
	require.Equal(t, int64(1), qaEtcdMainReplicas(t, rdyn), "qa is awake before the start")

	// plan --at a minute after the start, made now: gardener-controller-manager's flip is
	// predicted, the control plane hibernates, the Shoot is not written.
	projected := planProjected(t, dir, start.Add(time.Minute))
	flip := predictionOf(t, projected, "shoot.qa", "shoot-hibernation")
	assert.Equal(t, start.Format(time.RFC3339), flip.At)
	assert.Equal(t, "gardener-controller-manager", flip.Actor)
	assert.Contains(t, flip.Description, "hibernates the shoot: spec.hibernation.enabled = true")
	etcd := objectChange(t, projected, "shoot.qa.etcd_main", "Etcd")
	assert.Equal(t, plan.Update, etcd.Action)
	assert.NotContains(t, shootChanges(projected, "qa"), "shoot.qa.shoot: update Shoot", "the engine does not write gardener-controller-manager's flip")

	// The daemon runs, with resync and poll an hour away: its watch of the Shoots it owns sees
	// gardener-controller-manager flip qa at the start, and the cycle that follows hibernates the
	// control plane because the Shoot says so.
	d, stop := startDaemon(t, c, dir, "gardener-hibernation", time.Hour, nil)
	require.Eventually(t, func() bool { return qaHibernation(t, vdyn) }, time.Until(start)+time.Minute, time.Second,
		"gardener-controller-manager hibernates qa at %s", start)
	shoot, err := vdyn.Resource(shootsGVR).Namespace("garden-local").Get(ctx, "qa", metav1.GetOptions{})
	require.NoError(t, err)
	triggered, _, _ := unstructured.NestedString(shoot.Object, "status", "lastHibernationTriggerTime")
	assert.NotEmpty(t, triggered, "gardener-controller-manager records its trigger")
	require.Eventually(t, func() bool { return qaEtcdMainReplicas(t, rdyn) == 0 }, 2*time.Minute, time.Second,
		"the daemon hibernates the control plane; last: %+v", d.Last())
	stop()
	assert.True(t, qaHibernation(t, vdyn), "the daemon did not flip the Shoot back")
	assert.Empty(t, shootChanges(planAt(t, dir, time.Now()), "qa"), "a second plan changes nothing of qa")
	assert.True(t, qaHibernation(t, vdyn), "nobody flipped it back")

	// Done: qa wakes up by the landscape's hand, a deliberate change written to the Shoot.
	editLandscape(t, dir, "shoots.hcl", "\n    schedules {\n      start = \""+schedule+"\"\n    }\n", "")
	applyForcing(t, dir)
	assert.False(t, qaHibernation(t, vdyn))
	assert.Equal(t, int64(1), qaEtcdMainReplicas(t, rdyn))
}

// maintenanceByGardenerControllerManager expires dev's Kubernetes version and annotates dev
// with the maintain operation: gardener-controller-manager raises the Shoot to the new patch
// version at once and removes the annotation, the engine's next apply runs the control plane on
// it, and a plan after it does not lower the Shoot to the landscape's 1.31.1.
func maintenanceByGardenerControllerManager(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	cs, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	vdyn := dyn(t, c.Plane(localcluster.VirtualGardenPlane))
	expired := time.Now().UTC().AddDate(0, 0, -1).Format(time.RFC3339)
	editLandscape(t, dir, "gardener-api.hcl", "  kubernetes_version \"1.31.1\" {\n    classification = \"supported\"\n  }",
		"  kubernetes_version \"1.31.1\" {\n    classification  = \"deprecated\"\n    expiration_date = \""+expired+"\"\n  }\n\n  kubernetes_version \"1.31.3\" {\n    classification = \"supported\"\n  }")
	applyForcing(t, dir) // the new cloud profile
	require.Equal(t, "1.31.1", devVersions(t, vdyn)[0])
	pl := planAt(t, dir, time.Now())
	assert.Contains(t, predictionOf(t, pl, "shoot.dev", "shoot-maintenance").Description, `Updated Kubernetes version from "1.31.1" to "1.31.3"`)

	annotateShoot(t, vdyn, "dev", `"maintain"`)
	require.Eventually(t, func() bool { return devVersions(t, vdyn)[0] == "1.31.3" }, time.Minute, time.Second,
		"gardener-controller-manager maintains dev at once")
	shoot, err := vdyn.Resource(shootsGVR).Namespace("garden-local").Get(ctx, "dev", metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotEqual(t, "maintain", shoot.GetAnnotations()["gardener.cloud/operation"], "gardener-controller-manager removed the maintain operation")
	description, _, _ := unstructured.NestedString(shoot.Object, "status", "lastMaintenance", "description")
	assert.Contains(t, description, `Control Plane: Updated Kubernetes version from "1.31.1" to "1.31.3"`)

	// The engine runs the control plane on the raised version, and never lowers it.
	applyForcing(t, dir)
	kapi, err := cs.AppsV1().Deployments("shoot--local--dev").Get(ctx, "kube-apiserver", metav1.GetOptions{})
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(kapi.Spec.Template.Spec.Containers[0].Image, ":v1.31.3"), "image %s", kapi.Spec.Template.Spec.Containers[0].Image)
	assert.Empty(t, shootChanges(planAt(t, dir, time.Now()), "dev"), "a second plan changes nothing of dev")
	assert.Equal(t, "1.31.3", devVersions(t, vdyn)[0], "the landscape's 1.31.1 is a floor")
}

// planProjected plans dir as `gardener plan --at at` does: the clusters read now, the landscape
// evaluated at at.
func planProjected(t *testing.T, dir string, at time.Time) *plan.Plan {
	t.Helper()
	return planProjectedFrom(t, dir, at, time.Now())
}

// planProjectedFrom plans dir evaluated at at with the clusters taken as read at observed.
func planProjectedFrom(t *testing.T, dir string, at, observed time.Time) *plan.Plan {
	t.Helper()
	opts := plannerAt(dir, at)
	opts.ObservedAt = observed
	res, diags, err := apply.Landscape(context.Background(), apply.LandscapeOptions{
		Planner: opts,
		Lock:    state.LockInfo{Holder: "garden-test", Operation: "plan"},
		Confirm: func(*plan.Plan) bool { return false },
	})
	landscapetest.RequireNoDiags(t, diags, res.Outcome)
	if err != nil {
		require.ErrorIs(t, err, apply.ErrCancelled)
	}
	return res.Outcome.Result.Plan
}

// predictionOf is the first prediction of controller about the instance at address.
func predictionOf(t *testing.T, pl *plan.Plan, address, controller string) plan.Prediction {
	t.Helper()
	for _, p := range pl.Predictions {
		if p.Address == address && p.Controller == controller {
			return p
		}
	}
	require.Failf(t, "no prediction", "%s of %s in %v", controller, address, pl.Predictions)
	return plan.Prediction{}
}

// shootChanges are the changes a plan makes to the parts of a shoot, "address: action kind".
func shootChanges(pl *plan.Plan, shoot string) []string {
	var out []string
	for _, c := range pl.Components {
		if !strings.HasPrefix(c.Address, "shoot."+shoot+".") {
			continue
		}
		for _, o := range c.Objects {
			if o.Action != plan.NoOp && o.Action != plan.Read {
				out = append(out, fmt.Sprintf("%s: %s %s", c.Address, o.Action, o.Ref.Kind))
			}
		}
	}
	return out
}

// qaHibernation is the live Shoot qa's spec.hibernation.enabled.
func qaHibernation(t *testing.T, vdyn dynamic.Interface) bool {
	t.Helper()
	shoot, err := vdyn.Resource(shootsGVR).Namespace("garden-local").Get(context.Background(), "qa", metav1.GetOptions{})
	require.NoError(t, err)
	enabled, _, _ := unstructured.NestedBool(shoot.Object, "spec", "hibernation", "enabled")
	return enabled
}

// applyForcing applies dir now as `gardener apply --force-conflicts` (the daemon's default) does:
// gardener-controller-manager also writes objects the engine renders that are not the shoots'
// (a project's RBAC, ControllerInstallations; the other branches of issue 26), which a plain apply
// refuses as conflicts.
func applyForcing(t *testing.T, dir string) *plan.Plan {
	t.Helper()
	res, diags, err := apply.Landscape(context.Background(), apply.LandscapeOptions{
		Planner: plannerAt(dir, time.Now()),
		Lock:    state.LockInfo{Holder: "garden-test", Operation: "apply"},
		Apply:   apply.Options{Timeout: 2 * time.Minute, ForceConflicts: true},
	})
	landscapetest.RequireNoDiags(t, diags, res.Outcome)
	require.NoError(t, err)
	if res.Result != nil {
		require.NoError(t, res.Result.Err())
	}
	return res.Outcome.Result.Plan
}
