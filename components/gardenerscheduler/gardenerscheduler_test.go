package gardenerscheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// defaults are the attributes the engine passes for a block that sets only what it must: the
// schema's defaults, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{
	"cluster":         rendertest.Cluster("runtime"),
	"virtual_cluster": rendertest.Cluster("virtual"),
}).AsValueMap()

func config(extra map[string]cty.Value) cty.Value { return rendertest.Config(defaults, extra) }

func values() Values {
	v := Type.Defaults()
	v.Cluster, v.VirtualCluster = decode.Cluster{Name: "runtime"}, decode.Cluster{Name: "virtual"}
	return v
}

func TestRenderGolden(t *testing.T) {
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "gardener-scheduler"}, map[string]cty.Value{
		"default": config(nil),
		"ha-customised": config(map[string]cty.Value{
			"high_availability":  cty.True,
			"strategy":           cty.StringVal("MinimalDistance"),
			"namespace":          cty.StringVal("gardener-system"),
			"access_secret_name": cty.StringVal("scheduler-token"),
			"images":             cty.MapVal(map[string]cty.Value{"gardener-scheduler": cty.StringVal("registry.example/scheduler@sha256:0123")}),
		}),
	})
}

func TestFacts(t *testing.T) {
	for _, ha := range []bool{false, true} {
		v := values()
		v.HighAvailability = ha
		objs, err := Objects(v)
		require.NoError(t, err)
		d := rendertest.MustFind(t, objs, "Deployment", Name)
		assert.Equal(t, "garden", d.GetNamespace())
		pc, _, _ := unstructured.NestedString(d.Object, "spec", "template", "spec", "priorityClassName")
		assert.Equal(t, "gardener-garden-system-200", pc, "Gardener's docs/development/priority-classes.md")
		replicas, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
		assert.Equal(t, map[bool]int64{false: 1, true: 2}[ha], replicas)

		data, _, _ := unstructured.NestedString(rendertest.MustFind(t, objs, "ConfigMap", Name+"-config").Object, "data", "config.yaml")
		var cfg map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(data), &cfg))
		assert.Equal(t, "info", cfg["logLevel"], "Gardener's GardenerDashboardConfig in docs/api-reference/operator.md")
		strategy, _, _ := unstructured.NestedString(cfg, "schedulers", "shoot", "candidateDeterminationStrategy")
		assert.Equal(t, "SameRegion", strategy, "the default strategy (Gardener's docs/concepts/scheduler.md)")
	}
}

func TestVirtualRBAC(t *testing.T) {
	objs, err := Objects(values())
	require.NoError(t, err)
	binding := rendertest.MustFind(t, objs, "ClusterRoleBinding", "gardener.cloud:system:scheduler")
	subjects, _, _ := unstructured.NestedSlice(binding.Object, "subjects")
	assert.Equal(t, []any{map[string]any{"kind": "ServiceAccount", "name": "gardener-scheduler", "namespace": "kube-system"}}, subjects)
	for _, o := range objs {
		if o.Object.GetKind() == "ClusterRole" || o.Object.GetKind() == "ClusterRoleBinding" {
			assert.Equal(t, "virtual", o.Cluster)
		}
	}
}

func TestErrors(t *testing.T) {
	v := values()
	v.Strategy = "Random"
	_, err := Objects(v)
	assert.ErrorContains(t, err, `gardener-scheduler: strategy "Random" is not one of SameRegion, MinimalDistance`)

	v = values()
	v.VirtualCluster.Name = ""
	_, err = Objects(v)
	assert.ErrorContains(t, err, "gardener-scheduler: virtual cluster is not set")
}
