// Package rendertest is what the tests of component packages share: configurations as the engine
// passes them to a render function, and look-ups in the objects it returns. One copy keeps the
// tests of all components building their inputs the same way.
package rendertest

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/internal/golden"
)

// FromJSON turns a JSON object into the configuration value the engine would pass, with the
// types JSON implies (numbers, strings, objects for blocks and maps, tuples for lists), so that
// tests can write configurations compactly.
func FromJSON(t testing.TB, js string) cty.Value {
	t.Helper()
	ty, err := ctyjson.ImpliedType([]byte(js))
	require.NoError(t, err)
	v, err := ctyjson.Unmarshal([]byte(js), ty)
	require.NoError(t, err)
	return v
}

// Cluster is a reference to the cluster block name (`cluster = cluster.runtime`) as the engine
// evaluates it; components read only its name.
func Cluster(name string) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(name)})
}

// ConfigOf is the configuration the loader decodes for an instance of typ that sets only extra:
// the schema's defaults, null where there is none, with extra added or overriding them, and the
// defaults of the nested blocks extra has filled in the same way.
func ConfigOf(typ component.Type, extra map[string]cty.Value) cty.Value {
	return bodyConfig(&typ.Schema().Body, extra)
}

// JSONConfigOf is ConfigOf for attributes written as a JSON object (see FromJSON).
func JSONConfigOf(t testing.TB, typ component.Type, js string) cty.Value {
	t.Helper()
	return ConfigOf(typ, FromJSON(t, js).AsValueMap())
}

// ValuesOf are the values an instance of typ decodes to whose block sets the attributes of the
// JSON object js, with every default filled in as the loader does.
func ValuesOf[V any](t testing.TB, typ component.Type, js string) V {
	t.Helper()
	var v V
	require.NoError(t, decode.Into(JSONConfigOf(t, typ, js), &v))
	return v
}

// BlockConfigOf is ConfigOf for a nested block of typ's schema, named by its path (a block name,
// then names of blocks inside it): the block's defaults with extra.
func BlockConfigOf(typ component.Type, path []string, extra map[string]cty.Value) cty.Value {
	body := &typ.Schema().Body
	for _, name := range path {
		body = &body.Block(name).Body
	}
	return bodyConfig(body, extra)
}

// bodyConfig is a body's defaults with extra, and the defaults of extra's nested blocks.
func bodyConfig(body *schema.Body, extra map[string]cty.Value) cty.Value {
	attrs := component.DefaultsValue(body).AsValueMap()
	for k, v := range extra {
		if blk := body.Block(k); blk != nil && !v.IsNull() && v.IsKnown() {
			v = blockConfig(&blk.Body, v)
		}
		attrs[k] = v
	}
	return cty.ObjectVal(attrs)
}

// blockConfig fills in the defaults of a nested block's value: one object, or a list or tuple of
// them for a repeated block.
func blockConfig(body *schema.Body, v cty.Value) cty.Value {
	ty := v.Type()
	switch {
	case ty.IsObjectType():
		return bodyConfig(body, v.AsValueMap())
	case ty.IsListType() || ty.IsTupleType():
		var elems []cty.Value
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			elems = append(elems, blockConfig(body, e))
		}
		if len(elems) == 0 {
			return v
		}
		return cty.TupleVal(elems)
	}
	return v
}

// Config is a configuration object of defaults (the schema's, as the engine fills them in) with
// extra attributes added or overriding them. Neither map is changed.
func Config(defaults, extra map[string]cty.Value) cty.Value {
	attrs := make(map[string]cty.Value, len(defaults)+len(extra))
	for k, v := range defaults {
		attrs[k] = v
	}
	for k, v := range extra {
		attrs[k] = v
	}
	return cty.ObjectVal(attrs)
}

// Overlay returns base with every field that is not the zero value in over copied over it: the
// values a composite builds from a type's defaults (base, Type.Defaults()), written in a test as a
// struct literal of what differs. A field set to its zero value on purpose (no name prefix) must
// be set on the result.
func Overlay[V any](base, over V) V {
	b, o := reflect.ValueOf(&base).Elem(), reflect.ValueOf(over)
	for i := range o.NumField() {
		if f := o.Field(i); !f.IsZero() {
			b.Field(i).Set(f)
		}
	}
	return base
}

// HandedOver indexes an output's handovers (render.Output.HandedOver) as "<cluster> <kind>
// <namespace>/<name pattern>" to the controller each is handed over to.
func HandedOver(out *render.Output) map[string]string {
	m := map[string]string{}
	for _, h := range out.HandedOver {
		m[h.Cluster+" "+h.Kind+" "+h.Namespace+"/"+h.Name.String()] = h.Controller
	}
	return m
}

