package project

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func liveQuota(hard map[string]string, managers map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ResourceQuota"}}
	h := map[string]any{}
	for k, v := range hard {
		h[k] = v
	}
	u.Object["spec"] = map[string]any{"hard": h}
	var fields []metav1.ManagedFieldsEntry
	for key, manager := range managers {
		fields = append(fields, metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationApply,
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:hard":{"f:` + key + `":{}}}}`)}})
	}
	u.SetManagedFields(fields)
	return u
}

// The merge rules of the Project controller's quota (Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md).
func TestResourceQuotaMergeRules(t *testing.T) {
	tmpl := &ResourceQuota{Hard: map[string]string{"count/shoots.core.gardener.cloud": "100", "count/secrets": "800"}, Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"note": "b"}}
	for _, tc := range []struct {
		name       string
		live       *unstructured.Unstructured
		wantHard   map[string]any
		wantNotice string
	}{
		{name: "a new quota takes the template", wantHard: map[string]any{"count/shoots.core.gardener.cloud": "100", "count/secrets": "800"}},
		{
			name:     "limits raised by hand stay, missing ones are added",
			live:     liveQuota(map[string]string{"count/shoots.core.gardener.cloud": "150"}, map[string]string{"count/shoots.core.gardener.cloud": "kubectl-edit"}),
			wantHard: map[string]any{"count/shoots.core.gardener.cloud": "150", "count/secrets": "800"},
		},
		{
			name:     "a limit this landscape set and the template dropped goes without a word",
			live:     liveQuota(map[string]string{"count/shoots.core.gardener.cloud": "100", "count/configmaps": "5"}, map[string]string{"count/shoots.core.gardener.cloud": "gardener", "count/configmaps": "gardener"}),
			wantHard: map[string]any{"count/shoots.core.gardener.cloud": "100", "count/secrets": "800"},
		},
		{
			name:       "a limit someone else added is named",
			live:       liveQuota(map[string]string{"count/configmaps": "5"}, map[string]string{"count/configmaps": "kubectl-edit"}),
			wantHard:   map[string]any{"count/shoots.core.gardener.cloud": "100", "count/secrets": "800"},
			wantNotice: "ResourceQuota garden-dev/gardener has limits the template does not list, set by someone else: count/configmaps; Gardener's Project controller removes them, gardener cannot (remove them with kubectl edit)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := resourceQuota("garden-dev", tmpl, tc.live)
			assert.Equal(t, "gardener", q.object.GetName())
			assert.Equal(t, "garden-dev", q.object.GetNamespace())
			hard, _, _ := unstructured.NestedMap(q.object.Object, "spec", "hard")
			assert.Equal(t, tc.wantHard, hard)
			assert.Equal(t, map[string]string{"team": "a"}, q.object.GetLabels())
			assert.Equal(t, map[string]string{"note": "b"}, q.object.GetAnnotations())
			assert.Equal(t, tc.wantNotice, q.notice)
		})
	}
}
