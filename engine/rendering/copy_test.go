package rendering

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/render"
)

func kobject(apiVersion, kind, namespace, name string, fields map[string]any) *unstructured.Unstructured {
	obj := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name, "namespace": namespace}}
	for k, v := range fields {
		obj[k] = v
	}
	return &unstructured.Unstructured{Object: obj}
}

// copyRenderer is a renderer that has rendered a project's binding and its Secret (another
// component of the landscape) and reads live objects from live.
func copyRenderer(t *testing.T, parts []render.Component, rendered []*unstructured.Unstructured, live map[string]*unstructured.Unstructured) (*Renderer, error) {
	t.Helper()
	r := NewRenderer(render.Registry{"garden": func(render.Input) (*render.Output, error) {
		return &render.Output{Components: parts}, nil
	}}, t.TempDir())
	r.Now = time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	other := &Rendered{Address: "component.manifests.credentials"}
	for _, o := range rendered {
		other.Objects = append(other.Objects, render.Object{Cluster: "virtual", Object: o})
	}
	r.Rendered["component.manifests.credentials"] = other
	r.Get = func(cluster cty.Value, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
		return live[cluster.GetAttr("name").AsString()+"/"+gvr.Resource+"/"+namespace+"/"+name], nil
	}
	inst := compositeInstance()
	inst.Clusters = map[string]cty.Value{
		"runtime": cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime")}),
		"virtual": cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("virtual")}),
	}
	_, diags := r.instance(inst)
	if diags.HasErrors() {
		return r, diags
	}
	return r, nil
}

var cloudprovider = render.Component{Name: "cloudprovider", Copy: &render.CopySpec{
	Cluster: "runtime", Namespace: "shoot--local--dev", Name: "cloudprovider", FromCluster: "virtual",
	BindingKind: "CredentialsBinding", BindingNamespace: "garden-local", BindingName: "local",
}}

