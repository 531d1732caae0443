package readiness

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckGeneric(t *testing.T) {
	runChecks(t, []checkCase{
		{name: "unknown kind exists", ready: true, obj: `
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: n}`},
		{name: "unknown kind with current observedGeneration", ready: true, obj: `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, generation: 3}
status: {observedGeneration: 3}`},
		{name: "unknown kind with stale observedGeneration",
			reason: "generation 4 not observed yet (status.observedGeneration 3)", obj: `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, generation: 4}
status: {observedGeneration: 3}`},
		{name: "being deleted", reason: "being deleted", obj: `
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: n, deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: [x]}`},
		{name: "gardener kind without a rule", ready: true, obj: `
apiVersion: core.gardener.cloud/v1beta1
kind: CloudProfile
metadata: {name: local}`},
	})
}

func TestCheckNil(t *testing.T) {
	assert.Equal(t, Status{Reason: "not found"}, Check(nil))
}

func TestCheckAcceptsFloatNumbers(t *testing.T) {
	// Objects built in Go (not decoded from JSON) may carry float64 numbers.
	obj := mustObject(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, generation: 1}
spec: {replicas: 2}`)
	obj.Object["status"] = map[string]any{
		"observedGeneration": float64(1), "replicas": float64(2), "updatedReplicas": float64(2), "availableReplicas": float64(2),
	}
	assert.Equal(t, Status{Ready: true}, Check(obj))
}
