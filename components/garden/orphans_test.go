package garden

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/render"
)

func TestOrphanReports(t *testing.T) {
	seed := func(name string, labels map[string]string, gardenletReady string) unstructured.Unstructured {
		u := unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Seed"}}
		u.SetName(name)
		u.SetLabels(labels)
		if gardenletReady != "" {
			u.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "GardenletReady", "status": gardenletReady}}}
		}
		return u
	}
	shoot := func(name, seedName string, mutate func(*unstructured.Unstructured)) unstructured.Unstructured {
		u := unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot", "spec": map[string]any{"seedName": seedName}}}
		u.SetNamespace("garden-local")
		u.SetName(name)
		if mutate != nil {
			mutate(&u)
		}
		return u
	}
	now := metav1.NewTime(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	seeds := []unstructured.Unstructured{
		seed("local", map[string]string{inventory.LandscapeLabel: "local"}, ""), // the engine's
		seed("gardenlets", nil, "True"),
		seed("down", nil, "Unknown"),
		seed("by-hand", nil, ""),
	}
	shoots := []unstructured.Unstructured{
		shoot("on-local", "local", nil),
		shoot("on-gardenlets", "gardenlets", nil),
		shoot("unscheduled", "", nil),
		shoot("on-down", "down", func(u *unstructured.Unstructured) {
			u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "gardenlet", Subresource: "status"}})
		}),
		shoot("orphan", "by-hand", nil),
		shoot("reported", "by-hand", func(u *unstructured.Unstructured) {
			u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: inventory.ReportFieldManager, Subresource: "status"}})
		}),
		shoot("deleted", "by-hand", func(u *unstructured.Unstructured) { u.SetDeletionTimestamp(&now) }),
	}
	in := render.Input{List: func(ref render.ListRef) ([]unstructured.Unstructured, error) {
		if ref.Resource == "seeds" {
			return seeds, nil
		}
		return shoots, nil
	}}
	reports, err := orphanReports(in, "virtual_garden")
	require.NoError(t, err)
	got := map[string]string{}
	for _, r := range reports {
		assert.Equal(t, "virtual_garden", r.Cluster)
		require.NotNil(t, r.Operation)
		switch {
		case r.Finalize:
			got[r.Name] = "finalize"
		default:
			got[r.Name] = r.Error
		}
	}
	why := "seed by-hand is managed neither by the engine nor by a gardenlet that is ready, so nothing deploys the Shoot's control plane"
	assert.Equal(t, map[string]string{"orphan": why, "reported": why, "deleted": "finalize"}, got,
		"a seed the engine manages, one a ready gardenlet manages, an unscheduled Shoot and one a gardenlet reconciled before are not the engine's to report")

	none, err := orphanReports(render.Input{}, "virtual_garden")
	require.NoError(t, err)
	assert.Empty(t, none, "nothing to read: nothing reported")
}
