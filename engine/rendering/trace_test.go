package rendering

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/schema"
)

const traceSecret = "s3cret-token"

// transformInstance is an instance of the "transform" type with a sensitive string, number,
// boolean and map (whose key is sensitive), and a plain name.
func transformInstance() *config.Instance {
	s := &schema.Schema{Kind: schema.KindComponent, Type: "transform", Body: schema.Body{Attributes: []schema.Attribute{
		{Name: "cluster", Type: cty.DynamicPseudoType, References: schema.RefCluster, Required: true},
	}}, Outputs: []schema.Output{{Name: "shouted", Type: cty.String}, {Name: "plain", Type: cty.String}}}
	cfg := cty.ObjectVal(map[string]cty.Value{
		"cluster": cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime")}),
		"name":    cty.StringVal("app"),
		"secret":  cty.StringVal(traceSecret).Mark(config.SensitiveMark),
		"number":  cty.NumberIntVal(7).Mark(config.SensitiveMark),
		"flag":    cty.True.Mark(config.SensitiveMark),
		"labels":  cty.MapVal(map[string]cty.Value{"team-" + traceSecret: cty.StringVal("present")}).Mark(config.SensitiveMark),
	})
	return &config.Instance{
		Addr: "component.transform.app", Name: "app", Config: cfg,
		Value: cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("app"), "shouted": cty.UnknownVal(cty.String), "plain": cty.UnknownVal(cty.String)}),
		Block: &config.Block{Addr: "component.transform.app", Kind: schema.KindComponent, Type: "transform", Name: "app", Schema: s},
	}
}

func object(apiVersion, kind, name string, fields map[string]any) render.Object {
	obj := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name, "namespace": "apps"}}
	for k, v := range fields {
		obj[k] = v
	}
	return render.Object{Cluster: "runtime", Object: &unstructured.Unstructured{Object: obj}}
}

// transform makes of its sensitive values what render functions do: it upper-cases, hashes,
// prefixes and embeds them, uses them as numbers, booleans, keys and names, and packs them
// into a part.
func transform(in render.Input) (*render.Output, error) {
	cfg := in.Config
	secret := cfg.GetAttr("secret").AsString()
	number, _ := cfg.GetAttr("number").AsBigFloat().Int64()
	labels := map[string]any{"app": cfg.GetAttr("name").AsString()}
	for k := range cfg.GetAttr("labels").AsValueMap() {
		labels[k] = "present"
	}
	sum := sha256.Sum256([]byte(secret))
	checksum := hex.EncodeToString(sum[:])[:8]
	settings := object("v1", "ConfigMap", "settings", map[string]any{"data": map[string]any{
		"shouted": strings.ToUpper(secret), "mode": "fast", "digest": checksum, "key-" + secret: "present",
	}})
	settings.Object.SetLabels(map[string]string{"app": "app"})
	for k, v := range labels {
		lbls := settings.Object.GetLabels()
		lbls[k] = v.(string)
		settings.Object.SetLabels(lbls)
	}
	return &render.Output{
		Objects: []render.Object{
			settings,
			object("apps/v1", "Deployment", "app", map[string]any{"spec": map[string]any{
				"replicas": number, "paused": cfg.GetAttr("flag").True(), "minReadySeconds": int64(5),
				"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
					"name": "app", "args": []any{"--mode=fast", "--token=" + strings.ToUpper(secret)},
				}}}},
			}}),
			object("v1", "ConfigMap", "settings-"+checksum, map[string]any{"data": map[string]any{"mode": "fast"}}),
		},
		Components: []render.Component{{Name: "inner", Type: "inner", Objects: []render.Object{
			object("v1", "ConfigMap", "inner", map[string]any{"data": map[string]any{"token": "Bearer " + strings.ToUpper(secret), "mode": "fast"}}),
		}}},
		Outputs:  map[string]cty.Value{"shouted": cty.StringVal(strings.ToUpper(secret)), "plain": cty.StringVal("fast")},
		Notices:  []string{"the token " + strings.ToUpper(secret) + " expires soon", "nothing else"},
		Revisit:  time.Time{},
		Lifetime: nil,
	}, nil
}

func renderTransform(t *testing.T, fn render.Func) (*Renderer, cty.Value) {
	t.Helper()
	r := NewRenderer(render.Registry{"transform": fn}, t.TempDir())
	v, diags := r.instance(transformInstance())
	require.False(t, diags.HasErrors(), "%v", diags)
	return r, v
}

