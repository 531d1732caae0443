package report

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// Operation types and states of a Gardener lastOperation (pkg/apis/core/v1beta1/types_common.go
// at Gardener v1.120.0).
const (
	OperationCreate    = "Create"
	OperationReconcile = "Reconcile"
	OperationDelete    = "Delete"

	StateProcessing = "Processing"
	StateSucceeded  = "Succeeded"
	StateError      = "Error"
	StateFailed     = "Failed"
)

// operationType is the type of the operation the engine reports next for live, as gardenlet
// computes it (ComputeOperationType in pkg/apis/core/v1beta1/helper/common.go): Delete for an
// object being deleted; Create for one without a last operation (for kinds whose first operation
// is a Create) or whose Create has not succeeded yet; Reconcile otherwise. Migration and
// restoration are not the engine's: it moves no control plane between seeds.
func operationType(live *unstructured.Unstructured, op *render.Operation) string {
	if live.GetDeletionTimestamp() != nil {
		return OperationDelete
	}
	last, found, _ := unstructured.NestedMap(live.Object, "status", "lastOperation")
	if !found {
		if op.Create {
			return OperationCreate
		}
		return OperationReconcile
	}
	if last["type"] == OperationCreate && last["state"] != StateSucceeded {
		return OperationCreate
	}
	return OperationReconcile
}

// startDescription is gardenlet's description of an operation that starts
// (updateShootStatusOperationStart, and the seed reconciler's updateStatusOperationStart).
func startDescription(op *render.Operation, typ string) string {
	if typ == OperationDelete {
		return fmt.Sprintf("Deletion of %s in progress.", op.Subject)
	}
	return fmt.Sprintf("Reconciliation of %s initialized.", op.Subject)
}

// successDescription is gardenlet's description of an operation that succeeded
// (patchShootStatusOperationSuccess, updateStatusOperationSuccess).
func successDescription(op *render.Operation, typ string) string {
	if typ == OperationDelete {
		return fmt.Sprintf("%s has been successfully deleted.", op.Subject)
	}
	return fmt.Sprintf("%s has been successfully reconciled.", op.Subject)
}

// progressDescription is what gardenlet's flow progress reporter writes while a flow runs
// (flow.MakeDescription in pkg/utils/flow/progress_reporter.go): "Starting <flow>" at 0 %,
// "<flow> finished" at 100 %, and the running tasks in between, sorted and comma-joined.
func progressDescription(op *render.Operation, typ string, progress int, running []string) string {
	flow := op.Flows[typ]
	if flow == "" {
		flow = op.Subject + " " + strings.ToLower(typ)
	}
	switch {
	case progress == 0 || (progress < 100 && len(running) == 0):
		return "Starting " + flow
	case progress >= 100:
		return flow + " finished"
	}
	names := append([]string(nil), running...)
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// nonRetryableCodes are the error codes that end a Shoot's operation as Failed instead of Error
// (HasNonRetryableErrorCode in pkg/apis/core/v1beta1/helper/errors.go at Gardener v1.120.0).
var nonRetryableCodes = map[string]bool{
	"ERR_INFRA_UNAUTHENTICATED":      true,
	"ERR_INFRA_UNAUTHORIZED":         true,
	"ERR_INFRA_DEPENDENCIES":         true,
	"ERR_INFRA_QUOTA_EXCEEDED":       true,
	"ERR_INFRA_RATE_LIMITS_EXCEEDED": true,
	"ERR_CONFIGURATION_PROBLEM":      true,
	"ERR_PROBLEMATIC_WEBHOOK":        true,
}

// Failure is why an instance's apply failed: the part that failed and the error, with the
// Gardener error codes its cause maps to, if any.
type Failure struct {
	Part  string
	Err   error
	Codes []string
}

// failedState is Failed when a code of f is one Gardener does not retry, Error otherwise.
func failedState(f Failure) string {
	for _, c := range f.Codes {
		if nonRetryableCodes[c] {
			return StateFailed
		}
	}
	return StateError
}
