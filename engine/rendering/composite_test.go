package rendering

import (
	"encoding/base64"
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

// compositeInstance is a garden instance whose renderer returns the given parts.
func compositeInstance() *config.Instance {
	s := &schema.Schema{Kind: schema.KindGarden, Type: "garden", Body: schema.Body{Attributes: []schema.Attribute{
		{Name: "cluster", Type: cty.DynamicPseudoType, References: schema.RefCluster, Required: true},
	}}}
	cfg := cty.ObjectVal(map[string]cty.Value{"cluster": cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime")})})
	return &config.Instance{
		Addr: "garden.local", Name: "local", Config: cfg, Value: cty.EmptyObjectVal,
		Block: &config.Block{Addr: "garden.local", Kind: schema.KindGarden, Type: "garden", Name: "local", Schema: s},
	}
}

func configMap(name string, data map[string]any) render.Object {
	return render.Object{Cluster: "runtime", Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": "garden"}, "data": data,
	}}}
}

func renderComposite(t *testing.T, parts []render.Component) (*Renderer, error) {
	t.Helper()
	return renderCompositeWith(t, nil, parts)
}

// renderCompositeWith is renderComposite with the renderer adjusted by setup first.
func renderCompositeWith(t *testing.T, setup func(*Renderer), parts []render.Component) (*Renderer, error) {
	t.Helper()
	r := NewRenderer(render.Registry{"garden": func(render.Input) (*render.Output, error) {
		return &render.Output{Components: parts}, nil
	}}, t.TempDir())
	r.Now = time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	if setup != nil {
		setup(r)
	}
	_, diags := r.instance(compositeInstance())
	if diags.HasErrors() {
		return r, diags
	}
	return r, nil
}

func TestCompositeParts(t *testing.T) {
	parts := []render.Component{
		{Name: "bundle", Type: "manifests", DependsOn: []string{"ca"}, Objects: []render.Object{configMap("bundle", map[string]any{
			"pem": render.GeneratedRef("garden", "ca-garden", "ca.crt", false),
			"b64": render.GeneratedRef("garden", "ca-garden", "ca.crt", true),
		})}},
		{Name: "ca", Type: "generated_secret", Secret: &render.SecretSpec{Cluster: "runtime", Namespace: "garden", Name: "ca-garden", Class: "ca", CommonName: "garden"}},
		{Name: "server", Type: "generated_secret", DependsOn: []string{"ca"}, Secret: &render.SecretSpec{Cluster: "runtime", Namespace: "garden", Name: "server", Class: "server-cert", CommonName: "api", DNSNames: []string{"api.local"}, CA: "ca-garden"}},
	}
	r, err := renderComposite(t, parts)
	require.NoError(t, err)
	parent := r.Rendered["garden.local"]
	assert.Equal(t, []config.InstanceAddress{"garden.local.ca", "garden.local.bundle", "garden.local.server"}, parent.Parts, "dependencies first, given order otherwise")
	assert.Empty(t, parent.Objects)

	bundle := r.Rendered["garden.local.bundle"]
	assert.Equal(t, "manifests", bundle.Type)
	assert.Equal(t, config.InstanceAddress("garden.local"), bundle.Parent)
	assert.Equal(t, []config.InstanceAddress{"garden.local.ca"}, bundle.DependsOn)
	data := bundle.Objects[0].Object.Object["data"].(map[string]any)
	assert.True(t, strings.HasPrefix(data["pem"].(string), "-----BEGIN CERTIFICATE-----"), "the marker is replaced by the generated CA certificate")
	raw, err := base64.StdEncoding.DecodeString(data["b64"].(string))
	require.NoError(t, err)
	assert.Equal(t, data["pem"], string(raw))
	assert.Equal(t, "ConfigMap", parts[0].Objects[0].Object.GetKind())
	assert.Contains(t, parts[0].Objects[0].Object.Object["data"].(map[string]any)["pem"], "${generated:", "the renderer's own objects are not modified")

	ca := r.Rendered["garden.local.ca"]
	require.Len(t, ca.Objects, 1)
	assert.Equal(t, "Secret", ca.Objects[0].Object.GetKind())
	assert.Contains(t, ca.Generated, "created")
	key := ca.Objects[0].Object.Object["data"].(map[string]any)["ca.key"].(string)
	assert.Contains(t, r.Rendered["garden.local.server"].Secrets, key, "generated keys are secrets of every part")
	assert.Contains(t, bundle.Secrets, key)
	assert.NotContains(t, bundle.Secrets, data["b64"], "certificates are public")
}

func TestCompositePartErrors(t *testing.T) {
	secret := func(ca string) *render.SecretSpec {
		return &render.SecretSpec{Cluster: "runtime", Namespace: "garden", Name: "s", Class: "server-cert", CommonName: "x", CA: ca}
	}
	tests := []struct {
		name  string
		parts []render.Component
		want  string
	}{
		{"bad name", []render.Component{{Name: "Etcd-Main"}}, `part name "Etcd-Main" is not an identifier`},
		{"duplicate", []render.Component{{Name: "a"}, {Name: "a"}}, `part "a" is rendered twice`},
		{"unknown dependency", []render.Component{{Name: "a", DependsOn: []string{"b"}}}, `part a depends on "b", which is not a part`},
		{"cycle", []render.Component{{Name: "a", DependsOn: []string{"b"}}, {Name: "b", DependsOn: []string{"a"}}}, "parts a, b depend on each other in a cycle"},
		{"unknown CA", []render.Component{{Name: "s", Secret: secret("nope")}}, "its CA runtime/garden/nope is not a generated CA rendered before it"},
		{"unknown cluster", []render.Component{{Name: "s", Secret: &render.SecretSpec{Cluster: "virtual", Namespace: "garden", Name: "s", Class: "token"}}}, `the secret's cluster "virtual" is no cluster block of the landscape`},
		{"private key reference", []render.Component{
			{Name: "ca", Secret: &render.SecretSpec{Cluster: "runtime", Namespace: "garden", Name: "ca", Class: "ca", CommonName: "ca"}},
			{Name: "cm", DependsOn: []string{"ca"}, Objects: []render.Object{configMap("cm", map[string]any{"k": render.GeneratedRef("garden", "ca", "ca.key", false)})}},
		}, "refers to ca.key of Secret garden/ca, which is not public; only Secrets may hold it"},
		{"private key in a ManagedResource's contents", []render.Component{
			{Name: "ca", Secret: &render.SecretSpec{Cluster: "runtime", Namespace: "garden", Name: "ca", Class: "ca", CommonName: "ca"}},
			{Name: "mr", DependsOn: []string{"ca"}, Objects: []render.Object{packedSecret("mr",
				"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  key: "+render.GeneratedRef("garden", "ca", "ca.key", false)+"\n")}},
		}, "which is not public; only packed Secrets may hold it"},
		{"not generated", []render.Component{{Name: "cm", Objects: []render.Object{configMap("cm", map[string]any{"k": render.GeneratedRef("garden", "ca", "ca.crt", false)})}}}, "which is not generated before it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := renderComposite(t, tt.parts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestCompositeOutputsResolveGeneratedCertificates(t *testing.T) {
	r, err := renderComposite(t, []render.Component{
		{Name: "ca", Secret: &render.SecretSpec{Cluster: "runtime", Namespace: "garden", Name: "ca-garden", Class: "ca", CommonName: "garden"}},
	})
	require.NoError(t, err)
	out := r.resolveOutputs(map[string]cty.Value{
		"ca_bundle": cty.StringVal(render.GeneratedRef("garden", "ca-garden", "ca.crt", false)),
		"missing":   cty.StringVal(render.GeneratedRef("garden", "nope", "ca.crt", false)),
		"plain":     cty.StringVal("https://api.example.com"),
	})
	assert.True(t, strings.HasPrefix(out["ca_bundle"].AsString(), "-----BEGIN CERTIFICATE-----"))
	_, ok := out["missing"]
	assert.False(t, ok, "an output naming no generated secret stays unknown")
	assert.Equal(t, "https://api.example.com", out["plain"].AsString())
}

// A Secret may hold a generated private key (a kubeconfig with a generated token): plans never
// show Secret data, and the value is a secret of the part for the redactor.
func TestCompositeSecretsMayHoldPrivateMaterial(t *testing.T) {
	r, err := renderComposite(t, []render.Component{
		{Name: "ca", Secret: &render.SecretSpec{Cluster: "runtime", Namespace: "garden", Name: "ca", Class: "ca", CommonName: "ca"}},
		{Name: "copy", DependsOn: []string{"ca"}, Objects: []render.Object{{Cluster: "runtime", Object: &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "copy", "namespace": "garden"},
			"stringData": map[string]any{"key": "prefix " + render.GeneratedRef("garden", "ca", "ca.key", false)},
		}}}}},
	})
	require.NoError(t, err)
	copied := r.Rendered["garden.local.copy"]
	value := copied.Objects[0].Object.Object["stringData"].(map[string]any)["key"].(string)
	assert.True(t, strings.HasPrefix(value, "prefix -----BEGIN"), "the marker is replaced by the private key")
	key := r.Rendered["garden.local.ca"].Objects[0].Object.Object["data"].(map[string]any)["ca.key"].(string)
	assert.Contains(t, copied.Secrets, key, "the redactor knows the key")
}