// A shoot's cloudprovider Secret is its binding's Secret (Gardener's "Infrastructure"
// docs/extensions/resources/infrastructure.md), found where the landscape declares it, or else in
// the live cluster; its values are secrets of the plan.
func TestSecretCopy(t *testing.T) {
	binding := kobject("security.gardener.cloud/v1alpha1", "CredentialsBinding", "garden-local", "local", map[string]any{
		"credentialsRef": map[string]any{"kind": "Secret", "name": "local-credentials", "namespace": "garden-local"},
	})
	secret := kobject("v1", "Secret", "garden-local", "local-credentials", map[string]any{"type": "Opaque", "stringData": map[string]any{"accessKey": "s3cr3t-value"}})

	t.Run("declared in the landscape", func(t *testing.T) {
		r, err := copyRenderer(t, []render.Component{cloudprovider}, []*unstructured.Unstructured{binding, secret}, nil)
		require.NoError(t, err)
		part := r.Rendered[config.InstanceAddress("garden.local.cloudprovider")]
		require.Len(t, part.Objects, 1)
		o := part.Objects[0]
		assert.Equal(t, "runtime", o.Cluster)
		assert.Equal(t, "shoot--local--dev", o.Object.GetNamespace())
		assert.Equal(t, "cloudprovider", o.Object.GetName())
		assert.Equal(t, map[string]any{"accessKey": "s3cr3t-value"}, o.Object.Object["stringData"])
		assert.Contains(t, part.Secrets, "s3cr3t-value", "the plan hides the copied values")
	})
	t.Run("live", func(t *testing.T) {
		live := map[string]*unstructured.Unstructured{
			"virtual/credentialsbindings/garden-local/local": binding,
			"virtual/secrets/garden-local/local-credentials": kobject("v1", "Secret", "garden-local", "local-credentials", map[string]any{"type": "Opaque", "data": map[string]any{"accessKey": "czNjcjN0", "secretKey": "bG9uZy1zZWNyZXQtdmFsdWU="}}),
		}
		r, err := copyRenderer(t, []render.Component{cloudprovider}, nil, live)
		require.NoError(t, err)
		part := r.Rendered[config.InstanceAddress("garden.local.cloudprovider")]
		assert.Equal(t, map[string]any{"accessKey": "czNjcjN0", "secretKey": "bG9uZy1zZWNyZXQtdmFsdWU="}, part.Objects[0].Object.Object["data"])
		assert.Contains(t, part.Secrets, "long-secret-value", "decoded values are hidden too")
		assert.NotContains(t, part.Secrets, "s3cr3t", "values shorter than 8 characters are not hidden everywhere")
	})
	for name, tc := range map[string]struct {
		rendered []*unstructured.Unstructured
		want     string
	}{
		"no binding": {nil, "binding: CredentialsBinding garden-local/local is neither declared in the landscape nor in cluster virtual"},
		"no Secret":  {[]*unstructured.Unstructured{binding}, "source Secret garden-local/local-credentials is neither declared in the landscape nor in cluster virtual"},
		"not a Secret": {[]*unstructured.Unstructured{kobject("security.gardener.cloud/v1alpha1", "CredentialsBinding", "garden-local", "local", map[string]any{
			"credentialsRef": map[string]any{"kind": "WorkloadIdentity", "name": "x", "namespace": "garden-local"},
		})}, "refers to a WorkloadIdentity; only Secrets are copied"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := copyRenderer(t, []render.Component{cloudprovider}, tc.rendered, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A source rendered without a namespace is found in its component's default namespace.
func TestSecretCopyFindsObjectsInTheirDefaultNamespace(t *testing.T) {
	r := NewRenderer(render.Registry{}, t.TempDir())
	secret := kobject("v1", "Secret", "", "local-credentials", nil)
	r.Rendered["component.manifests.credentials"] = &Rendered{Objects: []render.Object{{Cluster: "virtual", Object: secret, DefaultNamespace: "garden-local"}}}
	found, err := r.find(nil, "virtual", secretsGVR, "", "Secret", "garden-local", "local-credentials")
	require.NoError(t, err)
	assert.Same(t, secret, found)
}

// A copy by selector replicates every Secret of a namespace that carries the label (Gardener's
// shared Secrets into seed-<name>, Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md): those the landscape renders, winning over their live
// versions, and the live ones it does not render; each keeps its name, labels and annotations but
// not another tool's inventory, and its values are secrets of the plan.
func TestSecretCopyBySelector(t *testing.T) {
	shared := render.Component{Name: "seed_secrets", Copy: &render.CopySpec{
		Cluster: "virtual", Namespace: "seed-local", FromCluster: "virtual", FromNamespace: "garden", FromSelector: "gardener.cloud/role",
	}}
	r := NewRenderer(render.Registry{"garden": func(render.Input) (*render.Output, error) {
		return &render.Output{Components: []render.Component{shared}}, nil
	}}, t.TempDir())
	r.Rendered["component.manifests.dns"] = &Rendered{Objects: []render.Object{
		{Cluster: "virtual", Object: kobject("v1", "Secret", "garden", "internal-domain", map[string]any{
			"stringData": map[string]any{"token": "declared-token-value"},
		})},
		{Cluster: "runtime", Object: kobject("v1", "Secret", "garden", "elsewhere", nil)},
	}}
	r.Rendered["component.manifests.dns"].Objects[0].Object.SetLabels(map[string]string{"gardener.cloud/role": "internal-domain"})
	r.Rendered["component.manifests.dns"].Objects[0].Object.SetAnnotations(map[string]string{"dns.gardener.cloud/provider": "local"})
	var listed []string
	r.List = func(cluster cty.Value, gvr schema.GroupVersionResource, namespace, selector string) ([]unstructured.Unstructured, error) {
		listed = append(listed, cluster.GetAttr("name").AsString()+" "+gvr.Resource+" "+namespace+" "+selector)
		stale := kobject("v1", "Secret", "garden", "internal-domain", map[string]any{"stringData": map[string]any{"token": "stale-live-value"}})
		alerting := kobject("v1", "Secret", "garden", "alerting", map[string]any{"type": "Opaque", "data": map[string]any{"auth": "YWxlcnRpbmctcGFzc3dvcmQ="}})
		alerting.SetLabels(map[string]string{"gardener.cloud/role": "alerting", "declarative-gardener.io/landscape": "other"})
		alerting.SetAnnotations(map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}", "note": "kept"})
		return []unstructured.Unstructured{*stale, *alerting}, nil
	}
	inst := compositeInstance()
	inst.Clusters = map[string]cty.Value{"virtual": cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("virtual")})}
	_, diags := r.instance(inst)
	require.False(t, diags.HasErrors(), diags.Error())

	assert.Equal(t, []string{"virtual secrets garden gardener.cloud/role"}, listed)
	part := r.Rendered[config.InstanceAddress("garden.local.seed_secrets")]
	require.Len(t, part.Objects, 2)
	alerting, internal := part.Objects[0].Object, part.Objects[1].Object
	assert.Equal(t, "seed-local/alerting", alerting.GetNamespace()+"/"+alerting.GetName())
	assert.Equal(t, map[string]string{"gardener.cloud/role": "alerting"}, alerting.GetLabels())
	assert.Equal(t, map[string]string{"note": "kept"}, alerting.GetAnnotations())
	assert.Equal(t, "seed-local/internal-domain", internal.GetNamespace()+"/"+internal.GetName())
	assert.Equal(t, map[string]any{"token": "declared-token-value"}, internal.Object["stringData"], "what the landscape renders wins")
	assert.Equal(t, map[string]string{"dns.gardener.cloud/provider": "local"}, internal.GetAnnotations())
	assert.Subset(t, part.Secrets, []string{"declared-token-value", "alerting-password"})

	bad := shared
	bad.Copy = &render.CopySpec{Cluster: "virtual", Namespace: "seed-local", Name: "x", FromCluster: "virtual", FromNamespace: "garden", FromSelector: "gardener.cloud/role"}
	r.Registry["garden"] = func(render.Input) (*render.Output, error) {
		return &render.Output{Components: []render.Component{bad}}, nil
	}
	_, diags = r.instance(inst)
	assert.Contains(t, diags.Error(), "a Secret copy by selector needs")
}
