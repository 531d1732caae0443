package landscapedaemon

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

// defaults are the schema's defaults, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{
	"cluster": rendertest.Cluster("runtime"),
	"image":   cty.StringVal("registry.example.com/gardener:v0.2.0"),
	"files":   cty.MapVal(map[string]cty.Value{"main.hcl": cty.StringVal("landscape \"l\" {}\n")}),
}).AsValueMap()

func TestRenderGolden(t *testing.T) {
	rule := cty.ObjectVal(map[string]cty.Value{
		"api_groups": cty.ListVal([]cty.Value{cty.StringVal("")}),
		"resources":  cty.ListVal([]cty.Value{cty.StringVal("configmaps"), cty.StringVal("namespaces")}),
		"verbs":      cty.ListVal([]cty.Value{cty.StringVal("get"), cty.StringVal("list"), cty.StringVal("watch"), cty.StringVal("patch"), cty.StringVal("delete")}),
	})
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "landscape_daemon"}, map[string]cty.Value{
		"default": rendertest.Config(defaults, nil),
		"rules-single-replica": rendertest.Config(defaults, map[string]cty.Value{
			"replicas": cty.NumberIntVal(1), "policy": cty.StringVal("auto"), "resync": cty.StringVal("5m"),
			"kubeconfig_secret": cty.StringVal("landscape-kubeconfigs"),
			"state_namespace":   cty.StringVal("landscape-state"),
			"variables":         cty.MapVal(map[string]cty.Value{"in_cluster": cty.StringVal("true"), "env": cty.StringVal("prod")}),
			"cluster_rules":     cty.ListVal([]cty.Value{rule}),
		}),
	})
}

func objects(t *testing.T, v Values) map[string]*unstructured.Unstructured {
	t.Helper()
	v.Cluster = decode.Cluster{Name: "runtime"}
	objs, err := Objects(v)
	require.NoError(t, err)
	out := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		out[o.Object.GetKind()+"/"+o.Object.GetName()] = o.Object
	}
	return out
}

func TestDaemonDeployment(t *testing.T) {
	objs := objects(t, values(Values{Image: "img", Files: map[string]string{"main.hcl": "x"}}))
	var d appsv1.Deployment
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(objs["Deployment/gardener-daemon"].Object, &d))
	assert.Equal(t, int32(2), *d.Spec.Replicas, "one acts, one stands by")
	c := d.Spec.Template.Spec.Containers[0]
	assert.Contains(t, c.Args, "--landscape=/landscape")
	assert.Contains(t, c.Args, "--leader-election-id=gardener-daemon")
	assert.Contains(t, c.Args, "--status-namespace=garden")
	assert.True(t, *d.Spec.Template.Spec.SecurityContext.RunAsNonRoot)
	assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	assert.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
	assert.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
	assert.Contains(t, objs, "PodDisruptionBudget/gardener-daemon")
	assert.Contains(t, objs, "ConfigMap/gardener-daemon-landscape")
	assert.Equal(t, "garden", objs["Role/gardener-daemon-state"].GetNamespace(), "the state backend's rights, in the daemon's namespace by default")
	assert.NotContains(t, objs, "ClusterRoleBinding/gardener.cloud:garden:gardener-daemon", "no cluster-wide rights unless asked for")

	admin := objects(t, values(Values{Image: "img", Files: map[string]string{"main.hcl": "x"}, ClusterAdmin: true}))
	var crb rbacv1.ClusterRoleBinding
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(admin["ClusterRoleBinding/gardener.cloud:garden:gardener-daemon"].Object, &crb))
	assert.Equal(t, "cluster-admin", crb.RoleRef.Name)
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		v    Values
		want string
	}{
		{values(Values{Files: map[string]string{"a": "b"}}), "image is required"},
		{values(Values{Image: "i"}), "files holds no landscape"},
		{values(Values{Image: "i", Files: map[string]string{"a": "b"}, ClusterAdmin: true, ClusterRules: []Rule{{Verbs: []string{"get"}}}}), "drop cluster_rules or cluster_admin"},
		{values(Values{Image: "i", Files: map[string]string{"a": "b"}, Replicas: 1<<32 + 2}), "replicas 4294967298 is more than a Deployment can run"},
	} {
		_, err := Objects(tc.v)
		assert.ErrorContains(t, err, tc.want)
	}
}
