package reserveexcesscapacity

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

// defaults are the schema's defaults, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{
	"cluster":    rendertest.Cluster("seed"),
	"toleration": cty.ListValEmpty(cty.Object(map[string]cty.Type{"key": cty.String, "operator": cty.String, "value": cty.String, "effect": cty.String})),
}).AsValueMap()

func TestRenderGolden(t *testing.T) {
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "reserve_excess_capacity"}, map[string]cty.Value{
		"default": rendertest.Config(defaults, nil),
		"customised": rendertest.Config(defaults, map[string]cty.Value{
			"name":          cty.StringVal("reserve-excess-capacity-large"),
			"zones":         cty.NumberIntVal(3),
			"cpu":           cty.StringVal("4"),
			"memory":        cty.StringVal("16Gi"),
			"node_selector": cty.MapVal(map[string]cty.Value{"worker.gardener.cloud/pool": cty.StringVal("control-plane")}),
			"images":        cty.MapVal(map[string]cty.Value{"pause": cty.StringVal("mirror.example.com/pause:3.10")}),
			"toleration": cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{
				"key": cty.StringVal("dedicated"), "operator": cty.StringVal("Equal"), "value": cty.StringVal("control-plane"), "effect": cty.StringVal("NoSchedule"),
			})}),
		}),
	})
}

func deployment(t *testing.T, v Values) appsv1.Deployment {
	t.Helper()
	objs, err := Objects(v)
	require.NoError(t, err)
	require.Len(t, objs, 1)
	var d appsv1.Deployment
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(objs[0].Object.Object, &d))
	return d
}

func TestDocumentedFacts(t *testing.T) {
	for _, tt := range []struct {
		name     string
		zones    int
		replicas int
		want     int32
	}{
		// Minimum 2 replicas, otherwise one per zone (Gardener's "Seed Settings"
		// docs/operations/seed_settings.md).
		{"no zones given", 0, 0, 2},
		{"one zone", 1, 0, 2},
		{"three zones", 3, 0, 3},
		{"explicit replicas", 3, 5, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := deployment(t, values(Values{Cluster: decode.Cluster{Name: "seed"}, Zones: tt.zones, Replicas: tt.replicas}))
			assert.Equal(t, tt.want, *d.Spec.Replicas)
			// Gardener's docs/operations/seed_settings.md: Deployment in the garden namespace; Gardener's
			// "Priority Classes" docs/development/priority-classes.md: class
			// gardener-reserve-excess-capacity.
			assert.Equal(t, "reserve-excess-capacity", d.Name)
			assert.Equal(t, "garden", d.Namespace)
			pod := d.Spec.Template.Spec
			assert.Equal(t, "gardener-reserve-excess-capacity", pod.PriorityClassName)
			require.Len(t, pod.Containers, 1, "only the pause container (Gardener's docs/operations/seed_settings.md)")
			c := pod.Containers[0]
			assert.Equal(t, "registry.k8s.io/pause:3.10", c.Image)
			// Gardener's docs/operations/seed_settings.md: 2 CPUs and 6Gi per pod by default.
			assert.Equal(t, "2", c.Resources.Requests.Cpu().String())
			assert.Equal(t, "6Gi", c.Resources.Requests.Memory().String())
			assert.Empty(t, pod.NodeSelector)
			assert.Empty(t, pod.Tolerations)
			for k, v := range d.Spec.Selector.MatchLabels {
				assert.Equal(t, v, d.Spec.Template.Labels[k], k)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	base := func() Values { return values(Values{Cluster: decode.Cluster{Name: "seed"}}) }
	for name, mutate := range map[string]func(*Values){
		"bad cpu":           func(v *Values) { v.CPU = "two" },
		"bad memory":        func(v *Values) { v.Memory = "6 GB" },
		"bad name":          func(v *Values) { v.Name = "Reserve_Capacity" },
		"negative zones":    func(v *Values) { v.Zones = -1 },
		"unknown image":     func(v *Values) { v.Images = map[string]string{"pauze": "3.10"} },
		"bad operator":      func(v *Values) { v.Tolerations = []Toleration{{Key: "a", Operator: "In"}} },
		"bad effect":        func(v *Values) { v.Tolerations = []Toleration{{Key: "a", Effect: "Never"}} },
		"exists with value": func(v *Values) { v.Tolerations = []Toleration{{Key: "a", Operator: "Exists", Value: "b"}} },
	} {
		t.Run(name, func(t *testing.T) {
			v := base()
			mutate(&v)
			_, err := Objects(v)
			assert.Error(t, err)
		})
	}
}

func TestRenderRejectsUnknownAttributes(t *testing.T) {
	_, err := Type.RenderConfig(render.Input{Config: rendertest.Config(defaults, map[string]cty.Value{"limits": cty.True})})
	assert.Error(t, err)
}
