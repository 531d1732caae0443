package gardenlet

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

const testPEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

func seedSpec() cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"provider": cty.ObjectVal(map[string]cty.Value{"type": cty.StringVal("local"), "region": cty.StringVal("local")}),
		"networks": cty.ObjectVal(map[string]cty.Value{
			"nodes": cty.StringVal("172.18.0.0/16"), "pods": cty.StringVal("10.1.0.0/16"), "services": cty.StringVal("10.2.0.0/16"),
		}),
		"ingress": cty.ObjectVal(map[string]cty.Value{
			"domain":     cty.StringVal("ingress.local.seed.local.gardener.cloud"),
			"controller": cty.ObjectVal(map[string]cty.Value{"kind": cty.StringVal("nginx")}),
		}),
	})
}

// defaults are the schema's defaults plus the required attributes, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{
	"cluster":              rendertest.Cluster("seed"),
	"seed_name":            cty.StringVal("local"),
	"seed_spec":            seedSpec(),
	"bootstrap_kubeconfig": cty.StringVal("apiVersion: v1\nkind: Config\n"),
}).AsValueMap()

func TestRenderGolden(t *testing.T) {
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "gardenlet"}, map[string]cty.Value{
		"default": rendertest.Config(defaults, nil),
		"ha-customised": rendertest.Config(defaults, map[string]cty.Value{
			"replicas":               cty.NumberIntVal(3),
			"seed_labels":            cty.MapVal(map[string]cty.Value{"base": cty.StringVal("kind")}),
			"garden_cluster_address": cty.StringVal("https://api.virtual-garden.example.com"),
			"garden_ca_bundle":       cty.StringVal(testPEM),
			"bootstrap_kubeconfig":   cty.NullVal(cty.String),
			"feature_gates":          cty.MapVal(map[string]cty.Value{"DefaultSeccompProfile": cty.True, "ShootManagedIssuer": cty.False}),
			"log_level":              cty.StringVal("debug"),
			"images":                 cty.MapVal(map[string]cty.Value{"gardenlet": cty.StringVal("v1.121.0")}),
			"controllers": cty.ObjectVal(map[string]cty.Value{
				"shoot":      cty.ObjectVal(map[string]cty.Value{"reconcileInMaintenanceOnly": cty.True, "syncPeriod": cty.StringVal("1h")}),
				"shootState": cty.ObjectVal(map[string]cty.Value{"concurrentSyncs": cty.NumberIntVal(0)}),
			}),
		}),
	})
}

func minimal() Values {
	return rendertest.Overlay(Type.Defaults(), Values{
		Cluster:             decode.Cluster{Name: "seed"},
		SeedName:            "local",
		SeedSpec:            map[string]any{"provider": map[string]any{"type": "local"}},
		BootstrapKubeconfig: "apiVersion: v1\nkind: Config\n",
	})
}

func configOf(t *testing.T, objs []render.Object) map[string]any {
	t.Helper()
	u := ConfigMapOf(objs)
	require.NotNil(t, u)
	var cm corev1.ConfigMap
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &cm))
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(cm.Data[ConfigKey]), &cfg))
	return cfg
}

// chart are the labels of every object of the gardenlet chart (charts/gardener/gardenlet/test/chart_test.go
// in gardener/gardener v1.120.0).
var chart = map[string]string{"app": "gardener", "role": "gardenlet", "chart": "gardenlet-0.1.0", "release": "gardenlet", "heritage": "Helm"}

