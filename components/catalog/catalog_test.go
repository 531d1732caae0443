package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/declarative-gardener/gardener/engine/schema"
)

// Every component type of the schema catalog renders, except generated_secret, which the
// engine generates itself; of the composite blocks, the garden and seeds render.
func TestEveryComponentTypeHasARenderer(t *testing.T) {
	r := Renderers()
	for _, typ := range Schemas().Types(schema.KindComponent) {
		if typ == "generated_secret" {
			assert.NotContains(t, r, typ, "the engine renders generated secrets")
			continue
		}
		assert.Contains(t, r, typ)
	}
	assert.Contains(t, r, "garden")
	assert.Contains(t, r, "seed")
	assert.Contains(t, r, "shoot")
	for typ := range r {
		if typ == "garden" || typ == "seed" || typ == "shoot" {
			continue
		}
		assert.NotNil(t, Schemas().Lookup(schema.KindComponent, typ), "renderer %s has a schema", typ)
	}
}
