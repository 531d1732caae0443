package shoot

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Operations a user asks for on the live Shoot with gardener.cloud/operation (Gardener's "Trigger
// Shoot Operations Through Annotations" docs/usage/shoot-operations/shoot_operations.md).
const (
	// OperationReconcile rolls the shoot out now. With confine_spec_update_rollout it is "the
	// only way to trigger a shoot reconciliation" outside the maintenance window (Gardener's
	// docs/usage/shoot-operations/shoot_operations.md): the changes held for the window roll out at
	// once. The shoot block carries it out as gardenlet's stand-in and removes it "once the
	// triggered operation is considered".
	OperationReconcile = "reconcile"
	// OperationMaintain makes gardener-controller-manager "start maintaining your shoot
	// immediately (possibly without being in its maintenance time window)" (Gardener's
	// docs/usage/shoot-operations/shoot_operations.md). The maintenance loop removes it and
	// asks for a reconciliation in its place (maintainOperation in
	// pkg/controllermanager/controller/shoot/maintenance/reconciler.go at Gardener v1.120.0): the
	// shoot block leaves it to the loop, predicts the maintenance, and rolls the changes held
	// for the window out with it.
	OperationMaintain = "maintain"
)

// operationRequest is an operation the live Shoot asks for that this rendering carries out.
type operationRequest struct {
	// operation is OperationReconcile or OperationMaintain; empty when none is asked for.
	operation string
}

// decideOperation reads gardener.cloud/operation of the live Shoot (nil when it does not
// exist). A Shoot in deletion is left alone; other operations (retry, rotations) are
// gardenlet's.
func decideOperation(live *unstructured.Unstructured) operationRequest {
	if live == nil || live.GetDeletionTimestamp() != nil {
		return operationRequest{}
	}
	switch op := live.GetAnnotations()[AnnotationOperation]; op {
	case OperationReconcile, OperationMaintain:
		return operationRequest{operation: op}
	}
	return operationRequest{}
}

// rollsOutNow reports whether changes held for the maintenance window roll out now.
func (o operationRequest) rollsOutNow() bool { return o.operation != "" }

// consumed is what the Shoot object's rendering carries out (render.Object.Consume): the
// reconcile operation; the maintain operation is the maintenance loop's to remove.
func (o operationRequest) consumed() map[string]string {
	if o.operation != OperationReconcile {
		return nil
	}
	return map[string]string{AnnotationOperation: o.operation}
}

// notice says what the operation does in this plan, for confined shoots whose held changes it
// releases; empty when it changes nothing a plan would otherwise hold.
func (o operationRequest) notice(confined bool) string {
	switch {
	case o.operation == "":
		return ""
	case o.operation == OperationMaintain:
		return fmt.Sprintf("%s=%s: gardener-controller-manager maintains the shoot now, outside its maintenance window if need be, and removes the annotation; the changes held for the window roll out with it", AnnotationOperation, o.operation)
	case confined:
		return fmt.Sprintf("%s=%s: the changes held for the maintenance window roll out now; the annotation is removed", AnnotationOperation, o.operation)
	}
	return fmt.Sprintf("%s=%s: reconciled by this apply; the annotation is removed", AnnotationOperation, o.operation)
}