// TestAsGardenersChart checks the objects against the gardenlet Helm chart of Gardener v1.120.0
// (charts/gardener/gardenlet/templates, its test/test.go) with the values gardener-operator and the
// ManagedSeed controller give it (pkg/controller/gardenletdeployer, SetDefaults_GardenletDeployment).
func TestAsGardenersChart(t *testing.T) {
	for _, tt := range []struct {
		replicas int32
		zones    []any
		spread   []string
	}{
		{2, nil, []string{"kubernetes.io/hostname"}},
		{2, []any{"a", "b", "c"}, []string{"kubernetes.io/hostname", "topology.kubernetes.io/zone"}},
		{1, []any{"a", "b"}, nil},
	} {
		v := minimal()
		v.Replicas = tt.replicas
		v.SeedSpec = map[string]any{"provider": map[string]any{"type": "local", "zones": tt.zones}}
		objs, err := Objects(v)
		require.NoError(t, err)
		sa := rendertest.Typed[corev1.ServiceAccount](t, objs, "ServiceAccount", "gardenlet")
		assert.False(t, *sa.AutomountServiceAccountToken)
		assert.Equal(t, chart, sa.Labels)
		d := rendertest.Typed[appsv1.Deployment](t, objs, "Deployment", "gardenlet")
		assert.Equal(t, "garden", d.Namespace)
		assert.Equal(t, tt.replicas, *d.Spec.Replicas)
		assert.Equal(t, "true", d.Labels["high-availability-config.resources.gardener.cloud/skip"])
		assert.Equal(t, map[string]string{"app": "gardener", "role": "gardenlet"}, d.Spec.Selector.MatchLabels)
		for k, val := range map[string]string{
			"projected-token-mount.resources.gardener.cloud/skip":                         "true",
			"seccompprofile.resources.gardener.cloud/skip":                                "true",
			"networking.resources.gardener.cloud/to-all-shoots-etcd-main-client-tcp-8080": "allowed",
			"networking.resources.gardener.cloud/to-all-shoots-kube-apiserver-tcp-443":    "allowed",
			"release": "gardenlet",
		} {
			assert.Equal(t, val, d.Spec.Template.Labels[k], k)
		}
		assert.Equal(t, "2729", d.Spec.Template.Annotations["prometheus.io/port"])
		require.Len(t, d.Spec.Template.Spec.Tolerations, 2)
		assert.EqualValues(t, 60, *d.Spec.Template.Spec.Tolerations[0].TolerationSeconds)
		assert.Equal(t, "gardener-system-critical", d.Spec.Template.Spec.PriorityClassName)
		assert.EqualValues(t, 65532, *d.Spec.Template.Spec.SecurityContext.FSGroup)
		var keys []string
		for _, c := range d.Spec.Template.Spec.TopologySpreadConstraints {
			keys = append(keys, c.TopologyKey)
		}
		assert.Equal(t, tt.spread, keys)
		c := d.Spec.Template.Spec.Containers[0]
		assert.Equal(t, "europe-docker.pkg.dev/gardener-project/releases/gardener/gardenlet:v1.120.0", c.Image)
		assert.Equal(t, []string{"--config=/etc/gardenlet/config/config.yaml"}, c.Args)
		assert.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
		assert.EqualValues(t, 15, c.LivenessProbe.InitialDelaySeconds)
		assert.EqualValues(t, 10, c.ReadinessProbe.InitialDelaySeconds)
		assert.Equal(t, "100Mi", c.Resources.Requests.Memory().String())
		assert.Empty(t, c.Ports)
		assert.Equal(t, []string{"kube-api-access-gardener", "gardenlet-config"}, []string{c.VolumeMounts[0].Name, c.VolumeMounts[1].Name})
		assert.Equal(t, tt.replicas > 1, rendertest.Find(objs, "PodDisruptionBudget", "gardenlet") != nil)

		cm := ConfigMapOf(objs)
		assert.Regexp(t, `^gardenlet-configmap-[0-9a-f]{8}$`, cm.GetName())
		immutable, _, _ := unstructured.NestedBool(cm.Object, "immutable")
		assert.True(t, immutable)
		assert.Equal(t, cm.GetName(), d.Spec.Template.Spec.Volumes[1].ConfigMap.Name)

		for _, name := range []string{ClusterRoleName, ClusterRoleName + ":apiserver-sni", ClusterRoleName + ":managed-istio"} {
			rendertest.MustFind(t, objs, "ClusterRole", name)
			rendertest.MustFind(t, objs, "ClusterRoleBinding", name)
		}
		role := rendertest.Typed[rbacv1.Role](t, objs, "Role", ClusterRoleName)
		assert.Equal(t, []rbacv1.PolicyRule{{APIGroups: []string{"apps"}, Resources: []string{"daemonsets"}, Verbs: []string{"create"}}}, role.Rules)
		np := rendertest.Typed[networkingv1.NetworkPolicy](t, objs, "NetworkPolicy", "allow-all-egress-from-gardenlet")
		assert.Equal(t, []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}, np.Spec.PolicyTypes)
		svc := rendertest.Typed[corev1.Service](t, objs, "Service", "gardenlet")
		assert.Equal(t, "gardenlet", svc.Spec.Selector["release"])

		s := rendertest.Typed[corev1.Secret](t, objs, "Secret", "gardenlet-kubeconfig-bootstrap")
		assert.Equal(t, v.BootstrapKubeconfig, s.StringData["kubeconfig"])

		cfg := configOf(t, objs)
		assert.Equal(t, "gardenlet.config.gardener.cloud/v1alpha1", cfg["apiVersion"])
		client := cfg["gardenClientConnection"].(map[string]any)
		assert.Equal(t, map[string]any{"name": "gardenlet-kubeconfig", "namespace": "garden"}, client["kubeconfigSecret"])
		assert.Equal(t, map[string]any{"name": "gardenlet-kubeconfig-bootstrap", "namespace": "garden"}, client["bootstrapKubeconfig"])
		assert.EqualValues(t, 100, client["qps"])
		assert.Equal(t, "15s", cfg["leaderElection"].(map[string]any)["leaseDuration"])
		assert.EqualValues(t, 60, cfg["nodeToleration"].(map[string]any)["defaultNotReadyTolerationSeconds"])
		assert.Equal(t, "250", cfg["resources"].(map[string]any)["capacity"].(map[string]any)["shoots"])
		assert.Equal(t, "1h", cfg["controllers"].(map[string]any)["shoot"].(map[string]any)["syncPeriod"])
		seed := cfg["seedConfig"].(map[string]any)
		assert.Equal(t, "local", seed["metadata"].(map[string]any)["name"])
	}
}