// A second rendering with other sensitive values finds what the render function made of them,
// whatever their type and however it transformed them.
func TestTraceFindsWhatDependsOnSensitiveValues(t *testing.T) {
	r, v := renderTransform(t, transform)
	rd := r.Rendered["component.transform.app"]
	require.Len(t, rd.Objects, 3)

	settings := rd.Objects[0].Sensitive
	require.NotNil(t, settings)
	assert.True(t, settings.Path("data", "shouted").Value, "an upper-cased secret")
	assert.True(t, settings.Path("data", "digest").Value, "a hash of it")
	assert.True(t, settings.Path("data", "key-"+traceSecret).Key, "a key made of it")
	assert.True(t, settings.Path("metadata", "labels", "team-"+traceSecret).Key, "a sensitive map's key")
	assert.False(t, settings.Path("data", "mode").Any(), "what does not depend on it")
	assert.False(t, settings.Path("metadata", "labels", "app").Any())
	assert.False(t, settings.Path("metadata", "name").Any())

	deployment := rd.Objects[1].Sensitive
	assert.True(t, deployment.Path("spec", "replicas").Value, "a number")
	assert.True(t, deployment.Path("spec", "paused").Value, "a boolean")
	assert.True(t, deployment.Path("spec", "template", "spec", "containers", 0, "args", 1).Value, "a list element")
	assert.False(t, deployment.Path("spec", "template", "spec", "containers", 0, "args", 0).Any())
	assert.False(t, deployment.Path("spec", "minReadySeconds").Any())

	named := rd.Objects[2].Sensitive
	assert.True(t, named.Path("metadata", "name").Value, "a name derived from it")
	assert.Contains(t, named.Strings, rd.Objects[2].Object.GetName()[len("settings-"):], "only the part of the name that depends on it")

	inner := r.Rendered["component.transform.app.inner"]
	require.NotNil(t, inner)
	assert.True(t, inner.Objects[0].Sensitive.Path("data", "token").Value, "in a part")
	assert.False(t, inner.Objects[0].Sensitive.Path("data", "mode").Any())

	assert.Contains(t, rd.Secrets, strings.ToUpper(traceSecret), "a long derived string is a secret of the landscape")
	assert.NotContains(t, rd.Secrets, "7", "a short one is hidden only where it stands")
	assert.Equal(t, []string{"the token (sensitive value) expires soon", "nothing else"}, rd.Notices)

	assert.True(t, v.GetAttr("shouted").HasMark(config.SensitiveMark), "an output derived from it is sensitive for its readers")
	assert.False(t, v.GetAttr("plain").IsMarked())
	assert.False(t, r.Rendered["component.transform.app"].Objects[0].Object.Object["data"].(map[string]any)["shouted"] == "", "the objects are the real ones")
}

// A render function that refuses every other value cannot be traced: every value of its
// objects is hidden, its outputs are sensitive and the plan says so.
func TestUntraceableRenderingHidesEveryValue(t *testing.T) {
	strict := func(in render.Input) (*render.Output, error) {
		if in.Config.GetAttr("secret").AsString() != traceSecret {
			return nil, errors.New("the token " + in.Config.GetAttr("secret").AsString() + " is not the expected one")
		}
		return transform(in)
	}
	r, v := renderTransform(t, strict)
	rd := r.Rendered["component.transform.app"]
	for _, o := range rd.Objects {
		s := o.Sensitive
		require.NotNil(t, s, o.Object.GetName())
		assert.False(t, s.Path("metadata", "name").Any(), "the identity stays")
		assert.True(t, s.Field("spec").Any() || s.Field("data").Any(), o.Object.GetName())
	}
	assert.True(t, rd.Objects[0].Sensitive.Path("metadata", "labels", "app").Value)
	assert.True(t, rd.Objects[0].Sensitive.Path("data", "mode").Value, "every value")
	assert.True(t, r.Rendered["component.transform.app.inner"].Objects[0].Sensitive.Path("data", "mode").Value)
	assert.True(t, v.GetAttr("plain").HasMark(config.SensitiveMark), "every output")
	require.Len(t, rd.Notices, 3)
	assert.Contains(t, rd.Notices[2], "every value of its objects is hidden")
	assert.NotContains(t, rd.Notices[2], traceSecret)
}

// An instance without sensitive values is rendered once and marks nothing.
func TestNoSensitiveValuesNoTrace(t *testing.T) {
	calls := 0
	r := NewRenderer(render.Registry{"transform": func(in render.Input) (*render.Output, error) {
		calls++
		return &render.Output{Objects: []render.Object{object("v1", "ConfigMap", "plain", map[string]any{"data": map[string]any{"a": "b"}})}}, nil
	}}, t.TempDir())
	inst := transformInstance()
	inst.Config, _ = inst.Config.UnmarkDeep()
	_, diags := r.instance(inst)
	require.False(t, diags.HasErrors())
	assert.Equal(t, 1, calls)
	assert.Nil(t, r.Rendered["component.transform.app"].Objects[0].Sensitive)
}

