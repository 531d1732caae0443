package apply_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
)

// hclString escapes a string for an HCL string literal: "${" starts a template there.
func hclString(s string) string { return strings.ReplaceAll(s, "${", "$${") }

// A value only a live object holds (the address a cloud provider gives a LoadBalancer Service;
// here kwok plays the provider) is planned as "(known after apply)", read during apply once the
// Service's component is ready, and known to the next plan, which has no changes.
func TestLiveValuesAreFilledInDuringApply(t *testing.T) {
	cfg := runtimeConfig(t)
	lb := render.LoadBalancerAddress("runtime", "live-values", "gateway")
	dir := landscapetest.Dir(t, landscape("live-values", `
component "manifests" "gateway" {
  cluster    = cluster.runtime
  namespace  = "live-values"
  depends_on = [component.manifests.namespace]
  objects = [{
    apiVersion = "v1"
    kind       = "Service"
    metadata   = { name = "gateway" }
    spec       = { type = "LoadBalancer", selector = { app = "gateway" }, ports = [{ name = "tls", port = 443 }] }
  }]
}

component "manifests" "record" {
  cluster    = cluster.runtime
  namespace  = "live-values"
  depends_on = [component.manifests.gateway]
  objects = [{
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "record" }
    data       = { address = "`+hclString(render.LiveValue(lb))+`", type = "`+hclString(render.LiveValue(lb.WithAs(render.AsRecordType)))+`" }
  }]
}
`))
	first := planOf(t, cfg, dir)
	var text bytes.Buffer
	require.NoError(t, views.Plan(&text, first, views.PlanOptions{}))
	assert.Contains(t, text.String(), `+ .data[address] = (known after apply)`)
	assert.NotContains(t, text.String(), "${live:", "markers never reach a plan's reader")

	_, res := planAndApply(t, cfg, dir, false, apply.Options{Timeout: 30 * time.Second})
	require.NoError(t, res.Err())

	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	svc, err := cs.CoreV1().Services("live-values").Get(context.Background(), "gateway", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, svc.Status.LoadBalancer.Ingress, "kwok gave the load balancer an address")
	cm, err := cs.CoreV1().ConfigMaps("live-values").Get(context.Background(), "record", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"address": svc.Status.LoadBalancer.Ingress[0].IP, "type": "A"}, cm.Data)

	assert.False(t, planOf(t, cfg, dir).HasChanges(), "the next plan reads the address and has no changes")

	// An edit of a field apply filled in is drift, not a change of the landscape: the object's
	// configuration hash was computed with the value apply read.
	_, err = cs.CoreV1().ConfigMaps("live-values").Patch(context.Background(), "record", types.JSONPatchType,
		[]byte(`[{"op":"remove","path":"/data/address"}]`), metav1.PatchOptions{FieldManager: "kubectl-patch"})
	require.NoError(t, err)
	drift := planOf(t, cfg, dir)
	require.Equal(t, 1, drift.Summary.Change)
	for _, c := range drift.Components {
		for _, o := range c.Objects {
			if o.Ref.Name == "record" {
				assert.Equal(t, plan.ReasonDrift, o.Reason.Kind)
			}
		}
	}
}
