package apply

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// deploymentOf is a manifests component with one Deployment of image registry.local/NAME:TAG in
// ns, with replicas when replicas > 0 (none: an autoscaler decides them) and, when hpaMin > 0, a
// HorizontalPodAutoscaler of it with that minimum.
func deploymentOf(name, ns, tag string, replicas, hpaMin int) string {
	replicasLine := ""
	if replicas > 0 {
		replicasLine = fmt.Sprintf("replicas = %d", replicas)
	}
	hpa := ""
	if hpaMin > 0 {
		hpa = fmt.Sprintf(`,
    {
      apiVersion = "autoscaling/v2"
      kind       = "HorizontalPodAutoscaler"
      metadata   = { name = %q }
      spec = {
        scaleTargetRef = { apiVersion = "apps/v1", kind = "Deployment", name = %q }
        minReplicas    = %d
        maxReplicas    = 5
      }
    }`, name, name, hpaMin)
	}
	return fmt.Sprintf(`
component "manifests" %q {
  cluster    = cluster.runtime
  namespace  = %q
  depends_on = [component.manifests.namespace]
  objects = [
    {
      apiVersion = "apps/v1"
      kind       = "Deployment"
      metadata   = { name = %q }
      spec = {
        %s
        selector = { matchLabels = { app = %q } }
        template = {
          metadata = { labels = { app = %q } }
          spec     = { containers = [{ name = %q, image = "registry.local/%s:%s" }] }
        }
      }
    }%s
  ]
}
`, name, ns, name, replicasLine, name, name, name, name, tag, hpa)
}

// kubectl runs the real kubectl against the shared cluster's runtime plane.
func kubectl(t *testing.T, args ...string) {
	t.Helper()
	bin, err := localcluster.FindBinDir()
	require.NoError(t, err)
	c := localcluster.Shared(t)
	out, err := exec.Command(filepath.Join(bin, "kubectl"), append([]string{"--kubeconfig", c.Kubeconfig(), "--context", localcluster.RuntimePlane}, args...)...).CombinedOutput()
	require.NoError(t, err, "kubectl %s: %s", strings.Join(args, " "), out)
}

func imageOf(t *testing.T, cs kubernetes.Interface, ns, name string) string {
	t.Helper()
	d, err := cs.AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return d.Spec.Template.Spec.Containers[0].Image
}

func replicasOf(t *testing.T, cs kubernetes.Interface, ns, name string) int32 {
	t.Helper()
	d, err := cs.AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return *d.Spec.Replicas
}

// objectOf is the planned change of the object named name of the component at addr.
func objectOf(t *testing.T, pl *plan.Plan, addr, kind, name string) *plan.ObjectChange {
	t.Helper()
	c := componentOf(pl, addr)
	require.NotNil(t, c, "component %s", addr)
	for _, o := range c.Objects {
		if o.Ref.Kind == kind && o.Ref.Name == name {
			return o
		}
	}
	t.Fatalf("%s has no %s %s", addr, kind, name)
	return nil
}

func planText(t *testing.T, pl *plan.Plan) (text, js string) {
	t.Helper()
	var tb, jb bytes.Buffer
	require.NoError(t, views.Plan(&tb, pl, views.PlanOptions{}))
	require.NoError(t, views.PlanJSON(&jb, pl))
	return tb.String(), jb.String()
}

