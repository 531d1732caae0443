// Package component is how a component type or composite block (garden, seed, shoot) is defined
// once, in its own package: one Definition holds its schema, whose defaults are the only ones
// the type has, and its render function over typed values. components/catalog lists the
// definitions and derives from that one list both the schema registry the loader decodes with and
// the render registry the engine renders with; the engine imports neither this package nor the
// component packages.
package component

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// Type is a component type or composite block as the catalog registers it.
type Type interface {
	// Schema builds the type's schema afresh, so that no caller can change another's copy.
	Schema() *schema.Schema
	// Renderer is the render function the engine calls with an instance's configuration as the
	// loader decoded it, defaults filled in; nil for a type the engine renders itself.
	Renderer() render.Func
}

// Definition is a type whose configuration decodes into V, the typed values its render function
// works on. Composite blocks build their parts' values in Go: they start from Defaults, the
// schema's defaults decoded into V, so that a part built by a composite and the same type
// declared in a landscape get the same defaults from the same place.
type Definition[V any] struct {
	schema   func() *schema.Schema
	render   func(render.Input, V) (*render.Output, error)
	defaults func() []byte
}

// Define defines a type by its schema and its render function over typed values. The schema's
// attributes and blocks must match V's json tags (decode.Into), which Defaults relies on.
func Define[V any](s func() *schema.Schema, r func(render.Input, V) (*render.Output, error)) *Definition[V] {
	return &Definition[V]{schema: s, render: r, defaults: onceDefaults[V](func() *schema.Body { return &s().Body })}
}

// Schema builds the type's schema afresh.
func (d *Definition[V]) Schema() *schema.Schema { return d.schema() }

// Renderer is RenderConfig.
func (d *Definition[V]) Renderer() render.Func { return d.RenderConfig }

// RenderConfig decodes an instance's configuration into V and renders it.
func (d *Definition[V]) RenderConfig(in render.Input) (*render.Output, error) {
	var v V
	if err := decode.Into(in.Config, &v); err != nil {
		return nil, err
	}
	return d.render(in, v)
}

// Render renders values built in Go, as a composite builds a part's, with the render function a
// landscape's instance of the type is rendered with.
func (d *Definition[V]) Render(in render.Input, v V) (*render.Output, error) { return d.render(in, v) }

// Defaults are the schema's defaults decoded into V: what an instance declared in a landscape
// with none of the optional attributes set decodes to. Fields of attributes without a default,
// and of nested blocks, are zero.
func (d *Definition[V]) Defaults() V { return decodeDefaults[V](d.defaults()) }

// BlockDefaults returns a function that gives the defaults of the nested block at path (a block
// name, then names of blocks inside it) of the type's schema s, decoded into B: what a block the
// landscape writes with none of its optional attributes decodes to, for composites that fill in
// a block of a part and for code that stands in for an absent block. s is the schema function
// rather than the Definition, so that a package's render code may use the defaults of its own
// blocks. The schema is read once, at the first call.
func BlockDefaults[B any](s func() *schema.Schema, path ...string) func() B {
	defaults := onceDefaults[B](func() *schema.Body {
		body := &s().Body
		for _, name := range path {
			blk := body.Block(name)
			if blk == nil {
				panic(fmt.Sprintf("component: schema %s has no block %v", s().Type, path))
			}
			body = &blk.Body
		}
		return body
	})
	return func() B { return decodeDefaults[B](defaults()) }
}

// onceDefaults computes the JSON form of a body's defaults at the first call, and checks once
// that it decodes into T, so that every later decoding is of known-good data.
func onceDefaults[T any](body func() *schema.Body) func() []byte {
	return sync.OnceValue(func() []byte {
		data, err := ctyjson.SimpleJSONValue{Value: DefaultsValue(body())}.MarshalJSON()
		if err == nil {
			var v T
			err = decode.Into(DefaultsValue(body()), &v)
		}
		if err != nil {
			// The schema and its values type disagree: a bug in the type's package that the
			// catalog's tests rule out, not a user error.
			panic(fmt.Sprintf("component: the defaults of %T: %v", *new(T), err))
		}
		return data
	})
}

func decodeDefaults[T any](data []byte) T {
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		panic(fmt.Sprintf("component: the defaults of %T: %v", v, err))
	}
	return v
}

// DefaultsValue is the configuration a body decodes to when nothing is set: each attribute's
// default, null where it has none, and null for nested blocks.
func DefaultsValue(b *schema.Body) cty.Value {
	attrs := make(map[string]cty.Value, len(b.Attributes)+len(b.Blocks))
	for _, a := range b.Attributes {
		if a.Default != cty.NilVal {
			attrs[a.Name] = a.Default
		} else {
			attrs[a.Name] = cty.NullVal(a.Type)
		}
	}
	for _, blk := range b.Blocks {
		attrs[blk.Name] = cty.NullVal(cty.DynamicPseudoType)
	}
	return cty.ObjectVal(attrs)
}

// Objects makes the render function of a type whose only output is its objects, so that such
// types keep no render skeleton of their own.
func Objects[V any](objects func(V) ([]render.Object, error)) func(render.Input, V) (*render.Output, error) {
	return func(_ render.Input, v V) (*render.Output, error) {
		objs, err := objects(v)
		if err != nil {
			return nil, err
		}
		return &render.Output{Objects: objs}, nil
	}
}

// engineRendered is a type the engine renders itself.
type engineRendered func() *schema.Schema

func (e engineRendered) Schema() *schema.Schema { return e() }
func (engineRendered) Renderer() render.Func    { return nil }

// EngineRendered defines a type that has a schema but no render function, because the engine
// renders it itself: generated_secret, whose key material no pure render function can create.
func EngineRendered(s func() *schema.Schema) Type { return engineRendered(s) }

// Override sets *field to value unless value is the zero value: a setting of a composite block
// that the landscape left unset keeps the default of the part it configures.
func Override[T comparable](field *T, value T) {
	var zero T
	if value != zero {
		*field = value
	}
}

// InstanceObjectName is an instance's name as the name of an object (or a Helm release): instance
// names are HCL identifiers, which may hold underscores that object names may not, so underscores
// become dashes.
func InstanceObjectName(instance string) string {
	return strings.ReplaceAll(instance, "_", "-")
}
