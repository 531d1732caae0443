package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

var shootOperation = &render.Operation{
	Subject: "Shoot cluster", Create: true, LastErrors: true,
	Flows: map[string]string{OperationCreate: "Shoot cluster reconciliation", OperationReconcile: "Shoot cluster reconciliation", OperationDelete: "Shoot cluster deletion"},
}

func withLastOperation(typ, state string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot", "metadata": map[string]any{"name": "dev"}}}
	if typ != "" {
		u.Object["status"] = map[string]any{"lastOperation": map[string]any{"type": typ, "state": state}}
	}
	return u
}

func TestOperationType(t *testing.T) {
	seed := &render.Operation{Subject: "Seed cluster"}
	deleting := withLastOperation(OperationReconcile, StateSucceeded)
	now := metav1.Now()
	deleting.SetDeletionTimestamp(&now)
	tests := []struct {
		name string
		live *unstructured.Unstructured
		op   *render.Operation
		want string
	}{
		{"a new shoot is created", withLastOperation("", ""), shootOperation, OperationCreate},
		{"a seed has no Create", withLastOperation("", ""), seed, OperationReconcile},
		{"a create that did not succeed goes on", withLastOperation(OperationCreate, StateError), shootOperation, OperationCreate},
		{"after a create that succeeded, reconciles", withLastOperation(OperationCreate, StateSucceeded), shootOperation, OperationReconcile},
		{"a failed reconcile is retried as one", withLastOperation(OperationReconcile, StateFailed), shootOperation, OperationReconcile},
		{"being deleted", deleting, shootOperation, OperationDelete},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, operationType(tt.live, tt.op))
		})
	}
}

func TestDescriptions(t *testing.T) {
	assert.Equal(t, "Reconciliation of Shoot cluster initialized.", startDescription(shootOperation, OperationCreate))
	assert.Equal(t, "Deletion of Shoot cluster in progress.", startDescription(shootOperation, OperationDelete))
	assert.Equal(t, "Shoot cluster has been successfully reconciled.", successDescription(shootOperation, OperationReconcile))
	assert.Equal(t, "Shoot cluster has been successfully deleted.", successDescription(shootOperation, OperationDelete))

	assert.Equal(t, "Starting Shoot cluster reconciliation", progressDescription(shootOperation, OperationCreate, 0, nil))
	assert.Equal(t, "Shoot cluster deletion finished", progressDescription(shootOperation, OperationDelete, 100, nil))
	assert.Equal(t, "etcd_main, kube_apiserver", progressDescription(shootOperation, OperationReconcile, 40, []string{"kube_apiserver", "etcd_main"}))
}
