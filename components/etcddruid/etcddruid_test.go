package etcddruid

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

// defaults are the attributes the engine passes for a block that sets only what it must: the
// schema's defaults, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{
	"cluster": rendertest.Cluster("runtime"),
}).AsValueMap()

// config is a configuration as the engine passes it: schema defaults filled in, extra
// attributes overriding them.
func config(extra map[string]cty.Value) cty.Value { return rendertest.Config(defaults, extra) }

func render1(t *testing.T, extra map[string]cty.Value) []render.Object {
	t.Helper()
	out, err := Type.RenderConfig(render.Input{Name: "etcd_druid", Config: config(extra)})
	require.NoError(t, err)
	return out.Objects
}

var customised = map[string]cty.Value{
	"namespace":         cty.StringVal("etcd-system"),
	"high_availability": cty.True,
	"workers":           cty.NumberIntVal(25),
	"feature_gates":     cty.MapVal(map[string]cty.Value{"UseEtcdWrapper": cty.True, "AllowEmptyStorage": cty.False}),
	"images": cty.MapVal(map[string]cty.Value{
		"etcd-wrapper":        cty.StringVal("mirror.example.com/etcd-wrapper:v0.5.0"),
		"etcd-backup-restore": cty.StringVal("mirror.example.com/etcdbrctl@sha256:0123456789abcdef"),
	}),
}

func TestRenderGolden(t *testing.T) {
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "etcd_druid"}, map[string]cty.Value{
		"default":           config(nil),
		"high-availability": config(customised),
	})
}

func TestDeploymentFollowsTheDocuments(t *testing.T) {
	tests := []struct {
		name     string
		ha       bool
		replicas int64
	}{
		{"without HA one replica", false, 1},
		// Controllers run with 2 replicas; etcd-druid is named at Gardener's "High Availability Of
		// Components" docs/development/high-availability-of-components.md, Gardener's
		// docs/development/high-availability-of-components.md.
		{"with HA two replicas", true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := render1(t, map[string]cty.Value{"high_availability": cty.BoolVal(tt.ha)})
			d := rendertest.Find(objs, "Deployment", "etcd-druid")
			require.NotNil(t, d)
			assert.Equal(t, "garden", d.GetNamespace())
			// etcd-druid runs with gardener-garden-system-300 in the garden (Gardener's "Priority Classes"
			// docs/development/priority-classes.md).
			class, _, _ := unstructured.NestedString(d.Object, "spec", "template", "spec", "priorityClassName")
			assert.Equal(t, "gardener-garden-system-300", class)
			n, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
			assert.Equal(t, tt.replicas, n)
			assert.Equal(t, tt.ha, rendertest.Find(objs, "PodDisruptionBudget", "etcd-druid") != nil)
			sel, _, _ := unstructured.NestedStringMap(d.Object, "spec", "selector", "matchLabels")
			labels, _, _ := unstructured.NestedStringMap(d.Object, "spec", "template", "metadata", "labels")
			assert.Equal(t, sel, labels)
		})
	}
}

func TestObjects(t *testing.T) {
	objs := render1(t, nil)
	// etcd-druid serves druid.gardener.cloud/v1alpha1 Etcd (Gardener's "Gardener Operator"
	// docs/concepts/operator.md).
	assert.NotNil(t, rendertest.Find(objs, "CustomResourceDefinition", "etcds.druid.gardener.cloud"))
	assert.NotNil(t, rendertest.Find(objs, "ServiceAccount", "etcd-druid"))
	assert.NotNil(t, rendertest.Find(objs, "ClusterRole", "gardener.cloud:system:etcd-druid"))
	assert.NotNil(t, rendertest.Find(objs, "ClusterRoleBinding", "gardener.cloud:system:etcd-druid"))
	assert.NotNil(t, rendertest.Find(objs, "Role", "etcd-druid-leader-election"))
	assert.NotNil(t, rendertest.Find(objs, "RoleBinding", "etcd-druid-leader-election"))
	svc := rendertest.Find(objs, "Service", "etcd-druid")
	require.NotNil(t, svc)
	ports, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
	require.Len(t, ports, 1)
	assert.EqualValues(t, 8080, ports[0].(map[string]any)["port"])
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name   string
		values Values
		want   []string
	}{
		{"defaults", values(Values{Workers: 3}), []string{
			"--enable-leader-election=true", "--leader-election-id=druid-leader-election", "--metrics-port=8080",
			"--etcd-workers=3", "--enable-etcd-spec-auto-reconcile=true",
		}},
		{"feature gates sorted", values(Values{Workers: 7, FeatureGates: map[string]bool{"B": false, "A": true}}), []string{
			"--enable-leader-election=true", "--leader-election-id=druid-leader-election", "--metrics-port=8080",
			"--etcd-workers=7", "--enable-etcd-spec-auto-reconcile=true", "--feature-gates=A=true,B=false",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, args(tt.values))
		})
	}
}

