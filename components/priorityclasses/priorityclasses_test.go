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
