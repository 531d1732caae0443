package secretbinding

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
		"minimal": `{"cluster": {"name": "virtual"}, "secret_ref": "local-credentials", "provider_type": "local"}`,
		"customised": `{"cluster": {"name": "virtual"}, "name": "aws", "namespace": "garden-dev", "secret_ref": "aws-credentials",
			"secret_namespace": "garden-shared", "provider_type": "aws",
			"quota": [{"name": "trial"}, {"name": "global", "namespace": "garden"}]}`,
	})
}

func TestFacts(t *testing.T) {
	objs, err := Objects(values(Values{Cluster: cluster, Name: "b", Namespace: "garden-dev", SecretRef: "s", ProviderType: "aws", Quotas: []QuotaRef{{Name: "q"}}}))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	u := objs[0].Object
	assert.Equal(t, "virtual", objs[0].Cluster)
	assert.Equal(t, "core.gardener.cloud/v1beta1", u.GetAPIVersion())
	assert.Equal(t, "SecretBinding", u.GetKind())
	assert.Equal(t, "garden-dev", u.GetNamespace())
	assert.NotContains(t, u.Object, "spec", "a SecretBinding has no spec (Gardener's SecretBinding in docs/api-reference/core.md)")
	assert.Equal(t, map[string]any{"name": "s", "namespace": "garden-dev"}, u.Object["secretRef"], "the secret defaults to the binding's namespace")
	assert.Equal(t, map[string]any{"type": "aws"}, u.Object["provider"])
	assert.Equal(t, []any{map[string]any{"name": "q", "namespace": "garden-dev"}}, u.Object["quotas"])
}

func TestOutputs(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Name: "local", Config: rendertest.JSONConfigOf(t, Type, `{"cluster": {"name": "virtual"}, "secret_ref": "s", "provider_type": "local"}`)})
	require.NoError(t, err)
	assert.Equal(t, "local", out.Outputs["name"].AsString())
	assert.Equal(t, "garden", out.Outputs["namespace"].AsString())
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		v    Values
		want string
	}{
		{"no secret", values(Values{Name: "b", ProviderType: "aws"}), "secret_ref is required"},
		{"no provider", values(Values{Name: "b", SecretRef: "s"}), "provider_type is required"},
		{"bad name", values(Values{Name: "B_1", SecretRef: "s", ProviderType: "aws"}), `name "B_1" is invalid`},
		{"quota without name", values(Values{Name: "b", SecretRef: "s", ProviderType: "aws", Quotas: []QuotaRef{{}}}), "quota reference without a name"},
		{"quota twice", values(Values{Name: "b", SecretRef: "s", ProviderType: "aws", Quotas: []QuotaRef{{Name: "q"}, {Name: "q", Namespace: "garden"}}}), "quota garden/q is referenced twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Objects(tt.v)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestUnknownNamespaceIsDeferred(t *testing.T) {
	_, err := Type.RenderConfig(render.Input{Name: "b", Config: rendertest.JSONConfigOf(t, Type, `{"cluster": {"name": "virtual"}, "namespace": "${known after apply}", "secret_ref": "s", "provider_type": "local"}`)})
	assert.ErrorIs(t, err, render.ErrDeferred)
}
