package credentialsbinding

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
		"secret": `{"cluster": {"name": "virtual"}, "provider_type": "local", "credentials_ref": {"name": "local-credentials"}}`,
		"workload-identity": `{"cluster": {"name": "virtual"}, "name": "aws", "namespace": "garden-dev", "provider_type": "aws",
			"credentials_ref": {"kind": "WorkloadIdentity", "name": "aws-identity", "namespace": "garden-shared"},
			"quota": [{"name": "trial"}, {"name": "global", "namespace": "garden"}]}`,
	})
}

func TestFacts(t *testing.T) {
	objs, err := Objects(values(Values{Cluster: cluster, Name: "b", Namespace: "garden-dev", ProviderType: "aws", Credentials: CredentialsRef{Kind: KindSecret, Name: "s"}, Quotas: []QuotaRef{{Name: "q"}}}))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	u := objs[0].Object
	assert.Equal(t, "virtual", objs[0].Cluster)
	assert.Equal(t, "security.gardener.cloud/v1alpha1", u.GetAPIVersion())
	assert.Equal(t, "CredentialsBinding", u.GetKind())
	assert.Equal(t, "garden-dev", u.GetNamespace())
	assert.NotContains(t, u.Object, "spec", "a CredentialsBinding has no spec (Gardener's CredentialsBinding in docs/api-reference/security.md)")
	// Gardener's CredentialsBinding in docs/api-reference/security.md: core/v1 Secret or
	// security.gardener.cloud/v1alpha1 WorkloadIdentity.
	assert.Equal(t, map[string]any{"apiVersion": "v1", "kind": "Secret", "name": "s", "namespace": "garden-dev"}, u.Object["credentialsRef"])
	assert.Equal(t, map[string]any{"type": "aws"}, u.Object["provider"])
	assert.Equal(t, []any{map[string]any{"name": "q", "namespace": "garden-dev"}}, u.Object["quotas"])

	objs, err = Objects(values(Values{Cluster: cluster, Name: "b", ProviderType: "aws", Credentials: CredentialsRef{Kind: KindWorkloadIdentity, Name: "wi"}}))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"apiVersion": "security.gardener.cloud/v1alpha1", "kind": "WorkloadIdentity", "name": "wi", "namespace": "garden"}, objs[0].Object.Object["credentialsRef"])
}

func TestOutputs(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Name: "local", Config: rendertest.JSONConfigOf(t, Type, `{"cluster": {"name": "virtual"}, "provider_type": "local", "credentials_ref": {"name": "s"}}`)})
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
		{"no provider", values(Values{Name: "b", Credentials: CredentialsRef{Kind: KindSecret, Name: "s"}}), "provider_type is required"},
		{"no credentials", values(Values{Name: "b", ProviderType: "aws", Credentials: CredentialsRef{Kind: KindSecret}}), "the credentials need a name"},
		{"bad kind", values(Values{Name: "b", ProviderType: "aws", Credentials: CredentialsRef{Kind: "ConfigMap", Name: "c"}}), `credentials kind "ConfigMap" is not one of Secret, WorkloadIdentity`},
		{"bad name", values(Values{Name: "B_1", ProviderType: "aws", Credentials: CredentialsRef{Kind: KindSecret, Name: "s"}}), `name "B_1" is invalid`},
		{"bad namespace", values(Values{Name: "b", Namespace: "a.b", ProviderType: "aws", Credentials: CredentialsRef{Kind: KindSecret, Name: "s"}}), `namespace "a.b" is invalid`},
		{"quota twice", values(Values{Name: "b", ProviderType: "aws", Credentials: CredentialsRef{Kind: KindSecret, Name: "s"}, Quotas: []QuotaRef{{Name: "q"}, {Name: "q", Namespace: "garden"}}}), "quota garden/q is referenced twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Objects(tt.v)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
