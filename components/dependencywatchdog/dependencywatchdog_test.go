package dependencywatchdog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// defaults are the schema's defaults, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{"cluster": rendertest.Cluster("seed")}).AsValueMap()

func TestRenderGolden(t *testing.T) {
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "dependency_watchdog"}, map[string]cty.Value{
		"default": rendertest.Config(defaults, nil),
		"high-availability-weeder-only": rendertest.Config(defaults, map[string]cty.Value{
			"high_availability": cty.True,
			"prober_enabled":    cty.False,
			"images":            cty.MapVal(map[string]cty.Value{"dependency-watchdog": cty.StringVal("v1.5.1")}),
		}),
	})
}

func objects(t *testing.T, v Values) []render.Object {
	t.Helper()
	v.Cluster = decode.Cluster{Name: "seed"}
	objs, err := Objects(v)
	require.NoError(t, err)
	return objs
}

func deploymentOf(t *testing.T, objs []render.Object, name string) appsv1.Deployment {
	t.Helper()
	var d appsv1.Deployment
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(rendertest.MustFind(t, objs, "Deployment", name).Object, &d))
	return d
}

func TestDocumentedFacts(t *testing.T) {
	for _, tt := range []struct {
		ha       bool
		replicas int32
	}{{false, 1}, {true, 2}} {
		objs := objects(t, rendertest.Overlay(Type.Defaults(), Values{HighAvailability: tt.ha}))
		// Gardener's "Seed Bootstrapping" docs/operations/seed_bootstrapping.md, Gardener's "Seed
		// Settings" docs/operations/seed_settings.md: two Deployments in the garden namespace.
		for _, name := range []string{"dependency-watchdog-prober", "dependency-watchdog-weeder"} {
			d := deploymentOf(t, objs, name)
			assert.Equal(t, "garden", d.Namespace)
			assert.Equal(t, tt.replicas, *d.Spec.Replicas)
			// Gardener's "Priority Classes" docs/development/priority-classes.md: gardener-system-800.
			assert.Equal(t, "gardener-system-800", d.Spec.Template.Spec.PriorityClassName)
			assert.Equal(t, "europe-docker.pkg.dev/gardener-project/releases/gardener/dependency-watchdog:v1.5.0", d.Spec.Template.Spec.Containers[0].Image)
			assert.Equal(t, name, d.Spec.Template.Spec.ServiceAccountName)
			for k, v := range d.Spec.Selector.MatchLabels {
				assert.Equal(t, v, d.Spec.Template.Labels[k], k)
			}
			assert.NotEmpty(t, d.Spec.Template.Annotations["checksum/configmap-"+name+"-config"])
			assert.Equal(t, tt.ha, rendertest.Find(objs, "PodDisruptionBudget", name) != nil)
			rendertest.MustFind(t, objs, "ConfigMap", name+"-config")
			rendertest.MustFind(t, objs, "ServiceAccount", name)
			rendertest.MustFind(t, objs, "ClusterRoleBinding", "gardener.cloud:"+name)
			rendertest.MustFind(t, objs, "RoleBinding", "gardener.cloud:"+name)
		}
		// Gardener's "Network Policies" docs/operations/network_policies.md: the prober reaches every
		// shoot's kube-apiserver in-cluster.
		prober := deploymentOf(t, objs, "dependency-watchdog-prober")
		assert.Equal(t, "allowed", prober.Spec.Template.Labels["networking.resources.gardener.cloud/to-all-shoots-kube-apiserver-tcp-443"])
		assert.Equal(t, "prober", prober.Spec.Template.Spec.Containers[0].Args[0])
	}
}

func TestInstancesCanBeTurnedOff(t *testing.T) {
	d := Type.Defaults()
	assert.True(t, d.ProberEnabled && d.WeederEnabled, "both default to true (Gardener's docs/operations/seed_settings.md)")
	for _, tt := range []struct {
		prober, weeder bool
		want           []string
	}{
		{true, true, []string{"dependency-watchdog-prober", "dependency-watchdog-weeder"}},
		{false, true, []string{"dependency-watchdog-weeder"}},
		{true, false, []string{"dependency-watchdog-prober"}},
		{false, false, nil},
	} {
		v := Type.Defaults()
		v.ProberEnabled, v.WeederEnabled = tt.prober, tt.weeder
		var got []string
		for _, o := range objects(t, v) {
			if o.Object.GetKind() == "Deployment" {
				got = append(got, o.Object.GetName())
			}
		}
		assert.Equal(t, tt.want, got)
	}
}

func configOf(t *testing.T, objs []render.Object, name string) map[string]any {
	t.Helper()
	var cm corev1.ConfigMap
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(rendertest.MustFind(t, objs, "ConfigMap", name).Object, &cm))
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(cm.Data[ConfigKey]), &cfg))
	return cfg
}

func TestConfigurations(t *testing.T) {
	objs := objects(t, Type.Defaults())
	// Gardener's docs/operations/seed_bootstrapping.md: the prober scales kube-controller-manager,
	// machine-controller-manager and cluster-autoscaler (optional, only if enabled).
	prober := configOf(t, objs, "dependency-watchdog-prober-config")
	infos := prober["dependentResourceInfos"].([]any)
	var names []string
	for _, i := range infos {
		ref := i.(map[string]any)["ref"].(map[string]any)
		names = append(names, ref["name"].(string))
	}
	assert.ElementsMatch(t, []string{"kube-controller-manager", "machine-controller-manager", "cluster-autoscaler"}, names)

	// Gardener's docs/operations/seed_bootstrapping.md: kube-apiserver restarted after etcd;
	// controlplane pods after kube-apiserver.
	weeder := configOf(t, objs, "dependency-watchdog-weeder-config")
	services := weeder["servicesAndDependantSelectors"].(map[string]any)
	assert.Contains(t, services, "etcd-main-client")
	assert.Contains(t, services, "kube-apiserver")
}

func TestErrors(t *testing.T) {
	_, err := Objects(rendertest.Overlay(Type.Defaults(), Values{Images: map[string]string{"dependency-watchdg": "v1"}}))
	assert.Error(t, err)
	_, err = configuration("endpoint")
	assert.Error(t, err)
	_, err = Type.RenderConfig(render.Input{Config: rendertest.Config(defaults, map[string]cty.Value{"endpoint_enabled": cty.True})})
	assert.Error(t, err)
}