// Sensitive values that are not known yet, and those of cluster references (a kubeconfig path
// the engine connects with), give a render function nothing to trace: it renders once.
func TestNothingToTraceRendersOnce(t *testing.T) {
	for name, cfg := range map[string]cty.Value{
		"unknown": cty.ObjectVal(map[string]cty.Value{
			"cluster": cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime")}),
			"secret":  cty.UnknownVal(cty.String).Mark(config.SensitiveMark),
		}),
		"cluster": cty.ObjectVal(map[string]cty.Value{
			"cluster": cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime"), "kubeconfig": cty.StringVal("/secret/path").Mark(config.SensitiveMark)}),
		}),
	} {
		t.Run(name, func(t *testing.T) {
			calls := 0
			r := NewRenderer(render.Registry{"transform": func(in render.Input) (*render.Output, error) {
				calls++
				return &render.Output{Objects: []render.Object{object("v1", "ConfigMap", "plain", nil)}}, nil
			}}, t.TempDir())
			inst := transformInstance()
			inst.Config = cfg
			_, diags := r.instance(inst)
			require.False(t, diags.HasErrors())
			assert.Equal(t, 1, calls)
		})
	}
}

func TestAlternative(t *testing.T) {
	cfg := cty.ObjectVal(map[string]cty.Value{
		"name":   cty.StringVal("app-1"),
		"secret": cty.StringVal("ab-9Z"),
		"port":   cty.NumberIntVal(8080),
		"flag":   cty.True,
		"labels": cty.MapVal(map[string]cty.Value{"k": cty.StringVal("v")}),
		"list":   cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}),
	})
	marked := []cty.Path{cty.GetAttrPath("secret"), cty.GetAttrPath("port"), cty.GetAttrPath("flag"), cty.GetAttrPath("labels"),
		cty.GetAttrPath("list").Index(cty.NumberIntVal(1)), cty.GetAttrPath("labels").Index(cty.StringVal("k"))}
	first := alternative(cfg, marked, 0)
	assert.Equal(t, "app-1", first.GetAttr("name").AsString(), "unmarked values stay")
	assert.Equal(t, "no-4M", first.GetAttr("secret").AsString(), "letters and digits rotate, the rest stays")
	assert.True(t, first.GetAttr("port").RawEquals(cty.NumberIntVal(8081)))
	assert.True(t, first.GetAttr("flag").False())
	assert.Equal(t, map[string]cty.Value{"x": cty.StringVal("i")}, first.GetAttr("labels").AsValueMap(), "keys too on the first attempt")
	assert.Equal(t, []cty.Value{cty.StringVal("a"), cty.StringVal("o")}, first.GetAttr("list").AsValueSlice())

	second := alternative(cfg, marked, 1)
	assert.Equal(t, "hi-2G", second.GetAttr("secret").AsString())
	assert.True(t, second.GetAttr("port").RawEquals(cty.NumberIntVal(8079)))
	assert.Equal(t, map[string]cty.Value{"k": cty.StringVal("c")}, second.GetAttr("labels").AsValueMap(), "keys stay on the second")
	assert.Equal(t, "--x", rotate("--", 0), "a string without letters or digits still changes")
}

func TestMiddle(t *testing.T) {
	assert.Equal(t, "3a23c6e9", middle("managedresource-case-3a23c6e9", "managedresource-case-10c0da71"))
	assert.Equal(t, "secret", middle("secret", "other"))
	assert.Equal(t, "", middle("same", "same"))
	assert.Equal(t, "x", middle("abxcd", "abcd"))
}

// Strings are secrets of the whole landscape only where they differ from their counterpart at
// the same place; what a sensitive flag adds or removes is hidden where it stands.
func TestCompareDerivesOnlyCounterparts(t *testing.T) {
	container := func(name string) any {
		return map[string]any{"name": name, "image": "registry.local/app:1.0.0"}
	}
	real := []render.Object{object("apps/v1", "Deployment", "app", map[string]any{"spec": map[string]any{
		"containers": []any{container("app"), container("sidecar")}, "token": "Bearer ABCDEFGH",
	}})}
	alt := []render.Object{object("apps/v1", "Deployment", "app", map[string]any{"spec": map[string]any{
		"containers": []any{container("app")}, "token": "Bearer NOPQRSTU",
	}})}
	marks, derived := compareObjects(real, alt)
	require.Len(t, marks, 1)
	assert.True(t, marks[0].Path("spec", "containers").Value)
	assert.True(t, marks[0].Path("spec", "token").Value)
	assert.Equal(t, []string{"ABCDEFGH"}, derived)
	assert.Contains(t, marks[0].Strings, "sidecar", "for the object's own messages")
}
