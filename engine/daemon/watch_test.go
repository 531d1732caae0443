package daemon

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func withManagers(rv string, entries ...metav1.ManagedFieldsEntry) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a"}}}
	u.SetResourceVersion(rv)
	u.SetManagedFields(entries)
	return u
}

func entry(manager string, op metav1.ManagedFieldsOperationType, subresource string, at time.Time, fields string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, Subresource: subresource, Time: &metav1.Time{Time: at},
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
}

func TestChangedByOthers(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Second)
	both := `{"f:data":{"f:a":{},"f:b":{}}}`
	onlyA := `{"f:data":{"f:a":{}}}`
	ours := func(at time.Time, fields string) metav1.ManagedFieldsEntry {
		return entry("gardener", metav1.ManagedFieldsOperationApply, "", at, fields)
	}
	tests := []struct {
		name     string
		old, new *unstructured.Unstructured
		want     bool
	}{
		{"the engine's own apply", withManagers("1", ours(t0, onlyA)), withManagers("2", ours(t1, both)), false},
		{"the engine's own apply within the same second", withManagers("1", ours(t0, onlyA)), withManagers("2", ours(t0, both)), false},
		{"kubectl edit", withManagers("1", ours(t0, both)), withManagers("2", ours(t0, onlyA), entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate, "", t1, `{"f:data":{"f:b":{}}}`)), true},
		{"a field removed by a JSON patch", withManagers("1", ours(t0, both)), withManagers("2", ours(t0, onlyA)), true},
		{"a controller writing status", withManagers("1", ours(t0, both)), withManagers("2", ours(t0, both), entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "status", t1, `{"f:status":{}}`)), false},
		{"the daemon writing its status ConfigMap", withManagers("1", ours(t0, both)), withManagers("2", ours(t0, both), entry(StatusFieldManager, metav1.ManagedFieldsOperationUpdate, "", t1, `{"f:data":{"f:phase":{}}}`)), false},
		{"a resync without change", withManagers("1", ours(t0, both)), withManagers("1", ours(t0, both)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, changedByOthers(tt.old, tt.new))
		})
	}
}