// Find returns the first rendered object of a kind and name, or nil if there is none, for tests
// that also check that an object is left out.
func Find(objs []render.Object, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.Object.GetKind() == kind && o.Object.GetName() == name {
			return o.Object
		}
	}
	return nil
}

// MustFind is Find for an object the test needs: it fails the test at once if there is none.
func MustFind(t testing.TB, objs []render.Object, kind, name string) *unstructured.Unstructured {
	t.Helper()
	u := Find(objs, kind, name)
	if u == nil {
		t.Fatalf("no %s %s rendered", kind, name)
	}
	return u
}

// Golden renders each case's configuration with fn, as the instance in names (in.Config is
// replaced), and compares the objects with the golden file testdata/<case>.yaml.
func Golden(t *testing.T, fn render.Func, in render.Input, cases map[string]cty.Value) {
	t.Helper()
	for name, config := range cases {
		t.Run(name, func(t *testing.T) {
			in := in
			in.Config = config
			out, err := fn(in)
			require.NoError(t, err)
			golden.Assert(t, name, out.Objects)
		})
	}
}

// GoldenJSONOf is GoldenJSON for cases that set only some attributes of typ: each configuration
// is what the loader decodes from them (ConfigOf), rendered with typ's render function.
func GoldenJSONOf(t *testing.T, typ component.Type, in render.Input, cases map[string]string) {
	t.Helper()
	configs := make(map[string]cty.Value, len(cases))
	for name, js := range cases {
		configs[name] = JSONConfigOf(t, typ, js)
	}
	Golden(t, typ.Renderer(), in, configs)
}

// GoldenJSON is Golden for cases written as JSON configurations (see FromJSON).
func GoldenJSON(t *testing.T, fn render.Func, in render.Input, cases map[string]string) {
	t.Helper()
	configs := make(map[string]cty.Value, len(cases))
	for name, js := range cases {
		configs[name] = FromJSON(t, js)
	}
	Golden(t, fn, in, configs)
}

// Parts writes a composite's parts in order, with their dependencies, generated secrets, Secret
// copies and objects: the golden form of the garden and seed composites.
func Parts(t testing.TB, parts []render.Component) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, p := range parts {
		fmt.Fprintf(&b, "### part %s (%s) after [%s]\n", p.Name, p.Type, strings.Join(p.DependsOn, ", "))
		if s := p.Secret; s != nil {
			fmt.Fprintf(&b, "# generated %s secret %s/%s in %s, cn %q, dns %v, ca %q, resources %v\n", s.Class, s.Namespace, s.Name, s.Cluster, s.CommonName, s.DNSNames, s.CA, s.Resources)
			continue
		}
		if c := p.Copy; c != nil {
			from := c.FromNamespace + "/" + c.FromName
			if c.BindingKind != "" {
				from = "the Secret of " + c.BindingKind + " " + c.BindingNamespace + "/" + c.BindingName
			}
			if c.FromSelector != "" {
				fmt.Fprintf(&b, "# copies of the Secrets %s in %s of %s to %s in %s\n", c.FromSelector, c.FromNamespace, c.FromCluster, c.Namespace, c.Cluster)
				continue
			}
			fmt.Fprintf(&b, "# copy of %s in %s to Secret %s/%s in %s\n", from, c.FromCluster, c.Namespace, c.Name, c.Cluster)
			continue
		}
		data, err := golden.YAML(p.Objects)
		require.NoError(t, err)
		b.Write(data)
	}
	return b.Bytes()
}

// PackedSecret is the Secret ManagedResource mr refers to (its first secretRef): the Secret's name
// carries a checksum of its contents, so tests find it through the ManagedResource.
func PackedSecret(t testing.TB, objs []render.Object, mr string) *unstructured.Unstructured {
	t.Helper()
	m := MustFind(t, objs, "ManagedResource", mr)
	refs, _, _ := unstructured.NestedSlice(m.Object, "spec", "secretRefs")
	if len(refs) == 0 {
		t.Fatalf("ManagedResource %s refers to no Secret", mr)
	}
	name, _, _ := unstructured.NestedString(refs[0].(map[string]any), "name")
	return MustFind(t, objs, "Secret", name)
}

// Typed finds an object by kind and name and converts it to its Go type, for tests that assert
// typed fields (a Deployment's containers, a PodDisruptionBudget's selector).
func Typed[T any](t testing.TB, objs []render.Object, kind, name string) T {
	t.Helper()
	var out T
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(MustFind(t, objs, kind, name).Object, &out))
	return out
}
