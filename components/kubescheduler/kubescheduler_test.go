package kubescheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

const shootNamespace = "shoot--dev--a"

// defaults are the schema's defaults plus the required attributes, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{
	"cluster":            rendertest.Cluster("seed"),
	"namespace":          cty.StringVal(shootNamespace),
	"kubernetes_version": cty.StringVal("1.32.3"),
}).AsValueMap()

func TestRenderGolden(t *testing.T) {
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "kube_scheduler"}, map[string]cty.Value{
		"default": rendertest.Config(defaults, nil),
		"ha-bin-packing": rendertest.Config(defaults, map[string]cty.Value{
			"high_availability": cty.True,
			"profile":           cty.StringVal("bin-packing"),
			"feature_gates":     cty.MapVal(map[string]cty.Value{"B": cty.False, "A": cty.True}),
			"images":            cty.MapVal(map[string]cty.Value{"kube-scheduler": cty.StringVal("mirror.example.com/kube-scheduler:v1.32.4")}),
			"kube_max_pd_vols":  cty.StringVal("23"),
		}),
	})
}

func minimal() Values {
	return values(Values{Cluster: decode.Cluster{Name: "seed"}, Namespace: shootNamespace, KubernetesVersion: "1.32.3"})
}

// TestHibernation checks that a hibernated scheduler has no replicas, with or without high
// availability (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component
// Checklist" docs/development/component-checklist.md).
func TestHibernation(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ha, asleep bool
		replicas   int32
	}{
		{"awake", false, false, 1},
		{"awake HA", true, false, 2},
		{"hibernated", false, true, 0},
		{"hibernated HA", true, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := minimal()
			v.HighAvailability, v.Hibernated = tc.ha, tc.asleep
			objs, err := Objects(v)
			require.NoError(t, err)
			d := rendertest.Typed[appsv1.Deployment](t, objs, "Deployment", "kube-scheduler")
			require.NotNil(t, d.Spec.Replicas)
			assert.Equal(t, tc.replicas, *d.Spec.Replicas)
		})
	}
}

// TestPriorityClass checks the default, gardener-system-300 (Gardener's
// docs/development/priority-classes.md), and that Go callers may choose another class.
func TestPriorityClass(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"", "gardener-system-300"},
		{"gardener-garden-system-300", "gardener-garden-system-300"},
	} {
		v := minimal()
		v.PriorityClassName = tc.set
		objs, err := Objects(v)
		require.NoError(t, err)
		d := rendertest.Typed[appsv1.Deployment](t, objs, "Deployment", "kube-scheduler")
		assert.Equal(t, tc.want, d.Spec.Template.Spec.PriorityClassName)
	}
}

func TestErrors(t *testing.T) {
	for name, mutate := range map[string]func(*Values){
		"no namespace":    func(v *Values) { v.Namespace = "" },
		"bad namespace":   func(v *Values) { v.Namespace = "Shoot_A" },
		"no version":      func(v *Values) { v.KubernetesVersion = "" },
		"bad version":     func(v *Values) { v.KubernetesVersion = "one" },
		"too old version": func(v *Values) { v.KubernetesVersion = "1.24.9" },
		"bad profile":     func(v *Values) { v.Profile = "packed" },
		"unknown image":   func(v *Values) { v.Images = map[string]string{"kube-schedulr": "v1.32.3"} },
	} {
		t.Run(name, func(t *testing.T) {
			v := minimal()
			mutate(&v)
			_, err := Objects(v)
			assert.Error(t, err)
		})
	}
	_, err := Type.RenderConfig(render.Input{Config: rendertest.Config(defaults, map[string]cty.Value{"kube_max_pd_volumes": cty.StringVal("1")})})
	assert.Error(t, err)
}
