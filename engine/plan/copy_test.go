package plan

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

// A shoot's cloudprovider Secret is its binding's Secret (S4:17330), found where the landscape
// declares it, or else in the live cluster; its values are secrets of the plan.
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
