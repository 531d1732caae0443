package helmrelease

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/render"
)

func TestErrors(t *testing.T) {
	broken := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(broken, "nochart", "templates"), 0o755))
	writeChart(t, broken, "badyaml", map[string]string{"templates/x.yaml": "kind: [\n"})
	writeChart(t, broken, "noname", map[string]string{"templates/x.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: x-\n"})
	writeChart(t, broken, "library", map[string]string{})
	require.NoError(t, os.WriteFile(filepath.Join(broken, "library", "Chart.yaml"), []byte("apiVersion: v2\nname: library\nversion: 1.0.0\ntype: library\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(broken, "junk.tgz"), []byte("not a tarball"), 0o644))

	tests := []struct {
		name  string
		dir   string
		attrs map[string]cty.Value
		want  string
	}{
		{"oci", "testdata", map[string]cty.Value{"chart": cty.StringVal("oci://registry.example.com/charts/app")},
			"chart oci://registry.example.com/charts/app: OCI charts are not supported yet"},
		{"not found", "testdata", map[string]cty.Value{"chart": cty.StringVal("missing")}, "chart missing: not found at testdata/missing"},
		{"no Chart.yaml", broken, map[string]cty.Value{"chart": cty.StringVal("nochart")}, "chart nochart: invalid chart"},
		{"not an archive", broken, map[string]cty.Value{"chart": cty.StringVal("junk.tgz")}, "chart junk.tgz: invalid chart"},
		{"library chart", broken, map[string]cty.Value{"chart": cty.StringVal("library")}, "chart library: has type library and cannot be installed"},
		{"version mismatch", "testdata", map[string]cty.Value{"version": cty.StringVal("0.2.0")}, "chart app: has version 0.1.0, not the configured 0.2.0"},
		{"template fails", "testdata", map[string]cty.Value{"values": cty.ObjectVal(map[string]cty.Value{"failMe": cty.True})},
			"chart app: rendering: execution error at (app/templates/deployment.yaml:2:4): failMe is set"},
		{"schema", "testdata", map[string]cty.Value{"values": cty.ObjectVal(map[string]cty.Value{"replicaCount": cty.NumberIntVal(-1)})},
			"chart app: values: values don't meet the specifications of the schema(s)"},
		{"invalid yaml", broken, map[string]cty.Value{"chart": cty.StringVal("badyaml")}, "chart badyaml: rendered templates: YAML parse error on badyaml/templates/x.yaml"},
		{"no name", broken, map[string]cty.Value{"chart": cty.StringVal("noname")}, `chart noname: noname/templates/x.yaml: document 1: object ConfigMap "" has no apiVersion, kind or metadata.name`},
		{"release name", "testdata", map[string]cty.Value{"release_name": cty.StringVal("Web_App")}, `release name "Web_App"`},
		{"values not an object", "testdata", map[string]cty.Value{"values": cty.ListVal([]cty.Value{cty.StringVal("x")})}, "configuration:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Type.RenderConfig(render.Input{Name: "web", Dir: tt.dir, Config: config(tt.attrs)})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestRequiredValues(t *testing.T) {
	_, err := Objects(Values{Chart: "app", Paths: landscapefs.New("testdata", landscapefs.Policy{}), ReleaseName: "web"})
	assert.EqualError(t, err, "namespace is required")
	_, err = Objects(Values{Chart: "app", Paths: landscapefs.New("testdata", landscapefs.Policy{}), Namespace: "apps"})
	assert.EqualError(t, err, "release name is required")
	_, err = Objects(Values{Paths: landscapefs.New("testdata", landscapefs.Policy{}), Namespace: "apps", ReleaseName: "web"})
	assert.EqualError(t, err, "chart is required")
}

func TestUnknownChartIsDeferred(t *testing.T) {
	_, err := Type.RenderConfig(input(map[string]cty.Value{"chart": cty.StringVal("charts/" + render.UnknownString)}))
	assert.ErrorIs(t, err, render.ErrDeferred)
}

func TestErrorsDoNotShowSensitiveValues(t *testing.T) {
	const secret = "t0p-s3cret-value"
	for _, attrs := range []map[string]cty.Value{
		{"sensitive_values": cty.ObjectVal(map[string]cty.Value{
			"auth": cty.ObjectVal(map[string]cty.Value{"password": cty.StringVal(secret)}), "failMe": cty.True,
		})},
		{"sensitive_values": cty.ObjectVal(map[string]cty.Value{"replicaCount": cty.StringVal(secret)})},
		{"sensitive_values": cty.ObjectVal(map[string]cty.Value{"service": cty.ObjectVal(map[string]cty.Value{
			"port": cty.StringVal(secret + ": [ {"),
		})})},
	} {
		_, err := Type.RenderConfig(input(attrs))
		require.Error(t, err)
		assert.NotContains(t, err.Error(), secret)
	}
}
