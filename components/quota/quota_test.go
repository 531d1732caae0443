package quota

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

var cluster = decode.Cluster{Name: "virtual"}

func TestRenderGolden(t *testing.T) {
	rendertest.GoldenJSONOf(t, Type, render.Input{Name: "local"}, map[string]string{
		"minimal": `{"cluster": {"name": "virtual"}, "metrics": {"cpu": "200"}}`,
		"trial": `{"cluster": {"name": "virtual"}, "name": "trial-secret-quota", "namespace": "garden-trial", "scope": "Secret",
			"cluster_lifetime_days": 14,
			"metrics": {"cpu": "200", "gpu": "20", "memory": "4000Gi", "storage.standard": "8000Gi", "storage.premium": "2000Gi", "loadbalancer": "100"}}`,
	})
}

func TestScopes(t *testing.T) {
	for scope, want := range map[string]map[string]any{
		"":                 {"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Project"},
		"Project":          {"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Project"},
		"Secret":           {"apiVersion": "v1", "kind": "Secret"},
		"WorkloadIdentity": {"apiVersion": "security.gardener.cloud/v1alpha1", "kind": "WorkloadIdentity"},
	} {
		t.Run(scope, func(t *testing.T) {
			objs, err := Objects(values(Values{Cluster: cluster, Name: "q", Scope: scope}))
			require.NoError(t, err)
			u := objs[0].Object
			assert.Equal(t, "Quota", u.GetKind())
			assert.Equal(t, "core.gardener.cloud/v1beta1", u.GetAPIVersion())
			assert.Equal(t, "garden", u.GetNamespace())
			assert.Equal(t, want, u.Object["spec"].(map[string]any)["scope"])
		})
	}
}

func TestMetricsAreCanonical(t *testing.T) {
	days := int64(7)
	objs, err := Objects(values(Values{Cluster: cluster, Name: "q", ClusterLifetimeDays: &days, Metrics: map[string]string{"cpu": "1000m", "memory": "1024Mi"}}))
	require.NoError(t, err)
	spec := objs[0].Object.Object["spec"].(map[string]any)
	assert.Equal(t, map[string]any{"cpu": "1", "memory": "1Gi"}, spec["metrics"])
	assert.Equal(t, int64(7), spec["clusterLifetimeDays"])
}

func TestOutputs(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Name: "trial", Config: rendertest.JSONConfigOf(t, Type, `{"cluster": {"name": "virtual"}, "namespace": "garden-dev"}`)})
	require.NoError(t, err)
	assert.Equal(t, "trial", out.Outputs["name"].AsString())
	assert.Equal(t, "garden-dev", out.Outputs["namespace"].AsString())
}

func TestErrors(t *testing.T) {
	zero := int64(0)
	tests := []struct {
		name string
		v    Values
		want string
	}{
		{"bad scope", values(Values{Name: "q", Scope: "Shoot"}), `scope "Shoot" is not one of Project, Secret, WorkloadIdentity`},
		{"unknown metric", values(Values{Name: "q", Metrics: map[string]string{"pods": "10"}}), `metric "pods" is not one of cpu, gpu, memory, storage.standard, storage.premium, loadbalancer`},
		{"bad quantity", values(Values{Name: "q", Metrics: map[string]string{"cpu": "lots"}}), `metric cpu: "lots" is not a quantity`},
		{"negative quantity", values(Values{Name: "q", Metrics: map[string]string{"cpu": "-1"}}), `metric cpu: "-1" is negative`},
		{"zero lifetime", values(Values{Name: "q", ClusterLifetimeDays: &zero}), "cluster lifetime of 0 days"},
		{"bad name", values(Values{Name: "Q"}), `quota name "Q" is invalid`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Objects(tt.v)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
