package readiness

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// lastOperation is Gardener's LastOperation (Gardener's LastOperation in
// docs/api-reference/core.md): what the controller last did to the object and how far it got.
type lastOperation struct {
	Type, State, Description string
	Progress                 int64
}

// readLastOperation returns status.lastOperation and whether it is set.
func readLastOperation(obj *unstructured.Unstructured) (lastOperation, bool) {
	m, found, _ := unstructured.NestedMap(obj.Object, "status", "lastOperation")
	if !found || m == nil {
		return lastOperation{}, false
	}
	op := lastOperation{}
	op.Type, _ = m["type"].(string)
	op.State, _ = m["state"].(string)
	op.Description, _ = m["description"].(string)
	sub := &unstructured.Unstructured{Object: map[string]any{"p": m["progress"]}}
	op.Progress, _ = intField(sub, "p")
	return op, true
}

// lastError is one error a Gardener controller reported with its error codes (extension
// `status.lastError`, Shoot `status.lastErrors[]`).
type lastError struct {
	Description string
	Codes       []string
}

// readLastErrors returns status.lastError and the entries of status.lastErrors, whichever the kind
// has.
func readLastErrors(obj *unstructured.Unstructured) []lastError {
	var raw []any
	if m, found, _ := unstructured.NestedMap(obj.Object, "status", "lastError"); found && m != nil {
		raw = append(raw, m)
	}
	if list, found, _ := unstructured.NestedSlice(obj.Object, "status", "lastErrors"); found {
		raw = append(raw, list...)
	}
	var out []lastError
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		e := lastError{}
		e.Description, _ = m["description"].(string)
		codes, _, _ := unstructured.NestedStringSlice(m, "codes")
		if code, ok := m["code"].(string); ok && code != "" { // etcd-druid spells it singular
			codes = append(codes, code)
		}
		e.Codes = codes
		out = append(out, e)
	}
	return out
}

// nonRetryableCodes are the error codes Gardener classifies as user errors (Gardener's
// "Shoot Status" docs/usage/shoot/shoot_status.md): credentials that are rejected, a
// quota that is exhausted, infrastructure dependencies in the way, a configuration problem. The
// controller keeps retrying, but nothing changes until a person does, so a wait ends early with the
// message. ERR_INFRA_RATE_LIMITS_EXCEEDED and ERR_RETRYABLE_INFRA_DEPENDENCIES heal by themselves
// and are deliberately absent.
var nonRetryableCodes = []string{
	"ERR_CONFIGURATION_PROBLEM",
	"ERR_INFRA_DEPENDENCIES",
	"ERR_INFRA_QUOTA_EXCEEDED",
	"ERR_INFRA_UNAUTHENTICATED",
	"ERR_INFRA_UNAUTHORIZED",
}

// lastOperationStatus judges status.lastOperation: not ready while there is none (the controller
// has not reconciled the object yet), otherwise operationStatus.
func lastOperationStatus(obj *unstructured.Unstructured) Status {
	op, ok := readLastOperation(obj)
	if !ok {
		return notReady("not reconciled yet (no status.lastOperation)")
	}
	return operationStatus(obj, op)
}

// operationStatus judges a present lastOperation (pkg/utils/kubernetes/health/extensions.go,
// Gardener's "Access to the Garden Cluster for Extensions" docs/extensions/garden-api-access.md,
// "Extension" docs/extensions/resources/extension.md): Succeeded is ready; Failed is terminal (no
// automatic retry, Gardener's docs/usage/shoot/shoot_status.md); Error is terminal only with a
// non-retryable error code; anything else (Processing, Pending, Aborted) is still in progress. The
// reason quotes the last errors' descriptions, falling back to the operation's description.
func operationStatus(obj *unstructured.Unstructured, op lastOperation) Status {
	if op.State == "Succeeded" {
		return ready()
	}
	head := strings.TrimSpace(orDefault(op.Type, "operation") + " " + orDefault(op.State, "pending"))
	errs := readLastErrors(obj)
	switch op.State {
	case "Failed", "Error":
		detail := errorDetail(errs)
		if detail == "" {
			detail = op.Description
		}
		reason := withDetail(head, detail)
		s := notReady(reason)
		if op.State == "Failed" || hasNonRetryableCode(errs) {
			s = terminal(reason)
		}
		for _, e := range errs {
			s.Codes = append(s.Codes, e.Codes...)
		}
		return s
	}
	if op.Progress > 0 {
		head += fmt.Sprintf(" (%d%%)", op.Progress)
	}
	if op.Description != "" {
		head += ": " + op.Description
	}
	return notReady(head)
}

// errorDetail renders last errors as `[CODE,...] description; ...`.
func errorDetail(errs []lastError) string {
	var parts []string
	for _, e := range errs {
		s := strings.TrimSpace(e.Description)
		if len(e.Codes) > 0 {
			s = strings.TrimSpace("[" + strings.Join(e.Codes, ",") + "] " + s)
		}
		if s != "" {
			parts = append(parts, s)
		}
	}
	return joinReasons(parts)
}

func hasNonRetryableCode(errs []lastError) bool {
	for _, e := range errs {
		for _, c := range e.Codes {
			if slices.Contains(nonRetryableCodes, c) {
				return true
			}
		}
	}
	return false
}

// operationAnnotation is Gardener's one-shot request annotation (Gardener's
// docs/usage/shoot-operations/shoot_operations.md): the controller
// removes it when it takes the request up (reconcile: at the start, Gardener's "Reconcile Trigger"
// docs/extensions/reconcile-trigger.md; migrate/restore: at the end of a successful run, Gardener's
// "Migration" docs/extensions/migration.md), so while it is set the status describes an older
// state.
const operationAnnotation = "gardener.cloud/operation"

// pendingOperation reports a still-set operation annotation.
func pendingOperation(obj *unstructured.Unstructured) (Status, bool) {
	if op, ok := obj.GetAnnotations()[operationAnnotation]; ok {
		return notReady(fmt.Sprintf("%s=%s not yet picked up by the controller", operationAnnotation, op)), true
	}
	return Status{}, false
}
