package controllerdeployment

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

var cluster = decode.Cluster{Name: "virtual"}

func TestRenderGolden(t *testing.T) {
	rendertest.GoldenJSONOf(t, Type, render.Input{Name: "os-gardenlinux", Dir: "testdata"}, map[string]string{
		// Gardener's "ControllerRegistration" docs/extensions/registration.md: the os-gardenlinux
		// example.
		"oci-ref": `{"cluster": {"name": "virtual"}, "oci_repository": {"ref": "registry.example.com/os-gardenlinux/charts/os-gardenlinux:1.0.0"},
			"values": {"foo": "bar"}}`,
		"oci-digest": `{"cluster": {"name": "virtual"}, "name": "provider-local",
			"oci_repository": {"repository": "registry.example.com/charts/provider-local", "tag": "v1.2.3",
				"digest": "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
			"values": {"replicas": 2, "ratio": 0.5, "image": {"tag": "v1.2.3"}, "enabled": true}}`,
		"chart-archive": `{"cluster": {"name": "virtual"}, "chart_archive": "chart.tgz"}`,
	})
}

func TestFacts(t *testing.T) {
	objs, err := Objects(Values{Cluster: cluster, Name: "d", OCIRepository: &OCIRepository{Ref: "r:1"}, HelmValues: map[string]any{"replicas": float64(2)}})
	require.NoError(t, err)
	u := objs[0].Object
	assert.Equal(t, "core.gardener.cloud/v1", u.GetAPIVersion(), "the v1 API carries the helm field (Gardener's ControllerDeployment in docs/api-reference/core-v1.md)")
	assert.Equal(t, "ControllerDeployment", u.GetKind())
	assert.Empty(t, u.GetNamespace(), "ControllerDeployment is cluster-scoped")
	assert.NotContains(t, u.Object, "spec")
	helm := u.Object["helm"].(map[string]any)
	assert.Equal(t, map[string]any{"ref": "r:1"}, helm["ociRepository"])
	assert.Equal(t, map[string]any{"replicas": int64(2)}, helm["values"], "whole numbers are int64, as the API server returns them")
}

func TestChartArchiveIsBase64OfTheFile(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Name: "d", Dir: "testdata", Config: rendertest.JSONConfigOf(t, Type, `{"cluster": {"name": "virtual"}, "chart_archive": "chart.tgz"}`)})
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join("testdata", "chart.tgz"))
	require.NoError(t, err)
	assert.Equal(t, base64.StdEncoding.EncodeToString(data), out.Objects[0].Object.Object["helm"].(map[string]any)["rawChart"])
	assert.Equal(t, "d", out.Outputs["name"].AsString())
}

func TestRenderErrors(t *testing.T) {
	tests := []struct {
		name, config, want string
	}{
		{"missing file", `{"cluster": {"name": "virtual"}, "chart_archive": "nope.tgz"}`, "chart archive nope.tgz"},
		{"not gzip", `{"cluster": {"name": "virtual"}, "chart_archive": "not-a-chart.txt"}`, "is not gzip-compressed"},
		{"archive and raw chart", `{"cluster": {"name": "virtual"}, "chart_archive": "chart.tgz", "raw_chart": "H4sI"}`, "set chart_archive or raw_chart, not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Type.RenderConfig(render.Input{Name: "d", Dir: "testdata", Config: rendertest.FromJSON(t, tt.config)})
			assert.ErrorContains(t, err, tt.want)
		})
	}
	_, err := Type.RenderConfig(render.Input{Name: "d", Dir: "testdata", Config: rendertest.JSONConfigOf(t, Type, `{"cluster": {"name": "virtual"}, "chart_archive": "${known after apply}"}`)})
	assert.ErrorIs(t, err, render.ErrDeferred)
}

func TestExactlyOneChartSource(t *testing.T) {
	oci := &OCIRepository{Ref: "r:1"}
	tests := []struct {
		name string
		v    Values
		want string
	}{
		{"none", Values{}, "set exactly one of a raw chart and an OCI repository; none is set"},
		{"both", Values{RawChart: "H4sI", OCIRepository: oci}, "set exactly one of a raw chart and an OCI repository, not both"},
		{"unread archive", Values{ChartArchive: "chart.tgz"}, "chart_archive is read by Render"},
		{"not base64", Values{RawChart: "not base64!"}, "raw chart is not base64"},
		{"ref and repository", Values{OCIRepository: &OCIRepository{Ref: "r:1", Repository: "r"}}, "either ref or repository"},
		{"empty oci", Values{OCIRepository: &OCIRepository{}}, "needs ref, or repository with tag or digest"},
		{"repository without tag", Values{OCIRepository: &OCIRepository{Repository: "r"}}, "OCI repository r needs a tag or a digest"},
		{"bad digest", Values{OCIRepository: &OCIRepository{Repository: "r", Digest: "md5:x"}}, `OCI digest "md5:x" does not start with sha256:`},
		{"bad name", Values{Name: "D", OCIRepository: oci}, `controller deployment name "D" is invalid`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.v.Name == "" {
				tt.v.Name = "d"
			}
			_, err := Objects(tt.v)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
