package helmrelease

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

// defaults are the attributes the engine passes for a block that sets only what it must: the
// schema's defaults, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{
	"cluster":          rendertest.Cluster("runtime"),
	"chart":            cty.StringVal("app"),
	"namespace":        cty.StringVal("apps"),
	"create_namespace": cty.False,
}).AsValueMap()

// config builds a configuration as the engine hands it over: every schema attribute present,
// unset ones null.
func config(attrs map[string]cty.Value) cty.Value { return rendertest.Config(defaults, attrs) }

func input(attrs map[string]cty.Value) render.Input {
	return render.Input{Name: "web", Dir: "testdata", Config: config(attrs)}
}

func TestRenderGolden(t *testing.T) {
	tests := []struct {
		name  string
		attrs map[string]cty.Value
	}{
		{"default", nil},
		{"create-namespace", map[string]cty.Value{"create_namespace": cty.True}},
		{"values", map[string]cty.Value{
			"release_name": cty.StringVal("my-app"),
			"version":      cty.StringVal("0.1.0"),
			"values": cty.ObjectVal(map[string]cty.Value{
				"replicaCount":   cty.NumberIntVal(3),
				"image":          cty.ObjectVal(map[string]cty.Value{"tag": cty.StringVal("2.0.0")}),
				"config":         cty.ObjectVal(map[string]cty.Value{"greeting": cty.StringVal("hi"), "extra": cty.StringVal("x")}),
				"serviceAccount": cty.ObjectVal(map[string]cty.Value{"create": cty.False}),
				"widget":         cty.ObjectVal(map[string]cty.Value{"size": cty.NumberIntVal(1000000)}),
			}),
			"sensitive_values": cty.ObjectVal(map[string]cty.Value{
				"auth":   cty.ObjectVal(map[string]cty.Value{"password": cty.StringVal("s3cret")}),
				"config": cty.ObjectVal(map[string]cty.Value{"level": cty.StringVal("debug")}),
			}),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Type.RenderConfig(input(tt.attrs))
			require.NoError(t, err)
			golden.Assert(t, tt.name, out.Objects)
		})
	}
}

func TestOutputs(t *testing.T) {
	out, err := Type.RenderConfig(input(nil))
	require.NoError(t, err)
	assert.Equal(t, map[string]cty.Value{"release_name": cty.StringVal("web"), "namespace": cty.StringVal("apps")}, out.Outputs)

	out, err = Type.RenderConfig(input(map[string]cty.Value{"release_name": cty.StringVal("other")}))
	require.NoError(t, err)
	assert.Equal(t, cty.StringVal("other"), out.Outputs["release_name"])
}

type ref struct{ Kind, Name, Namespace string }

func refs(objs []render.Object) []ref {
	out := make([]ref, len(objs))
	for i, o := range objs {
		out[i] = ref{o.Object.GetKind(), o.Object.GetName(), o.Object.GetNamespace()}
	}
	return out
}

func TestInstallOrder(t *testing.T) {
	out, err := Type.RenderConfig(input(map[string]cty.Value{
		"create_namespace": cty.True,
		"sensitive_values": cty.ObjectVal(map[string]cty.Value{
			"auth": cty.ObjectVal(map[string]cty.Value{"password": cty.StringVal("s3cret")}),
		}),
	}))
	require.NoError(t, err)
	// crds/ first, the namespace, pre-install hooks by weight (the Job's -1 before the
	// ConfigMap's 0, against kind order), the templates in helm's kind order (custom kinds
	// last), post-install hooks. The test Pod and the pre-delete Job are not rendered.
	assert.Equal(t, []ref{
		{"CustomResourceDefinition", "widgets.example.com", ""},
		{"Namespace", "apps", ""},
		{"Job", "web-app-migrate", "apps"},
		{"ConfigMap", "web-app-settings", "apps"},
		{"ServiceAccount", "web-app", "apps"},
		{"Secret", "web-app", "apps"},
		{"ConfigMap", "web-app", "apps"},
		{"ClusterRole", "web-app-apps", ""},
		{"Service", "web-app", "apps"},
		{"Deployment", "web-app", "apps"},
		{"Widget", "web-app", "apps"},
		{"ConfigMap", "web-app-installed", "apps"},
	}, refs(out.Objects))
	for _, o := range out.Objects {
		assert.Equal(t, "runtime", o.Cluster)
		assert.Equal(t, "apps", o.DefaultNamespace)
	}
}

func TestTemplatesSeeTheRelease(t *testing.T) {
	out, err := Type.RenderConfig(input(nil))
	require.NoError(t, err)
	for _, o := range out.Objects {
		switch o.Object.GetName() {
		case "web-app":
			if o.Object.GetKind() == "Deployment" {
				assert.Equal(t, "Helm", o.Object.GetLabels()["app.kubernetes.io/managed-by"], "Release.Service")
				assert.Equal(t, "web", o.Object.GetLabels()["app.kubernetes.io/instance"], "Release.Name")
			}
		case "web-app-installed":
			data := o.Object.Object["data"].(map[string]any)
			assert.Equal(t, KubeVersion, data["kubeVersion"])
			assert.Equal(t, "1", data["revision"])
		}
	}
}

func TestChartNamespaceIsNotDuplicated(t *testing.T) {
	dir := t.TempDir()
	writeChart(t, dir, "ns", map[string]string{
		"templates/ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {{ .Release.Namespace }}\n",
	})
	out, err := Type.RenderConfig(render.Input{Name: "r", Dir: dir, Config: config(map[string]cty.Value{
		"chart": cty.StringVal("ns"), "create_namespace": cty.True,
	})})
	require.NoError(t, err)
	assert.Equal(t, []ref{{"Namespace", "apps", ""}}, refs(out.Objects))
}

