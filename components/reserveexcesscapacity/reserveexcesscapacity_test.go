package reserveexcesscapacity

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

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
			"name":          cty.StringVal("reserve-excess-capacity-1"),
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

// The facts of pkg/component/seed/system/system.go and its test in gardener/gardener v1.120.0,
// and the replica rule of newSystem in pkg/gardenlet/controller/seed/seed/components.go.
func TestGardenerFacts(t *testing.T) {
	for _, tt := range []struct {
		name     string
		zones    int
		replicas int
		want     int32
	}{
		{"no zones given", 0, 0, 2},
		{"one zone", 1, 0, 2},
		{"two zones", 2, 0, 2},
		{"three zones", 3, 0, 3},
		{"explicit replicas", 3, 5, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := deployment(t, values(Values{Cluster: decode.Cluster{Name: "seed"}, Zones: tt.zones, Replicas: tt.replicas}))
			assert.Equal(t, tt.want, *d.Spec.Replicas)
			assert.Equal(t, "reserve-excess-capacity-0", d.Name)
			assert.Equal(t, "garden", d.Namespace)
			labels := map[string]string{"app": "kubernetes", "role": "reserve-excess-capacity"}
			assert.Equal(t, labels, d.Labels)
			assert.Equal(t, labels, d.Spec.Selector.MatchLabels)
			assert.Equal(t, labels, d.Spec.Template.Labels)
			assert.Equal(t, map[string]string{"resources.gardener.cloud/skip-health-check": "true"}, d.Annotations)
			assert.Equal(t, int32(2), *d.Spec.RevisionHistoryLimit)
			pod := d.Spec.Template.Spec
			assert.Equal(t, "gardener-reserve-excess-capacity", pod.PriorityClassName)
			assert.Equal(t, int64(5), *pod.TerminationGracePeriodSeconds)
			assert.Nil(t, pod.SecurityContext)
			assert.Nil(t, pod.AutomountServiceAccountToken)
			assert.Empty(t, pod.TopologySpreadConstraints)
			require.Len(t, pod.Containers, 1)
			c := pod.Containers[0]
			assert.Equal(t, "pause-container", c.Name)
			assert.Equal(t, "registry.k8s.io/pause:3.10", c.Image)
			assert.Equal(t, corev1.PullIfNotPresent, c.ImagePullPolicy)
			assert.Equal(t, &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)}, c.SecurityContext)
			// The Seed API's default reservation: 2 CPUs and 6Gi, requests equal to limits.
			assert.Equal(t, "2", c.Resources.Requests.Cpu().String())
			assert.Equal(t, "6Gi", c.Resources.Requests.Memory().String())
			assert.Equal(t, c.Resources.Requests, c.Resources.Limits)
			assert.Empty(t, pod.NodeSelector)
			assert.Empty(t, pod.Tolerations)
		})
	}
}

// The first reservation replaces the Deployment the engine named reserve-excess-capacity before it
// followed gardenlet's names; the plan deletes that one as superseded.
func TestFirstReservationSupersedesTheUnindexedName(t *testing.T) {
	objs, err := Objects(values(Values{Cluster: decode.Cluster{Name: "seed"}}))
	require.NoError(t, err)
	require.NotNil(t, objs[0].Supersedes)
	assert.True(t, objs[0].Supersedes.MatchString("reserve-excess-capacity"))
	assert.False(t, objs[0].Supersedes.MatchString("reserve-excess-capacity-1"))
	v := values(Values{Cluster: decode.Cluster{Name: "seed"}})
	v.Name = ConfigName(1)
	objs, err = Objects(v)
	require.NoError(t, err)
	assert.Equal(t, "reserve-excess-capacity-1", objs[0].Object.GetName())
	assert.Nil(t, objs[0].Supersedes)
}

func TestErrors(t *testing.T) {
	base := func() Values { return values(Values{Cluster: decode.Cluster{Name: "seed"}}) }
	for name, mutate := range map[string]func(*Values){
		"bad cpu":                 func(v *Values) { v.CPU = "two" },
		"bad memory":              func(v *Values) { v.Memory = "6 GB" },
		"bad name":                func(v *Values) { v.Name = "Reserve_Capacity" },
		"negative zones":          func(v *Values) { v.Zones = -1 },
		"zones beyond 32 bits":    func(v *Values) { v.Zones = 1<<32 + 2 },
		"replicas beyond 32 bits": func(v *Values) { v.Replicas = 1<<32 + 2 },
		"unknown image":           func(v *Values) { v.Images = map[string]string{"pauze": "3.10"} },
		"bad operator":            func(v *Values) { v.Tolerations = []Toleration{{Key: "a", Operator: "In"}} },
		"bad effect":              func(v *Values) { v.Tolerations = []Toleration{{Key: "a", Effect: "Never"}} },
		"exists with value":       func(v *Values) { v.Tolerations = []Toleration{{Key: "a", Operator: "Exists", Value: "b"}} },
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
