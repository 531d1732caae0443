package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/daemon"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// TestStatusJSONThroughKUBECONFIG reads a daemon's status as an operator does from outside the
// cluster: through KUBECONFIG, with no --kubeconfig flag.
func TestStatusJSONThroughKUBECONFIG(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local control plane")
	}
	lc := localcluster.Start(t, localcluster.PlaneOptions{Name: localcluster.RuntimePlane})
	cs, err := kubernetes.NewForConfig(lc.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	ctx := context.Background()
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: DefaultDaemonNamespace}}, metav1.CreateOptions{})
	require.NoError(t, err)
	store := daemon.StatusStore{Client: cs, Namespace: DefaultDaemonNamespace, Name: "gardener-daemon-status"}
	planned := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	_, err = store.Write(ctx, daemon.Status{
		Landscape: "local", Policy: daemon.PolicyApproveDestructive, Phase: daemon.PhaseWaitingForApproval,
		Message: "the plan deletes 1 object", Scope: []string{`shoot.dev["a"]`}, PlanTime: planned, PlanHash: "abc123",
		PlanSummary: "Plan: 0 to create, 0 to update, 1 to delete.", PlanJSON: `{"format_version":"1.10"}`,
		Drifted:        []string{"runtime/v1/ConfigMap/garden/a", "runtime/v1/ConfigMap/garden/b"},
		ComponentState: map[string]string{"component.manifests.a": "applied"},
	})
	require.NoError(t, err)
	require.NoError(t, store.Approve(ctx, "abc123"))

	t.Setenv("KUBECONFIG", lc.Kubeconfig())
	out, errOut, err := run(t, "status", "--json", "--context", localcluster.RuntimePlane)
	require.NoError(t, err, errOut)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, map[string]any{
		"format_version":     "1.1",
		"landscape":          "local",
		"policy":             "approve-destructive",
		"phase":              "WaitingForApproval",
		"message":            "the plan deletes 1 object",
		"scope":              []any{`shoot.dev["a"]`},
		"last_plan_time":     "2026-11-28T12:00:00Z",
		"last_plan_hash":     "abc123",
		"last_plan_summary":  "Plan: 0 to create, 0 to update, 1 to delete.",
		"drifted_objects":    []any{"runtime/v1/ConfigMap/garden/a", "runtime/v1/ConfigMap/garden/b"},
		"components":         []any{"component.manifests.a: applied"},
		"approved_plan_hash": "abc123",
		"last_plan":          map[string]any{"format_version": "1.10"},
	}, got)
}