func TestArchive(t *testing.T) {
	ch, err := loader.Load(filepath.Join("testdata", "app"))
	require.NoError(t, err)
	dir := t.TempDir()
	archive, err := chartutil.Save(ch, dir)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "app-0.1.0.tgz"), archive)

	fromDir, err := Type.RenderConfig(input(nil))
	require.NoError(t, err)
	for _, chart := range []string{"app-0.1.0.tgz", archive} { // relative to Dir, and absolute
		in := input(map[string]cty.Value{"chart": cty.StringVal(chart), "version": cty.StringVal("0.1.0")})
		in.Dir = dir
		fromArchive, err := Type.RenderConfig(in)
		require.NoError(t, err)
		assert.Equal(t, fromDir.Objects, fromArchive.Objects)
	}
}

func TestDeterministic(t *testing.T) {
	first, err := Type.RenderConfig(input(map[string]cty.Value{"create_namespace": cty.True}))
	require.NoError(t, err)
	want, err := golden.YAML(first.Objects)
	require.NoError(t, err)
	for range 5 {
		again, err := Type.RenderConfig(input(map[string]cty.Value{"create_namespace": cty.True}))
		require.NoError(t, err)
		got, err := golden.YAML(again.Objects)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	}
}

func TestValuesAreNotModified(t *testing.T) {
	plain := map[string]any{"config": map[string]any{"greeting": "hi"}}
	sensitive := map[string]any{"config": map[string]any{"level": "debug"}}
	_, err := Objects(Values{
		Cluster: decode.Cluster{Name: "runtime"}, Chart: "app", Namespace: "apps", ReleaseName: "web", Paths: landscapefs.New("testdata", landscapefs.Policy{}),
		Values: plain, SensitiveValues: sensitive,
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"config": map[string]any{"greeting": "hi"}}, plain)
	assert.Equal(t, map[string]any{"config": map[string]any{"level": "debug"}}, sensitive)
}

// writeChart writes a minimal chart named name with the given files into dir.
func writeChart(t *testing.T, dir, name string, files map[string]string) {
	t.Helper()
	files["Chart.yaml"] = "apiVersion: v2\nname: " + name + "\nversion: 1.0.0\n"
	for f, content := range files {
		path := filepath.Join(dir, name, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
}

// In confined mode a chart directory with a link out of the landscape directory is refused: Helm
// follows links, and a template could otherwise print what the link points to.
func TestConfinedChartDirectory(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "landscape")
	require.NoError(t, os.WriteFile(filepath.Join(parent, "secret"), []byte("s3cr3t"), 0o600))
	writeChart(t, dir, "leaky", map[string]string{
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: leak\ndata:\n  secret: {{ .Files.Get \"files/secret\" | quote }}\n",
	})
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "leaky", "files"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(parent, "secret"), filepath.Join(dir, "leaky", "files", "secret")))
	in := render.Input{Name: "r", Dir: dir, Config: config(map[string]cty.Value{"chart": cty.StringVal("leaky")})}

	out, err := Type.RenderConfig(in)
	require.NoError(t, err, "outside confined mode the chart is the operator's to trust")
	require.Len(t, out.Objects, 1)

	in.Paths = landscapefs.New(dir, landscapefs.Policy{Confined: true})
	_, err = Type.RenderConfig(in)
	require.Error(t, err)
	assert.ErrorIs(t, err, landscapefs.ErrOutside)
	assert.Contains(t, err.Error(), filepath.Join("leaky", "files", "secret")+" is a symbolic link")
	assert.NotContains(t, err.Error(), "s3cr3t")
}

// A release with sensitive_values hides the values of its ConfigMaps and Secrets, not their
// keys: what a template makes of a sensitive value cannot always be recognised. output_safe
// shows them again; a release without sensitive_values marks nothing.
func TestSensitiveValuesHideConfigMapAndSecretValues(t *testing.T) {
	sensitive := cty.ObjectVal(map[string]cty.Value{
		"auth":   cty.ObjectVal(map[string]cty.Value{"password": cty.StringVal("s3cret")}),
		"config": cty.ObjectVal(map[string]cty.Value{"level": cty.StringVal("debug")}),
	})
	marked := func(attrs map[string]cty.Value) map[string]*render.Sensitivity {
		out, err := Type.RenderConfig(input(attrs))
		require.NoError(t, err)
		m := map[string]*render.Sensitivity{}
		for _, o := range out.Objects {
			if o.Sensitive != nil {
				m[o.Object.GetKind()+" "+o.Object.GetName()] = o.Sensitive
			}
		}
		return m
	}

	got := marked(map[string]cty.Value{"sensitive_values": sensitive})
	require.Equal(t, []string{"ConfigMap web-app", "ConfigMap web-app-installed", "ConfigMap web-app-settings", "Secret web-app"}, slices.Sorted(maps.Keys(got)))
	cm := got["ConfigMap web-app"]
	assert.True(t, cm.Field("data").Field("level").Value, "a value is hidden")
	assert.False(t, cm.Field("data").Field("level").Key, "its key is not")
	assert.Nil(t, cm.Field("metadata"), "nor is anything outside the data")
	assert.True(t, got["Secret web-app"].Field("stringData").Field("password").Value)

	assert.Empty(t, marked(map[string]cty.Value{"sensitive_values": sensitive, "output_safe": cty.True}), "output_safe shows them")
	assert.Empty(t, marked(map[string]cty.Value{"values": cty.ObjectVal(map[string]cty.Value{"config": cty.ObjectVal(map[string]cty.Value{"level": cty.StringVal("debug")})})}),
		"without sensitive_values nothing is hidden")
}
