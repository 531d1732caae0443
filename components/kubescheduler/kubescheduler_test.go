package kubescheduler

import (
	"strings"
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

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

const shootNamespace = "shoot--dev--a"

// defaults are the schema's defaults plus the required attributes, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{
	"cluster":            rendertest.Cluster("seed"),
	"namespace":          cty.StringVal(shootNamespace),
	"kubernetes_version": cty.StringVal("1.32.3"),
}).AsValueMap()

func TestRenderGolden(t *testing.T) {
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "kube_scheduler"}, map[string]cty.Value{
		"default": rendertest.Config(defaults, nil),
		"ha-bin-packing": rendertest.Config(defaults, map[string]cty.Value{
			"high_availability":      cty.True,
			"profile":                cty.StringVal("bin-packing"),
			"feature_gates":          cty.MapVal(map[string]cty.Value{"B": cty.False, "A": cty.True}),
			"images":                 cty.MapVal(map[string]cty.Value{"kube-scheduler": cty.StringVal("mirror.example.com/kube-scheduler:v1.32.4")}),
			"ca_bundle":              cty.StringVal("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"),
			"server_tls_secret_name": cty.StringVal("kube-scheduler-server"),
		}),
	})
}

func minimal() Values {
	return values(Values{Cluster: decode.Cluster{Name: "seed"}, Namespace: shootNamespace, KubernetesVersion: "1.32.3"})
}

func typed[T any](t *testing.T, objs []render.Object, kind, name string) T {
	t.Helper()
	var out T
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(rendertest.MustFind(t, objs, kind, name).Object, &out))
	return out
}

func TestDocumentedFacts(t *testing.T) {
	for _, tt := range []struct {
		ha       bool
		replicas int32
	}{
		// Controllers of a control plane: 1 without HA, 2 with failure tolerance node or zone
		// (Gardener's "High Availability Of Components"
		// docs/development/high-availability-of-components.md).
		{false, 1},
		{true, 2},
	} {
		v := minimal()
		v.HighAvailability = tt.ha
		objs, err := Objects(v)
		require.NoError(t, err)
		// Gardener's "ControlPlane Webhooks" docs/extensions/controlplane-webhooks.md: Deployment
		// kube-scheduler in the shoot namespace, container of the same name.
		d := typed[appsv1.Deployment](t, objs, "Deployment", "kube-scheduler")
		assert.Equal(t, shootNamespace, d.Namespace)
		assert.Equal(t, tt.replicas, *d.Spec.Replicas)
		// Gardener's "Priority Classes" docs/development/priority-classes.md: gardener-system-300.
		assert.Equal(t, "gardener-system-300", d.Spec.Template.Spec.PriorityClassName)
		c := d.Spec.Template.Spec.Containers[0]
		assert.Equal(t, "kube-scheduler", c.Name)
		assert.Equal(t, "registry.k8s.io/kube-scheduler:v1.32.3", c.Image)
		// Gardener's docs/extensions/controlplane-webhooks.md: the flags live in the command.
		assert.Contains(t, c.Command, "--config=/var/lib/kube-scheduler-config/config.yaml")
		assert.Contains(t, c.Command, "--authentication-kubeconfig=/var/run/secrets/gardener.cloud/shoot/access/kubeconfig")
		assert.Contains(t, c.Command, "--authorization-kubeconfig=/var/run/secrets/gardener.cloud/shoot/access/kubeconfig")
		assert.Contains(t, c.Command, "--secure-port=10259")
		// The weeder restarts controlplane pods after kube-apiserver is back (Gardener's "Seed
		// Bootstrapping" docs/operations/seed_bootstrapping.md).
		assert.Equal(t, "controlplane", d.Spec.Template.Labels["gardener.cloud/role"])
		for k, val := range d.Spec.Selector.MatchLabels {
			assert.Equal(t, val, d.Spec.Template.Labels[k], k)
		}
		assert.Equal(t, tt.ha, rendertest.Find(objs, "PodDisruptionBudget", "kube-scheduler") != nil)
		assert.Equal(t, tt.ha, len(d.Spec.Template.Spec.TopologySpreadConstraints) > 0)
	}
}

// TestHibernation checks that a hibernated scheduler has no replicas, with or without high
// availability (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component
// Checklist" docs/development/component-checklist.md).
func TestHibernation(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ha, asleep bool
		replicas   int32
	}{
		{"awake", false, false, 1},
		{"awake HA", true, false, 2},
		{"hibernated", false, true, 0},
		{"hibernated HA", true, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := minimal()
			v.HighAvailability, v.Hibernated = tc.ha, tc.asleep
			objs, err := Objects(v)
			require.NoError(t, err)
			d := typed[appsv1.Deployment](t, objs, "Deployment", "kube-scheduler")
			require.NotNil(t, d.Spec.Replicas)
			assert.Equal(t, tc.replicas, *d.Spec.Replicas)
		})
	}
}