// TestControllersMergeOverTheChart checks that a landscape's controllers settings replace the
// chart's setting for setting.
func TestControllersMergeOverTheChart(t *testing.T) {
	v := minimal()
	v.Controllers = map[string]any{"shoot": map[string]any{"syncPeriod": "5m"}, "custom": map[string]any{"x": "y"}}
	objs, err := Objects(v)
	require.NoError(t, err)
	controllers := configOf(t, objs)["controllers"].(map[string]any)
	assert.Equal(t, "5m", controllers["shoot"].(map[string]any)["syncPeriod"])
	assert.Equal(t, "12h", controllers["shoot"].(map[string]any)["retryDuration"], "the chart's other settings stay")
	assert.Equal(t, map[string]any{"x": "y"}, controllers["custom"])
}

func TestWithoutBootstrapKubeconfig(t *testing.T) {
	v := minimal()
	v.BootstrapKubeconfig = ""
	objs, err := Objects(v)
	require.NoError(t, err)
	assert.Nil(t, rendertest.Find(objs, "Secret", BootstrapKubeconfigSecretName))
	assert.NotContains(t, configOf(t, objs)["gardenClientConnection"], "bootstrapKubeconfig")
}

func TestGardenCABundle(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{testPEM, base64.StdEncoding.EncodeToString([]byte(testPEM))},
		{render.GeneratedRef("garden", "ca", "ca.crt", true), render.GeneratedRef("garden", "ca", "ca.crt", true)},
		{render.UnknownString, render.UnknownString},
	} {
		v := minimal()
		v.GardenCABundle = tt.in
		objs, err := Objects(v)
		require.NoError(t, err)
		assert.Equal(t, tt.want, configOf(t, objs)["gardenClientConnection"].(map[string]any)["gardenClusterCACert"])
	}
}

func TestNoSecretValuesOutsideSecrets(t *testing.T) {
	v := minimal()
	v.BootstrapKubeconfig = "token: very-secret-bootstrap-token"
	objs, err := Objects(v)
	require.NoError(t, err)
	for _, o := range objs {
		if o.Object.GetKind() == "Secret" {
			continue
		}
		raw, err := yaml.Marshal(o.Object.Object)
		require.NoError(t, err)
		assert.NotContains(t, string(raw), "very-secret-bootstrap-token", o.Object.GetKind())
	}
}

func TestErrors(t *testing.T) {
	for name, mutate := range map[string]func(*Values){
		"no seed name":  func(v *Values) { v.SeedName = "" },
		"bad seed name": func(v *Values) { v.SeedName = "Local_Seed" },
		"no seed spec":  func(v *Values) { v.SeedSpec = nil },
		"bad namespace": func(v *Values) { v.Namespace = "Garden" },
		"bad log level": func(v *Values) { v.LogLevel = "trace" },
		"unknown image": func(v *Values) { v.Images = map[string]string{"gardenlett": "v1"} },
	} {
		t.Run(name, func(t *testing.T) {
			v := minimal()
			mutate(&v)
			_, err := Objects(v)
			assert.Error(t, err)
		})
	}
	_, err := Type.RenderConfig(render.Input{Config: rendertest.Config(defaults, map[string]cty.Value{"replica_count": cty.NumberIntVal(2)})})
	assert.Error(t, err)
}