// `kubectl set image` on a Deployment the landscape owns is drift: the plan names kubectl-set and
// a plain apply takes the image back. An autoscaler's replicas are left alone: where the landscape
// leaves replicas to it (as its components do), the plan has nothing to do; where the landscape
// sets them too, they stay a conflict that apply does not take, also when a person changed the
// same object, and only that component fails. Strict conflicts, by flag or by the landscape,
// keep people's changes conflicts.
func TestKubectlSetImageIsTakenBackAndAutoscalersAreLeftAlone(t *testing.T) {
	cfg, cs := ownershipCluster(t)
	ctx := context.Background()
	const ns = "drift-repair"
	deleteNamespaceAtEnd(t, cs, ns)
	components := []string{
		deploymentOf("web", ns, "1.0", 1, 0),
		deploymentOf("scaled", ns, "1.0", 0, 2), // replicas left to its HPA
		deploymentOf("pinned", ns, "1.0", 1, 2), // replicas set, and an HPA that raises them
	}
	dir := landscapetest.Dir(t, ownedLandscape(ns, ns, components...))
	mustRun(t, cfg, dir, true, nil)

	// The HPA controller (kube-controller-manager) raises both to its minimum through the scale
	// subresource.
	require.Eventually(t, func() bool {
		return replicasOf(t, cs, ns, "scaled") == 2 && replicasOf(t, cs, ns, "pinned") == 2
	}, 90*time.Second, 500*time.Millisecond, "the HPAs scale up")
	pinned, err := cs.AppsV1().Deployments(ns).Get(ctx, "pinned", metav1.GetOptions{})
	require.NoError(t, err)
	assert.True(t, ownsField(pinned, "kube-controller-manager", "scale", `"f:replicas"`), "kube-controller-manager owns the replicas through the scale subresource: %+v", pinned.ManagedFields)

	// A person changes two images and scales web by hand (kubectl scale writes as "kubectl").
	kubectl(t, "-n", ns, "set", "image", "deployment/web", "web=registry.local/web:hotfix")
	kubectl(t, "-n", ns, "scale", "deployment/web", "--replicas=3")
	kubectl(t, "-n", ns, "set", "image", "deployment/pinned", "pinned=registry.local/pinned:hotfix")

	pl := mustRun(t, cfg, dir, false, nil)
	imagePath := func(name string) string { return ".spec.template.spec.containers[name=" + name + "].image" }
	web := objectOf(t, pl, "component.manifests.web", "Deployment", "web")
	assert.Equal(t, plan.Update, web.Action)
	assert.Equal(t, plan.Reason{Kind: plan.ReasonDrift}, web.Reason)
	assert.Equal(t, []plan.Conflict{{Path: ".spec.replicas", Manager: "kubectl"}, {Path: imagePath("web"), Manager: "kubectl-set"}}, web.Drift)
	assert.Empty(t, web.Conflicts)
	assert.Equal(t, plan.NoOp, objectOf(t, pl, "component.manifests.scaled", "Deployment", "scaled").Action, "the HPA's replicas are not the landscape's")
	pinnedPlan := objectOf(t, pl, "component.manifests.pinned", "Deployment", "pinned")
	assert.Equal(t, plan.Reason{Kind: plan.ReasonConflict, Detail: "kube-controller-manager"}, pinnedPlan.Reason)
	assert.Equal(t, []plan.Conflict{
		{Path: ".spec.replicas", Manager: "kube-controller-manager"},
		{Path: imagePath("pinned"), Manager: "kubectl-set"},
	}, pinnedPlan.Conflicts, "one controller's field keeps the whole object a conflict")
	assert.Empty(t, pinnedPlan.Drift)
	text, js := planText(t, pl)
	assert.Contains(t, text, "Deployment.apps drift-repair/web (runtime) will be updated: drift by kubectl, kubectl-set, taken back [drift]\n")
	assert.Contains(t, text, "      < .spec.replicas was changed by kubectl; apply takes it back\n")
	assert.Contains(t, text, "      < "+imagePath("web")+" was changed by kubectl-set; apply takes it back\n")
	assert.Contains(t, text, `Deployment.apps drift-repair/pinned (runtime) will be updated, but fields owned by "kube-controller-manager" conflict: apply needs --force-conflicts [conflict:kube-controller-manager]`)
	assert.Contains(t, js, `"drift": [
            {
              "path": ".spec.replicas",
              "manager": "kubectl"
            },
            {
              "path": "`+imagePath("web")+`",
              "manager": "kubectl-set"
            }
          ]`)

	// Strict conflicts, by flag or by the landscape, keep the person's change a conflict.
	strict := mustRun(t, cfg, dir, false, func(o *LandscapeOptions) { o.Planner.StrictConflicts = true })
	assert.True(t, strict.StrictConflicts)
	webStrict := objectOf(t, strict, "component.manifests.web", "Deployment", "web")
	assert.Equal(t, plan.Reason{Kind: plan.ReasonConflict, Detail: "kubectl"}, webStrict.Reason)
	assert.Empty(t, webStrict.Drift)
	files := ownedLandscape(ns, ns, components...)
	landscapetest.Write(t, dir, map[string]string{"main.hcl": strings.Replace(files["main.hcl"], "{}", "{\n  strict_conflicts = true\n}", 1)})
	strictLandscape := mustRun(t, cfg, dir, false, nil)
	assert.True(t, strictLandscape.StrictConflicts)
	assert.Equal(t, plan.Reason{Kind: plan.ReasonConflict, Detail: "kubectl"}, objectOf(t, strictLandscape, "component.manifests.web", "Deployment", "web").Reason)
	landscapetest.Write(t, dir, files)

	// A plain apply: web's image is taken back; pinned fails on the controller's replicas and
	// takes nothing, not even the person's image; the rest is applied.
	_, err = landscapeRun(t, cfg, dir, true, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "pinned")
	assert.Contains(t, err.Error(), `"kube-controller-manager"`)
	assert.NotContains(t, err.Error(), "drift-repair/web")
	assert.Equal(t, "registry.local/web:1.0", imageOf(t, cs, ns, "web"), "taken back")
	assert.EqualValues(t, 1, replicasOf(t, cs, ns, "web"), "taken back")
	webLive, err := cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.False(t, ownsField(webLive, "kubectl-set", "", `"f:image"`), "kubectl-set owns the image no more: %+v", webLive.ManagedFields)
	assert.Equal(t, "registry.local/pinned:hotfix", imageOf(t, cs, ns, "pinned"), "not taken while a controller's field conflicts")
	assert.EqualValues(t, 2, replicasOf(t, cs, ns, "pinned"), "the HPA's replicas stay")
	assert.EqualValues(t, 2, replicasOf(t, cs, ns, "scaled"), "the HPA's replicas stay")

	// The next plan has nothing to do for web and scaled; pinned is still the conflict.
	again := mustRun(t, cfg, dir, false, nil)
	assert.Equal(t, plan.NoOp, objectOf(t, again, "component.manifests.web", "Deployment", "web").Action)
	assert.Equal(t, plan.NoOp, objectOf(t, again, "component.manifests.scaled", "Deployment", "scaled").Action)
	assert.Equal(t, plan.ReasonConflict, objectOf(t, again, "component.manifests.pinned", "Deployment", "pinned").Reason.Kind)
}

// ownsField reports whether manager (with the subresource given, "" for the main resource) owns
// a field whose managedFields key is key.
func ownsField(d *appsv1.Deployment, manager, subresource, key string) bool {
	for _, f := range d.ManagedFields {
		if f.Manager == manager && f.Subresource == subresource && f.FieldsV1 != nil && strings.Contains(string(f.FieldsV1.Raw), key) {
			return true
		}
	}
	return false
}