// A Secret packed into a ManagedResource (vpn-shoot's client certificate, which reaches the
// shoot only that way) may hold a generated secret's private key; plans redact packed Secrets
// (engine/plan's TestPackedSecretsAreNeverShown).
func TestPackedSecretsMayHoldPrivateMaterial(t *testing.T) {
	doc := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: client\n  namespace: kube-system\ndata:\n  tls.key: " +
		render.GeneratedRef("garden", "ca", "ca.key", true) + "\n  ca.crt: " + render.GeneratedRef("garden", "ca", "ca.crt", true) + "\n"
	r, err := renderComposite(t, []render.Component{
		{Name: "ca", Secret: &render.SecretSpec{Cluster: "runtime", Namespace: "garden", Name: "ca", Class: "ca", CommonName: "ca"}},
		{Name: "mr", DependsOn: []string{"ca"}, Objects: []render.Object{packedSecret("mr", doc)}},
	})
	require.NoError(t, err)
	packed := r.Rendered["garden.local.mr"].Objects[0].Object.Object["stringData"].(map[string]any)["objects.yaml"].(string)
	ca := r.Rendered["garden.local.ca"].Objects[0].Object.Object["data"].(map[string]any)
	assert.Contains(t, packed, "tls.key: "+ca["ca.key"].(string), "the Secret's data, base64-encoded")
	assert.NotContains(t, packed, "${generated:")

}