// TestPriorityClass checks the default, gardener-system-300 (Gardener's
// docs/development/priority-classes.md), and that Go callers may choose another class.
func TestPriorityClass(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"", "gardener-system-300"},
		{"gardener-garden-system-300", "gardener-garden-system-300"},
	} {
		v := minimal()
		v.PriorityClassName = tc.set
		objs, err := Objects(v)
		require.NoError(t, err)
		d := typed[appsv1.Deployment](t, objs, "Deployment", "kube-scheduler")
		assert.Equal(t, tc.want, d.Spec.Template.Spec.PriorityClassName)
	}
}

func TestAccessSecret(t *testing.T) {
	objs, err := Objects(minimal())
	require.NoError(t, err)
	s := typed[corev1.Secret](t, objs, "Secret", "shoot-access-kube-scheduler")
	assert.Equal(t, shootNamespace, s.Namespace)
	assert.Equal(t, "token-requestor", s.Labels["resources.gardener.cloud/purpose"])
	assert.Equal(t, "shoot", s.Labels["resources.gardener.cloud/class"])
	assert.Equal(t, "kube-scheduler", s.Annotations["serviceaccount.resources.gardener.cloud/name"])
	assert.Equal(t, "kube-system", s.Annotations["serviceaccount.resources.gardener.cloud/namespace"])
	var kubeconfig map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(s.StringData["kubeconfig"]), &kubeconfig))
	cluster := kubeconfig["clusters"].([]any)[0].(map[string]any)["cluster"].(map[string]any)
	assert.Equal(t, "https://kube-apiserver.shoot--dev--a.svc", cluster["server"])
	assert.Equal(t, render.GeneratedRef(shootNamespace, "ca", "ca.crt", true), cluster["certificate-authority-data"])
	user := kubeconfig["users"].([]any)[0].(map[string]any)["user"].(map[string]any)
	assert.Equal(t, "/var/run/secrets/gardener.cloud/shoot/access/token", user["tokenFile"])
	d := typed[appsv1.Deployment](t, objs, "Deployment", "kube-scheduler")
	assert.Equal(t, "shoot-access-kube-scheduler", d.Spec.Template.Spec.Volumes[0].Secret.SecretName)
}

func TestProfiles(t *testing.T) {
	config := func(profile string) map[string]any {
		v := minimal()
		v.Profile = profile
		objs, err := Objects(v)
		require.NoError(t, err)
		cm := typed[corev1.ConfigMap](t, objs, "ConfigMap", "kube-scheduler-config")
		var cfg map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(cm.Data["config.yaml"]), &cfg))
		return cfg
	}
	// Gardener's "Shoot Scheduling Profiles" docs/usage/shoot/shoot_scheduling_profiles.md: balanced
	// starts without profiles; Gardener's KubeSchedulerConfig in docs/api-reference/core.md: it is the
	// default.
	assert.Equal(t, ProfileBalanced, Type.Defaults().Profile)
	assert.NotContains(t, config(ProfileBalanced), "profiles")
	// Gardener's docs/usage/shoot/shoot_scheduling_profiles.md: the bin-packing profile.
	profiles := config("bin-packing")["profiles"].([]any)
	var names []string
	for _, p := range profiles {
		names = append(names, p.(map[string]any)["schedulerName"].(string))
	}
	assert.Contains(t, names, "bin-packing-scheduler")
	raw, err := yaml.Marshal(profiles)
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(raw), "MostAllocated") && strings.Contains(string(raw), "NodeResourcesBalancedAllocation"))
}

func TestErrors(t *testing.T) {
	for name, mutate := range map[string]func(*Values){
		"no namespace":    func(v *Values) { v.Namespace = "" },
		"bad namespace":   func(v *Values) { v.Namespace = "Shoot_A" },
		"no version":      func(v *Values) { v.KubernetesVersion = "" },
		"bad version":     func(v *Values) { v.KubernetesVersion = "one" },
		"too old version": func(v *Values) { v.KubernetesVersion = "1.24.9" },
		"bad profile":     func(v *Values) { v.Profile = "packed" },
		"unknown image":   func(v *Values) { v.Images = map[string]string{"kube-schedulr": "v1.32.3"} },
	} {
		t.Run(name, func(t *testing.T) {
			v := minimal()
			mutate(&v)
			_, err := Objects(v)
			assert.Error(t, err)
		})
	}
	_, err := Type.RenderConfig(render.Input{Config: rendertest.Config(defaults, map[string]cty.Value{"kube_max_pd_vols": cty.StringVal("1")})})
	assert.Error(t, err)
}
