package gardenerscheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

func cluster(name string) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(name)})
}

func config(extra map[string]cty.Value) cty.Value {
	attrs := map[string]cty.Value{
		"cluster":           cluster("runtime"),
		"virtual_cluster":   cluster("virtual"),
		"namespace":         cty.StringVal("garden"),
		"log_level":         cty.StringVal("info"),
		"high_availability": cty.False,
		"strategy":          cty.StringVal("SameRegion"),
	}
	for k, v := range extra {
		attrs[k] = v
	}
	return cty.ObjectVal(attrs)
}

func values() Values {
	return Values{Common: gardenercontrolplane.Common{
		Cluster:        decode.Cluster{Name: "runtime"},
		VirtualCluster: decode.Cluster{Name: "virtual"},
	}}
}

func TestRenderGolden(t *testing.T) {
	tests := []struct {
		name  string
		extra map[string]cty.Value
	}{
		{"default", nil},
		{"ha-customised", map[string]cty.Value{
			"high_availability":  cty.True,
			"strategy":           cty.StringVal("MinimalDistance"),
			"namespace":          cty.StringVal("gardener-system"),
			"access_secret_name": cty.StringVal("scheduler-token"),
			"images":             cty.MapVal(map[string]cty.Value{"gardener-scheduler": cty.StringVal("registry.example/scheduler@sha256:0123")}),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Render(render.Input{Name: "gardener-scheduler", Config: config(tt.extra)})
			require.NoError(t, err)
			golden.Assert(t, tt.name, out.Objects)
		})
	}
}

func find(t *testing.T, objs []render.Object, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.Object.GetKind() == kind && o.Object.GetName() == name {
			return o.Object
		}
	}
	t.Fatalf("no %s %s rendered", kind, name)
	return nil
}

func TestFacts(t *testing.T) {
	for _, ha := range []bool{false, true} {
		v := values()
		v.HighAvailability = ha
		objs, err := Objects(v)
		require.NoError(t, err)
		d := find(t, objs, "Deployment", Name)
		assert.Equal(t, "garden", d.GetNamespace())
		pc, _, _ := unstructured.NestedString(d.Object, "spec", "template", "spec", "priorityClassName")
		assert.Equal(t, "gardener-garden-system-200", pc, "S4:26371")
		replicas, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
		assert.Equal(t, map[bool]int64{false: 1, true: 2}[ha], replicas)

		data, _, _ := unstructured.NestedString(find(t, objs, "ConfigMap", Name+"-config").Object, "data", "config.yaml")
		var cfg map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(data), &cfg))
		assert.Equal(t, "info", cfg["logLevel"], "S4:9250")
		strategy, _, _ := unstructured.NestedString(cfg, "schedulers", "shoot", "candidateDeterminationStrategy")
		assert.Equal(t, "SameRegion", strategy, "the default strategy (S4:14389)")
	}
}

func TestVirtualRBAC(t *testing.T) {
	objs, err := Objects(values())
	require.NoError(t, err)
	binding := find(t, objs, "ClusterRoleBinding", "gardener.cloud:system:scheduler")
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
