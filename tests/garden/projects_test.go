package garden

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

var projectsGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "projects"}

// predictionsOf are a plan's predictions about one object kind and name, as "action: description"
// lines.
func predictionsOf(pl *plan.Plan, kind, name string) []string {
	var out []string
	for _, p := range pl.Predictions {
		if p.Ref.Kind == kind && p.Ref.Name == name {
			out = append(out, p.Action+": "+p.Description)
		}
	}
	return out
}

// projectPredictions checks the landscape's project against gardener-controller-manager's project
// controller (Gardener's "Gardener Controller Manager" docs/concepts/controller-manager.md): the
// local controller runs with the ResourceQuota template the landscape's garden declares for it; the
// members' RBAC by role and the quota are the controller's, none the engine's, and plans predict
// nothing of them since they are as predicted. Once the quota has a limit raised by hand and one the
// template does not list, the plan predicts that the controller keeps the one and removes the other,
// and at its next reconciliation of the project (a RoleBinding of the project's deleted) it does.
func projectPredictions(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	vcs, err := kubernetes.NewForConfig(c.Plane(localcluster.VirtualGardenPlane).RESTConfig())
	require.NoError(t, err)
	rcs, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)

	// The project quota of the configuration the garden renders for its gardener-controller-
	// manager (whose pods never run here) is the local controller's
	// (localcluster.LocalLandscapeControllerManagerOverlay).
	projectQuotas := func(config []byte) any {
		var c struct {
			Controllers struct {
				Project struct {
					Quotas any `json:"quotas"`
				} `json:"project"`
			} `json:"controllers"`
		}
		require.NoError(t, sigsyaml.Unmarshal(config, &c))
		return c.Controllers.Project.Quotas
	}
	rendered, err := rcs.CoreV1().ConfigMaps("garden").Get(ctx, "gardener-controller-manager-config", metav1.GetOptions{})
	require.NoError(t, err)
	running, err := os.ReadFile(filepath.Join(c.Dir(), localcluster.VirtualGardenPlane, "gardener-controller-manager.yaml"))
	require.NoError(t, err)
	require.NotNil(t, projectQuotas(running))
	assert.Equal(t, projectQuotas([]byte(rendered.Data["config.yaml"])), projectQuotas(running), "the local gardener-controller-manager runs with the landscape's project quota")

	pl := planAt(t, dir, time.Now())
	assert.False(t, pl.HasChanges())
	for _, ref := range [][2]string{
		{"ClusterRoleBinding", "gardener.cloud:system:project:local"}, {"ClusterRoleBinding", "gardener.cloud:system:project-member:local"},
		{"RoleBinding", "gardener.cloud:system:project-member"}, {"ResourceQuota", "gardener"},
	} {
		assert.Empty(t, predictionsOf(pl, ref[0], ref[1]), "%s %s is as predicted", ref[0], ref[1])
	}
	owner, err := vcs.RbacV1().ClusterRoleBindings().Get(ctx, "gardener.cloud:system:project:local", metav1.GetOptions{})
	require.NoError(t, err, "gardener-controller-manager's")
	require.Len(t, owner.Subjects, 1)
	assert.Equal(t, "admin@local.gardener.cloud", owner.Subjects[0].Name)
	members, err := vcs.RbacV1().RoleBindings("garden-local").Get(ctx, "gardener.cloud:system:project-member", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Len(t, members.Subjects, 2, "admin@local.gardener.cloud and the group ops@local.gardener.cloud")
	quota, err := vcs.CoreV1().ResourceQuotas("garden-local").Get(ctx, "gardener", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, corev1.ResourceList{
		"count/shoots.core.gardener.cloud": resource.MustParse("100"), "count/secrets": resource.MustParse("800"),
		"count/credentialsbindings.security.gardener.cloud": resource.MustParse("10"),
	}, quota.Spec.Hard)
	for _, obj := range []metav1.Object{owner, members, quota} {
		assert.NotContains(t, obj.GetLabels(), inventory.LandscapeLabel, obj.GetName())
		for _, m := range obj.GetManagedFields() {
			assert.NotEqual(t, inventory.FieldManager, m.Manager, "the engine writes no %s", obj.GetName())
		}
	}

	// The quota raised by hand, with a limit of the person's own.
	quota.Spec.Hard["count/shoots.core.gardener.cloud"] = resource.MustParse("150")
	quota.Spec.Hard["count/configmaps"] = resource.MustParse("50")
	_, err = vcs.CoreV1().ResourceQuotas("garden-local").Update(ctx, quota, metav1.UpdateOptions{FieldManager: "kubectl-edit"})
	require.NoError(t, err)
	pl = planAt(t, dir, time.Now())
	assert.False(t, pl.HasChanges(), "the quota is not the engine's")
	assert.Equal(t, []string{"update: updates the ResourceQuota from its configuration's template (controllers.project.quotas): removes count/configmaps, which the template does not list (keeps the live values of count/shoots.core.gardener.cloud)"},
		predictionsOf(pl, "ResourceQuota", "gardener"))
	// The controller reconciles the project when one of its RoleBindings goes
	// (RoleBindingPredicate in pkg/controllermanager/controller/project/project/add.go at Gardener
	// v1.120.0), and does what the plan said.
	require.NoError(t, vcs.RbacV1().RoleBindings("garden-local").Delete(ctx, "gardener.cloud:system:project-viewer", metav1.DeleteOptions{}))
	require.Eventually(t, func() bool {
		quota, err := vcs.CoreV1().ResourceQuotas("garden-local").Get(ctx, "gardener", metav1.GetOptions{})
		require.NoError(t, err)
		_, configmaps := quota.Spec.Hard["count/configmaps"]
		return !configmaps
	}, time.Minute, 100*time.Millisecond, "gardener-controller-manager removes count/configmaps")
	quota, err = vcs.CoreV1().ResourceQuotas("garden-local").Get(ctx, "gardener", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "150", quota.Spec.Hard.Name("count/shoots.core.gardener.cloud", "").String(), "and keeps the raised limit")
	// The same reconciliation creates the RoleBinding again, after the quota.
	assert.Eventually(t, func() bool {
		_, err := vcs.RbacV1().RoleBindings("garden-local").Get(ctx, "gardener.cloud:system:project-viewer", metav1.GetOptions{})
		return err == nil
	}, time.Minute, 100*time.Millisecond, "and the RoleBinding is back")
	assert.Empty(t, predictionsOf(planAt(t, dir, time.Now()), "ResourceQuota", "gardener"), "as predicted")
}

