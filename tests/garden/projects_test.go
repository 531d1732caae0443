package garden

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

var projectsGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "projects"}

// staleProject declares a project nobody uses, with a short stale check (Gardener's "Gardener
// Controller Manager" docs/concepts/controller-manager.md): at the first plan after its creation it
// is found stale and the time is kept on the Project; after the grace period the plan names its
// auto-delete time; at that time the plan deletes it, a protected deletion (Projects and garden-*
// namespaces), and once deleted it is not created again while its block stays.
func staleProject(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	projects := dyn(t, c.Plane(localcluster.VirtualGardenPlane)).Resource(projectsGVR)
	day := time.Now().UTC().AddDate(0, 0, 5)
	since := time.Date(day.Year(), day.Month(), day.Day(), 12, 0, 0, 0, time.UTC)
	sinceText := since.Format(time.RFC3339)
	deleteAt := since.AddDate(0, 0, 2)

	f, err := os.OpenFile(filepath.Join(dir, "gardener-api.hcl"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`
component "project" "idle" {
  cluster = cluster.virtual_garden

  owner {
    name = "admin@local.gardener.cloud"
  }

  stale {
    minimum_lifetime_days = 0
    grace_period_days     = 1
    expiration_days       = 2
  }
}
`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	applyAt(t, dir, time.Now().UTC()) // creates the project; a project that did not exist is not stale

	pl := applyAt(t, dir, since)
	assert.Contains(t, strings.Join(pl.Notices, "\n"), "project idle is stale since "+sinceText+": no shoots, backup entries, or secrets and quotas in use by shoots in garden-idle")
	assert.Contains(t, strings.Join(pl.Notices, "\n"), "the grace period of 1 days ends at "+since.AddDate(0, 0, 1).Format(time.RFC3339))
	p, err := projects.Get(ctx, "idle", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, sinceText, p.GetAnnotations()["declarative-gardener.io/stale-since"], "the plan kept when it found the project stale")

	pl = planAt(t, dir, since.AddDate(0, 0, 1).Add(time.Hour))
	// Only the project is judged: on a weekday qa's hibernation schedule fires at this time too.
	for _, comp := range pl.Components {
		if comp.Address == "component.project.idle" {
			for _, o := range comp.Objects {
				assert.Equal(t, plan.NoOp, o.Action, "%s %s: %s", o.Ref.Kind, o.Ref.Name, planText(t, pl))
			}
		}
	}
	assert.Contains(t, strings.Join(pl.Notices, "\n"), "unless it is used again, it is deleted at "+deleteAt.Format(time.RFC3339))

	// At the auto-delete time: the project is deleted, protected.
	after := deleteAt.Add(time.Minute)
	pl = planAt(t, dir, after)
	require.Len(t, pl.Retired, 1)
	assert.Equal(t, "component.project.idle", pl.Retired[0].Address)
	deletes := map[string]string{}
	for _, c := range pl.Components {
		for _, o := range c.Objects {
			if o.Action == plan.Delete {
				deletes[o.Ref.Kind+" "+o.Ref.Name] = o.Reason.String()
			}
		}
	}
	assert.Equal(t, string(plan.ReasonLifetimeEnded), deletes["Project idle"])
	assert.Equal(t, string(plan.ReasonLifetimeEnded), deletes["Namespace garden-idle"])
	err = applyAtFailing(t, dir, after)
	require.Error(t, err, "the Project and its namespace are protected")
	assert.Contains(t, err.Error(), "--allow-destroy component.project.idle")
	// The local virtual garden runs no kube-controller-manager; the test plays its namespace
	// controller, which empties a deleted namespace and removes its finalizer.
	vcs, err := kubernetes.NewForConfig(c.Plane(localcluster.VirtualGardenPlane).RESTConfig())
	require.NoError(t, err)
	finalizing, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		for finalizing.Err() == nil {
			if ns, err := vcs.CoreV1().Namespaces().Get(finalizing, "garden-idle", metav1.GetOptions{}); err == nil && ns.DeletionTimestamp != nil {
				ns.Spec.Finalizers = nil
				_, _ = vcs.CoreV1().Namespaces().Finalize(finalizing, ns, metav1.UpdateOptions{})
			}
			time.Sleep(500 * time.Millisecond)
		}
	}()
	applyAt(t, dir, after, "component.project.idle")
	stop()
	_, err = projects.Get(ctx, "idle", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the Project is deleted: %v", err)
	// Planned at the same time as the apply: earlier steps' schedules see that time too.
	pl = planAt(t, dir, after.Add(time.Minute))
	assert.False(t, pl.HasChanges(), "the project is not created again while its block stays: %+v", pl.Summary)
	assert.Contains(t, strings.Join(pl.Notices, "\n"), "component.project.idle: its lifetime ended at "+deleteAt.Format(time.RFC3339))
}