// packedSecret is a Secret that packs a ManagedResource's objects.
func packedSecret(name, value string) render.Object {
	return render.Object{Cluster: "runtime", Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": name, "namespace": "garden", "labels": map[string]any{render.ManagedResourceContentsLabel: "true"}},
		"stringData": map[string]any{"objects.yaml": value},
	}}}
}

// Only a generated Secret's sensitive keys become secrets of the plan: a bootstrap token's
// usages ("true") and id stay readable everywhere else.
func TestGeneratedBootstrapTokenRedactsOnlyItsSecret(t *testing.T) {
	r, err := renderComposite(t, []render.Component{
		{Name: "token", Secret: &render.SecretSpec{Cluster: "runtime", Namespace: "kube-system", Name: "bootstrap-token-abc123", Class: "bootstrap-token"}},
	})
	require.NoError(t, err)
	token := r.Rendered["garden.local.token"]
	require.Len(t, token.Objects, 1)
	assert.Equal(t, "bootstrap.kubernetes.io/token", token.Objects[0].Object.Object["type"])
	data := token.Objects[0].Object.Object["data"].(map[string]any)
	raw, err := base64.StdEncoding.DecodeString(data["token-secret"].(string))
	require.NoError(t, err)
	assert.Contains(t, token.Secrets, string(raw))
	assert.NotContains(t, token.Secrets, "true")
	assert.NotContains(t, token.Secrets, "abc123")
}

// A composite whose lifetime ended renders no parts, and outputs only its parts' material
// resolves become unknown; one the state records as retired stays retired although its
// rendering says it lives on (its Shoot is gone, so a fresh lifetime starts now).
func TestCompositeLifetime(t *testing.T) {
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	parts := []render.Component{
		{Name: "ca", Type: "generated_secret", Secret: &render.SecretSpec{Cluster: "runtime", Namespace: "garden", Name: "ca-garden", Class: "ca", CommonName: "garden"}},
		{Name: "bundle", Type: "manifests", DependsOn: []string{"ca"}, Objects: []render.Object{configMap("bundle", map[string]any{"k": "v"})}},
	}
	renderWith := func(ends time.Time, recorded *Retirement) *Renderer {
		r := NewRenderer(render.Registry{"garden": func(render.Input) (*render.Output, error) {
			return &render.Output{Components: parts, Lifetime: &render.Lifetime{Ends: ends, Reason: "the cluster lifetime of Quota q, 7 days"},
				Revisit: ends, Notices: []string{"garden local: expires soon"},
				Outputs: map[string]cty.Value{"name": cty.StringVal("local"), "ca": cty.StringVal(render.GeneratedRef("garden", "ca-garden", "ca.crt", false))}}, nil
		}}, t.TempDir())
		r.Now = now
		r.Retired = func(addr config.InstanceAddress) (*Retirement, error) {
			assert.Equal(t, config.InstanceAddress("garden.local"), addr)
			return recorded, nil
		}
		v, diags := r.instance(compositeInstance())
		require.False(t, diags.HasErrors(), diags.Error())
		require.True(t, v.Type().IsObjectType())
		return r
	}

	r := renderWith(now.Add(time.Hour), nil)
	assert.Nil(t, r.Rendered["garden.local"].Retired, "it lives on")
	assert.Len(t, r.Rendered["garden.local"].Parts, 2)
	assert.Equal(t, now.Add(time.Hour), r.Rendered["garden.local"].Revisit)

	r = renderWith(now, nil)
	parent := r.Rendered["garden.local"]
	require.NotNil(t, parent.Retired, "a lifetime ending now has ended")
	assert.Equal(t, Retirement{Address: "garden.local", Ended: "2026-11-21T00:00:00Z", Reason: "the cluster lifetime of Quota q, 7 days"}, *parent.Retired)
	assert.Empty(t, parent.Parts)
	assert.NotContains(t, r.Rendered, config.InstanceAddress("garden.local.bundle"))
	assert.True(t, parent.Revisit.IsZero(), "nothing changes by time any more")
	require.Len(t, parent.Notices, 1)
	assert.Contains(t, parent.Notices[0], "garden.local: its lifetime ended at 2026-11-21T00:00:00Z (the cluster lifetime of Quota q, 7 days)")
	assert.Contains(t, parent.Notices[0], "gardener state rm DIR garden.local")

	recorded := &Retirement{Address: "garden.local", Ended: "2026-11-14T00:00:00Z", Reason: "recorded", Recorded: true}
	r = renderWith(now.AddDate(0, 0, 7), recorded)
	assert.Equal(t, recorded, r.Rendered["garden.local"].Retired, "the state's record holds")
	assert.Empty(t, r.Rendered["garden.local"].Parts)

	// A lifetime without an end (a deleted stale project) retires only by the state's record.
	r = renderWith(time.Time{}, nil)
	assert.Nil(t, r.Rendered["garden.local"].Retired, "no end, no record: it lives")
	assert.Len(t, r.Rendered["garden.local"].Parts, 2)
	r = renderWith(time.Time{}, recorded)
	assert.Equal(t, recorded, r.Rendered["garden.local"].Retired, "the record holds without an end")
}