func TestImageVectorOverwriteCarriesTheVector(t *testing.T) {
	tests := []struct {
		name  string
		extra map[string]cty.Value
		want  []vectorEntry
	}{
		{"defaults", nil, []vectorEntry{
			{Name: "etcd-backup-restore", Repository: "europe-docker.pkg.dev/gardener-project/releases/gardener/etcdbrctl", Tag: "v0.33.0"},
			{Name: "etcd-wrapper", Repository: "europe-docker.pkg.dev/gardener-project/releases/gardener/etcd-wrapper", Tag: "v0.4.2"},
		}},
		{"overrides reach the etcd pods", customised, []vectorEntry{
			{Name: "etcd-backup-restore", Repository: "mirror.example.com/etcdbrctl", Tag: "sha256:0123456789abcdef"},
			{Name: "etcd-wrapper", Repository: "mirror.example.com/etcd-wrapper", Tag: "v0.5.0"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := render1(t, tt.extra)
			cm := rendertest.Find(objs, "ConfigMap", "etcd-druid-imagevector-overwrite")
			require.NotNil(t, cm)
			data, _, _ := unstructured.NestedString(cm.Object, "data", "images_overwrite.yaml")
			var got struct {
				Images []vectorEntry `json:"images"`
			}
			require.NoError(t, yaml.UnmarshalStrict([]byte(data), &got))
			assert.Equal(t, tt.want, got.Images)

			d := rendertest.Find(objs, "Deployment", "etcd-druid")
			env, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
			assert.Contains(t, env[0].(map[string]any)["env"], map[string]any{"name": "IMAGEVECTOR_OVERWRITE", "value": "/imagevector-overwrite/images_overwrite.yaml"})
		})
	}
}

func TestChecksumFollowsTheVector(t *testing.T) {
	sum := func(extra map[string]cty.Value) string {
		d := rendertest.Find(render1(t, extra), "Deployment", "etcd-druid")
		s, _, _ := unstructured.NestedString(d.Object, "spec", "template", "metadata", "annotations", checksumAnnotation)
		return s
	}
	base := sum(nil)
	assert.Len(t, base, 64)
	assert.Equal(t, base, sum(nil))
	assert.NotEqual(t, base, sum(map[string]cty.Value{"images": cty.MapVal(map[string]cty.Value{"etcd-wrapper": cty.StringVal("v9.9.9")})}))
}

func TestObjectsDefaultsZeroValues(t *testing.T) {
	objs, err := Objects(values(Values{Cluster: decode.Cluster{Name: "runtime"}}))
	require.NoError(t, err)
	d := rendertest.Find(objs, "Deployment", "etcd-druid")
	require.NotNil(t, d)
	assert.Equal(t, "garden", d.GetNamespace())
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	assert.Contains(t, containers[0].(map[string]any)["args"], "--etcd-workers=3")
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		config cty.Value
		want   string
	}{
		{"unknown image", config(map[string]cty.Value{"images": cty.MapVal(map[string]cty.Value{"etcd": cty.StringVal("v3.5")})}), `image "etcd" is not in the image vector`},
		{"negative workers", config(map[string]cty.Value{"workers": cty.NumberIntVal(-1)}), "workers -1: must be positive"},
		{"unknown attribute", cty.ObjectVal(map[string]cty.Value{"replicas": cty.NumberIntVal(3)}), "unknown field"},
		{"no cluster", cty.ObjectVal(map[string]cty.Value{"namespace": cty.StringVal("garden")}), "cluster is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Type.RenderConfig(render.Input{Config: tt.config})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
