package priorityclasses

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

func config(set string) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"cluster": cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime")}),
		"set":     cty.StringVal(set),
	})
}

func TestRenderGolden(t *testing.T) {
	for _, set := range []string{"garden", "seed"} {
		t.Run(set, func(t *testing.T) {
			out, err := Type.RenderConfig(render.Input{Name: "classes", Config: config(set)})
			require.NoError(t, err)
			golden.Assert(t, set, out.Objects)
		})
	}
}

func TestGardenClassesAreTheDocumentedOnes(t *testing.T) {
	classes, err := Classes(Garden)
	require.NoError(t, err)
	got := map[string]int32{}
	for _, c := range classes {
		got[c.Name] = c.Value
	}
	// Gardener's "Priority Classes" docs/development/priority-classes.md
	assert.Equal(t, map[string]int32{
		"gardener-garden-system-critical": 999999550,
		"gardener-garden-system-500":      999999500,
		"gardener-garden-system-400":      999999400,
		"gardener-garden-system-300":      999999300,
		"gardener-garden-system-200":      999999200,
		"gardener-garden-system-100":      999999100,
	}, got)
}

func TestUnknownSet(t *testing.T) {
	_, err := Type.RenderConfig(render.Input{Config: config("shoot")})
	assert.ErrorContains(t, err, `set "shoot" is not one of garden, seed`)
}

// The seed's classes with Gardener's values and descriptions: gardener-system-critical from
// gardenlet's chart (charts/gardener/gardenlet/templates/priorityclass.yaml), the others from the
// seed's "system" ManagedResource (gardenletManagedPriorityClasses in
// pkg/component/seed/system/system.go, gardener/gardener v1.120.0). None is the global default.
func TestSeedClassesAreGardenersClasses(t *testing.T) {
	const (
		critical = "This class is used to ensure that the gardenlet and some seed system components has a high priority and is not preempted in favor of other pods."
		system   = "PriorityClass for Seed system components"
		shoot    = "PriorityClass for Shoot control plane components"
		reserve  = "PriorityClass for reserving excess capacity on a Seed cluster"
	)
	want := []struct {
		name        string
		value       int32
		description string
	}{
		{"gardener-system-critical", 999998950, critical},
		{"gardener-system-900", 999998900, system},
		{"gardener-system-800", 999998800, system},
		{"gardener-system-700", 999998700, system},
		{"gardener-system-600", 999998600, system},
		{"gardener-system-500", 999998500, shoot},
		{"gardener-system-400", 999998400, shoot},
		{"gardener-system-300", 999998300, shoot},
		{"gardener-system-200", 999998200, shoot},
		{"gardener-system-100", 999998100, shoot},
		{"gardener-reserve-excess-capacity", -5, reserve},
	}
	out, err := Type.RenderConfig(render.Input{Name: "classes", Config: config("seed")})
	require.NoError(t, err)
	require.Len(t, out.Objects, len(want))
	for i, w := range want {
		o := out.Objects[i].Object
		assert.Equal(t, w.name, o.GetName())
		assert.Equal(t, int64(w.value), o.Object["value"], w.name)
		assert.Equal(t, w.description, o.Object["description"], w.name)
		assert.NotContains(t, o.Object, "globalDefault", w.name)
		assert.Empty(t, o.GetLabels(), w.name)
	}
}
