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
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

var projectsGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "projects"}

// playProjectNamespaces plays the part of gardener-controller-manager's project controller that
// the shared control plane lacks until gardener-controller-manager runs there (issue 26's flip):
// the namespace of every Project, as the controller creates it (reconcileNamespaceForProject in
// pkg/controllermanager/controller/project/project/reconciler.go at Gardener v1.120.0), since the
// project component no longer renders it and the landscape's shoots, bindings and Secrets live in
// it. kwok reports a Project Ready at once, where the controller does so only once the namespace
// exists, so the namespaces given are created before anything is applied (with the controller's
// labels and created-by annotation), and every Project's namespace gets the Project as its
// controller as soon as the Project exists. It stops with the test.
func playProjectNamespaces(t *testing.T, c *localcluster.Cluster, upFront ...string) {
	t.Helper()
	vg := c.Plane(localcluster.VirtualGardenPlane)
	cs, err := kubernetes.NewForConfig(vg.RESTConfig())
	require.NoError(t, err)
	projects := dyn(t, vg).Resource(projectsGVR)
	namespace := func(name, project string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      map[string]string{"gardener.cloud/role": "project", "project.gardener.cloud/name": project},
			Annotations: map[string]string{"namespace.gardener.cloud/created-by-project-controller": "true"},
		}}
	}
	for _, ns := range upFront {
		_, err := cs.CoreV1().Namespaces().Create(context.Background(), namespace(ns, strings.TrimPrefix(ns, "garden-")), metav1.CreateOptions{FieldManager: "gardener-controller-manager"})
		require.NoError(t, err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { stop(); <-done })
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			list, err := projects.List(ctx, metav1.ListOptions{})
			for _, p := range listItems(list, err) {
				name, _, _ := unstructured.NestedString(p.Object, "spec", "namespace")
				if name == "" || p.GetDeletionTimestamp() != nil {
					continue
				}
				ns, err := cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
				if apierrors.IsNotFound(err) {
					ns, err = cs.CoreV1().Namespaces().Create(ctx, namespace(name, p.GetName()), metav1.CreateOptions{FieldManager: "gardener-controller-manager"})
				}
				if err != nil || metav1.GetControllerOf(ns) != nil {
					continue
				}
				ns.Annotations["namespace.gardener.cloud/project"] = string(p.GetUID())
				ns.OwnerReferences = append(ns.OwnerReferences, metav1.OwnerReference{
					APIVersion: "core.gardener.cloud/v1beta1", Kind: "Project", Name: p.GetName(), UID: p.GetUID(),
					Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(false),
				})
				_, _ = cs.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{FieldManager: "gardener-controller-manager"})
			}
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
}

func listItems(list *unstructured.UnstructuredList, err error) []unstructured.Unstructured {
	if err != nil || list == nil {
		return nil
	}
	return list.Items
}

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

// projectPredictions checks what plans predict of gardener-controller-manager's project
// controller for the landscape's project (Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md), which does not run on the shared control plane: the members'
// RBAC by role and the ResourceQuota of the garden's template, and, once a quota exists with a
// limit raised by hand and one the template does not list, that the controller keeps the one and
// removes the other. The engine writes none of them.
func projectPredictions(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	vcs, err := kubernetes.NewForConfig(c.Plane(localcluster.VirtualGardenPlane).RESTConfig())
	require.NoError(t, err)
	pl := planAt(t, dir, time.Now())
	assert.False(t, pl.HasChanges())
	assert.Equal(t, []string{"create: creates the ClusterRoleBinding of the project's owner role for User admin@local.gardener.cloud"},
		predictionsOf(pl, "ClusterRoleBinding", "gardener.cloud:system:project:local"))
	assert.Equal(t, []string{"create: creates the RoleBinding of the project's admin role, to ClusterRole gardener.cloud:system:project-member, for User admin@local.gardener.cloud, Group ops@local.gardener.cloud"},
		predictionsOf(pl, "RoleBinding", "gardener.cloud:system:project-member"))
	assert.Equal(t, []string{"create: creates the ResourceQuota from its configuration's template (controllers.project.quotas): " +
		"count/credentialsbindings.security.gardener.cloud=10, count/secrets=800, count/shoots.core.gardener.cloud=100"},
		predictionsOf(pl, "ResourceQuota", "gardener"))
	_, err = vcs.RbacV1().ClusterRoleBindings().Get(ctx, "gardener.cloud:system:project:local", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the engine writes no project RBAC: %v", err)

	// A quota as the controller would have written it, then raised by hand with a limit of the
	// person's own: the controller keeps the raised value and removes the other.
	_, err = vcs.CoreV1().ResourceQuotas("garden-local").Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "gardener", Namespace: "garden-local"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{
			"count/shoots.core.gardener.cloud": resource.MustParse("150"), "count/secrets": resource.MustParse("800"),
			"count/credentialsbindings.security.gardener.cloud": resource.MustParse("10"), "count/configmaps": resource.MustParse("50"),
		}},
	}, metav1.CreateOptions{FieldManager: "kubectl-edit"})
	require.NoError(t, err)
	pl = planAt(t, dir, time.Now())
	assert.False(t, pl.HasChanges(), "the quota is not the engine's")
	assert.Equal(t, []string{"update: updates the ResourceQuota from its configuration's template (controllers.project.quotas): removes count/configmaps, which the template does not list (keeps the live values of count/shoots.core.gardener.cloud)"},
		predictionsOf(pl, "ResourceQuota", "gardener"))
	require.NoError(t, vcs.CoreV1().ResourceQuotas("garden-local").Delete(ctx, "gardener", metav1.DeleteOptions{}))
}

// staleProject declares a project nobody uses and plays gardener-controller-manager's stale
// controller, which the shared control plane does not run (Gardener's "Gardener Controller
// Manager" docs/concepts/controller-manager.md, with the garden's settings, gardener-controller-
// manager's defaults of 30, 14 and 90 days and 12h): plans predict when the controller marks the
// project stale, when it sets the auto-delete time and when it deletes it; at that time the plan
// retires the project by gardener-controller-manager, releasing the Project instead of deleting it
// (no --allow-destroy), and once the controller deleted it the project is not created again while
// its block stays.
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

	// The controller marks it stale (the test writes what it would).
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

	// The controller deletes it (the test does what it would); the project is not created again.
	p.SetAnnotations(map[string]string{"confirmation.gardener.cloud/deletion": "true"})
	_, err = projects.Update(ctx, p, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.NoError(t, projects.Delete(ctx, "idle", metav1.DeleteOptions{}))
	pl = planAt(t, dir, after.Add(time.Minute))
	assert.False(t, pl.HasChanges(), "the project is not created again while its block stays: %+v", pl.Summary)
	assert.Contains(t, strings.Join(pl.Notices, "\n"), "component.project.idle: its lifetime ended at "+format(deleteAt))
}