// probedDeployment is a Deployment whose container's readiness probe sends header and whose
// environment holds env.
func probedDeployment(header, env string) render.Object {
	return render.Object{Cluster: "runtime", Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "api", "namespace": "garden"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
			"name": "api",
			"env":  []any{map[string]any{"name": "X", "value": env}},
			"readinessProbe": map[string]any{"httpGet": map[string]any{"path": "/readyz", "httpHeaders": []any{
				map[string]any{"name": "Authorization", "value": header},
			}}},
		}}}}},
	}}}
}

// A workload's probe may present a generated token, the one place outside a Secret where a
// generated secret may stand (an API server without anonymous access is probed with one); the
// token is a secret of the part, which plans redact. Anywhere else in the workload, and any
// other private key even in a probe, stays refused.
func TestProbeHeadersMayPresentAGeneratedToken(t *testing.T) {
	token := &render.SecretSpec{Cluster: "runtime", Namespace: "garden", Name: "health", Class: "token"}
	ca := &render.SecretSpec{Cluster: "runtime", Namespace: "garden", Name: "ca", Class: "ca", CommonName: "ca"}
	r, err := renderComposite(t, []render.Component{
		{Name: "token", Secret: token},
		{Name: "api", DependsOn: []string{"token"}, Objects: []render.Object{probedDeployment("Bearer "+render.GeneratedRef("garden", "health", "token", false), "plain")}},
	})
	require.NoError(t, err)
	api := r.Rendered["garden.local.api"]
	headers, _, _ := unstructured.NestedSlice(api.Objects[0].Object.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any), "readinessProbe", "httpGet", "httpHeaders")
	value := headers[0].(map[string]any)["value"].(string)
	raw, err := base64.StdEncoding.DecodeString(r.Rendered["garden.local.token"].Objects[0].Object.Object["data"].(map[string]any)["token"].(string))
	require.NoError(t, err)
	assert.Equal(t, "Bearer "+string(raw), value)
	assert.Contains(t, api.Secrets, string(raw), "the redactor knows the token")

	for name, tc := range map[string]struct {
		parts []render.Component
		want  string
	}{
		"a token outside a probe": {[]render.Component{
			{Name: "token", Secret: token},
			{Name: "api", DependsOn: []string{"token"}, Objects: []render.Object{probedDeployment("Bearer x", render.GeneratedRef("garden", "health", "token", false))}},
		}, "refers to token of Secret garden/health, which is not public; only Secrets may hold it"},
		"a private key in a probe": {[]render.Component{
			{Name: "ca", Secret: ca},
			{Name: "api", DependsOn: []string{"ca"}, Objects: []render.Object{probedDeployment(render.GeneratedRef("garden", "ca", "ca.key", false), "plain")}},
		}, "refers to ca.key of Secret garden/ca, which is not public"},
		"a token not generated": {[]render.Component{
			{Name: "api", Objects: []render.Object{probedDeployment("Bearer "+render.GeneratedRef("garden", "health", "token", false), "plain")}},
		}, "a probe header refers to token of Secret garden/health, which is not generated before it"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := renderComposite(t, tc.parts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