// staleProject declares a project nobody uses and plans it months ahead against
// gardener-controller-manager's stale controller (Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md, with the garden's settings, gardener-controller-manager's
// defaults of 30, 14 and 90 days and 12h): plans predict when the controller marks the project
// stale, when it sets the auto-delete time and when it deletes it; at that time the plan retires
// the project by gardener-controller-manager, releasing the Project instead of deleting it (no
// --allow-destroy), and once the controller deleted it the project is not created again while its
// block stays. The controller on the shared control plane acts now, when the project is younger
// than its minimum lifetime, and marks it not stale whenever it looks at it
// (pkg/controllermanager/controller/project/stale/reconciler.go at Gardener v1.120.0): while the
// test writes what it would do months ahead, it is stopped.
func staleProject(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	projects := dyn(t, c.Plane(localcluster.VirtualGardenPlane)).Resource(projectsGVR)
	f, err := os.OpenFile(filepath.Join(dir, "gardener-api.hcl"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`
component "project" "idle" {
  cluster            = cluster.virtual_garden
  project_controller = garden.local.project_controller

  owner {
    name = "admin@local.gardener.cloud"
  }
}
`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	applyAt(t, dir, time.Now().UTC())
	p, err := projects.Get(ctx, "idle", metav1.GetOptions{})
	require.NoError(t, err)
	created := p.GetCreationTimestamp().UTC()
	stale := func(pl *plan.Plan) []string {
		var out []string
		for _, pr := range pl.Predictions {
			if pr.Address == "component.project.idle" && pr.Controller == "project-stale" {
				out = append(out, fmt.Sprintf("%s %s..%s %s", pr.Action, pr.At, pr.Until, pr.Description))
			}
		}
		return out
	}
	format := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }

	// Younger than the minimum lifetime: nothing to predict.
	assert.Empty(t, stale(planAt(t, dir, created.AddDate(0, 0, 29))))

	// Past it: marked stale at the controller's next check, and from that time on its
	// auto-delete time and deletion follow.
	since := created.AddDate(0, 0, 31).Truncate(time.Second)
	predicted := stale(planAt(t, dir, since))
	require.Len(t, predicted, 3, "%q", predicted)
	assert.Contains(t, predicted[0], fmt.Sprintf("update %s..%s marks the project stale", format(since), format(since.Add(12*time.Hour))))
	assert.Contains(t, predicted[1], fmt.Sprintf("update %s..%s sets status.staleAutoDeleteTimestamp to %s", format(since.AddDate(0, 0, 14)), format(since.AddDate(0, 0, 14).Add(12*time.Hour)), format(since.AddDate(0, 0, 90))))
	assert.Contains(t, predicted[2], fmt.Sprintf("delete %s..%s deletes the stale project", format(since.AddDate(0, 0, 90)), format(since.AddDate(0, 0, 90).Add(12*time.Hour))))

	// The controller marks it stale (the test writes what it would, with the real one stopped
	// until the project is gone).
	vg := c.Plane(localcluster.VirtualGardenPlane)
	require.NoError(t, vg.StopGardenerControllers())
	stopped := true
	defer func() {
		if stopped {
			assert.NoError(t, vg.StartGardenerControllers(ctx))
		}
	}()
	p, err = projects.Get(ctx, "idle", metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, unstructured.SetNestedField(p.Object, format(since), "status", "staleSinceTimestamp"))
	_, err = projects.UpdateStatus(ctx, p, metav1.UpdateOptions{FieldManager: "gardener-controller-manager"})
	require.NoError(t, err)
	pl := planAt(t, dir, since.Add(time.Hour))
	// Only the project is judged: qa's hibernation schedule may fire at this time too.
	for _, comp := range pl.Components {
		if comp.Address == "component.project.idle" {
			for _, o := range comp.Objects {
				assert.Equal(t, plan.NoOp, o.Action, "the engine writes nothing of the stale check: %s %s\n%s", o.Ref.Kind, o.Ref.Name, planText(t, pl))
			}
		}
	}
	assert.Len(t, stale(pl), 2, "the auto-delete time and the deletion")
	assert.Empty(t, pl.Retired)

	// At the deletion time: the project's life ends by gardener-controller-manager; the plan
	// releases the Project and deletes nothing.
	deleteAt := since.AddDate(0, 0, 90)
	after := deleteAt.Add(time.Minute)
	pl = planAt(t, dir, after)
	require.Len(t, pl.Retired, 1)
	assert.Equal(t, plan.Retirement{Address: "component.project.idle", Ended: format(deleteAt), Reason: "project idle stale since " + format(since), EndedBy: "gardener-controller-manager"}, pl.Retired[0])
	for _, comp := range pl.Components {
		for _, o := range comp.Objects {
			assert.NotEqual(t, plan.Delete, o.Action, "%s %s: the engine deletes nothing of a stale project", o.Ref.Kind, o.Ref.Name)
			if comp.Address == "component.project.idle" {
				assert.Equal(t, "Project idle: released:gardener-controller-manager", o.Ref.Kind+" "+o.Ref.Name+": "+o.Reason.String())
			}
		}
	}
	assert.Contains(t, stale(pl), fmt.Sprintf("delete %s..%s deletes the stale project (confirmed with confirmation.gardener.cloud/deletion=true), 90 days after it became stale; its namespace is deleted with it",
		format(deleteAt), format(deleteAt.Add(12*time.Hour))))
	applyAt(t, dir, after) // no --allow-destroy: nothing is deleted
	p, err = projects.Get(ctx, "idle", metav1.GetOptions{})
	require.NoError(t, err, "the engine did not delete the Project")
	assert.NotContains(t, p.GetLabels(), "declarative-gardener.io/landscape", "released to gardener-controller-manager")

	// The controller deletes it (the test does what its stale loop would); once started again,
	// its project loop finishes the deletion with the namespace. The project is not created
	// again.
	p.SetAnnotations(map[string]string{"confirmation.gardener.cloud/deletion": "true"})
	_, err = projects.Update(ctx, p, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.NoError(t, projects.Delete(ctx, "idle", metav1.DeleteOptions{}))
	stopped = false
	require.NoError(t, vg.StartGardenerControllers(ctx))
	require.Eventually(t, func() bool {
		_, err := projects.Get(ctx, "idle", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, time.Minute, 100*time.Millisecond, "gardener-controller-manager finishes the deletion of project idle")
	pl = planAt(t, dir, after.Add(time.Minute))
	assert.False(t, pl.HasChanges(), "the project is not created again while its block stays: %+v", pl.Summary)
	assert.Contains(t, strings.Join(pl.Notices, "\n"), "component.project.idle: its lifetime ended at "+format(deleteAt))
}
