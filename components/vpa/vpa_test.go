package vpa

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

const testCA = "-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n"

// defaults are the attributes the engine passes for a block that sets only what it must: the
// schema's defaults, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{"cluster": rendertest.Cluster("runtime")}).AsValueMap()

// config is a configuration as the engine passes it: schema defaults filled in, extra
// attributes overriding them.
func config(extra map[string]cty.Value) cty.Value { return rendertest.Config(defaults, extra) }

func render1(t *testing.T, extra map[string]cty.Value) []render.Object {
	t.Helper()
	out, err := Type.RenderConfig(render.Input{Name: "vpa", Config: config(extra)})
	require.NoError(t, err)
	return out.Objects
}

func TestRenderGolden(t *testing.T) {
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "vpa"}, map[string]cty.Value{
		"default": config(nil),
		"high-availability": config(map[string]cty.Value{
			"namespace":         cty.StringVal("vpa"),
			"high_availability": cty.True,
			"ca_bundle":         cty.StringVal(testCA),
			"tls_secret_name":   cty.StringVal("vpa-tls"),
			"images":            cty.MapVal(map[string]cty.Value{"vpa-recommender": cty.StringVal("mirror.example.com/vpa-recommender:1.4.0")}),
		}),
	})
}

// The facts of pkg/component/autoscaling/vpa and its test in gardener/gardener v1.120.0 for cluster
// type seed, with the tuning of pkg/component/shared/vpa.go, one row per component.
func TestGardenerFacts(t *testing.T) {
	objs := render1(t, map[string]cty.Value{"ca_secret_name": cty.StringVal("ca-seed")})
	for _, tt := range []struct {
		component, container, haType, class string
		args                                []string
		ports                               []corev1.ContainerPort
		cpu, memory                         string
		env, vpa                            bool
	}{
		{
			component: "vpa-admission-controller", container: "admission-controller", haType: "server", class: "gardener-garden-system-300",
			args: []string{"--v=2", "--stderrthreshold=info", "--kube-api-qps=200", "--kube-api-burst=250",
				"--client-ca-file=/etc/tls-certs/bundle.crt", "--tls-cert-file=/etc/tls-certs/tls.crt", "--tls-private-key=/etc/tls-certs/tls.key",
				"--address=:8944", "--port=10250", "--register-webhook=false"},
			ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: 8944}, {Name: "server", ContainerPort: 10250}},
			cpu:   "10m", memory: "30Mi", env: true, vpa: true,
		},
		{
			component: "vpa-recommender", container: "recommender", haType: "controller", class: "gardener-garden-system-200",
			args: []string{"--v=3", "--stderrthreshold=info", "--pod-recommendation-min-cpu-millicores=10", "--pod-recommendation-min-memory-mb=10",
				"--recommendation-margin-fraction=0.050000", "--recommender-interval=1m0s", "--kube-api-qps=200", "--kube-api-burst=250",
				"--memory-saver=true", "--target-cpu-percentile=0.900000", "--recommendation-lower-bound-cpu-percentile=0.500000",
				"--recommendation-upper-bound-cpu-percentile=0.950000", "--cpu-histogram-decay-half-life=24h0m0s",
				"--target-memory-percentile=0.900000", "--recommendation-lower-bound-memory-percentile=0.500000",
				"--recommendation-upper-bound-memory-percentile=0.950000", "--memory-histogram-decay-half-life=24h0m0s",
				"--memory-aggregation-interval=24h0m0s", "--memory-aggregation-interval-count=8",
				"--leader-elect=true", "--leader-elect-resource-name=vpa-recommender", "--leader-elect-resource-namespace=garden"},
			ports: []corev1.ContainerPort{{Name: "server", ContainerPort: 8080}, {Name: "metrics", ContainerPort: 8942}},
			cpu:   "200m", memory: "800M",
		},
		{
			component: "vpa-updater", container: "updater", haType: "controller", class: "gardener-garden-system-200",
			args: []string{"--min-replicas=1", "--eviction-tolerance=1.000000", "--eviction-rate-burst=1", "--eviction-rate-limit=-1.000000",
				"--evict-after-oom-threshold=48h0m0s", "--updater-interval=1m0s", "--stderrthreshold=info", "--v=2",
				"--kube-api-qps=200", "--kube-api-burst=250", "--leader-elect=true", "--leader-elect-resource-namespace=garden"},
			ports: []corev1.ContainerPort{{Name: "server", ContainerPort: 8080}, {Name: "metrics", ContainerPort: 8943}},
			cpu:   "10m", memory: "15Mi", env: true, vpa: true,
		},
	} {
		t.Run(tt.component, func(t *testing.T) {
			app := map[string]string{"app": tt.component}
			d := rendertest.Typed[appsv1.Deployment](t, objs, "Deployment", tt.component)
			assert.Equal(t, "garden", d.Namespace)
			assert.Equal(t, map[string]string{"app": tt.component, "gardener.cloud/role": "vpa", "high-availability-config.resources.gardener.cloud/type": tt.haType}, d.Labels)
			assert.Equal(t, app, d.Spec.Selector.MatchLabels, "selector")
			assert.Equal(t, map[string]string{"app": tt.component, "gardener.cloud/role": "vpa",
				"networking.gardener.cloud/to-dns": "allowed", "networking.gardener.cloud/to-runtime-apiserver": "allowed"}, d.Spec.Template.Labels)
			assert.Equal(t, int32(1), *d.Spec.Replicas)
			assert.Equal(t, int32(2), *d.Spec.RevisionHistoryLimit)
			pod := d.Spec.Template.Spec
			assert.Equal(t, tt.class, pod.PriorityClassName)
			assert.Equal(t, tt.component, pod.ServiceAccountName)
			assert.Nil(t, pod.SecurityContext)
			c := pod.Containers[0]
			assert.Equal(t, tt.container, c.Name)
			assert.Equal(t, corev1.PullIfNotPresent, c.ImagePullPolicy)
			assert.Equal(t, tt.args, c.Args)
			assert.Equal(t, tt.ports, c.Ports)
			assert.Equal(t, tt.cpu, c.Resources.Requests.Cpu().String())
			assert.Equal(t, tt.memory, c.Resources.Requests.Memory().String())
			assert.Empty(t, c.Resources.Limits)
			assert.Equal(t, &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)}, c.SecurityContext)
			assert.Equal(t, &corev1.Probe{
				ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health-check", Port: intstr.FromString("metrics"), Scheme: corev1.URISchemeHTTP}},
				InitialDelaySeconds: 120, PeriodSeconds: 60, TimeoutSeconds: 30, SuccessThreshold: 1, FailureThreshold: 3,
			}, c.LivenessProbe)
			if tt.env {
				assert.Equal(t, []corev1.EnvVar{{Name: "NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}, c.Env)
			} else {
				assert.Empty(t, c.Env)
			}

			sa := rendertest.Typed[corev1.ServiceAccount](t, objs, "ServiceAccount", tt.component)
			assert.False(t, *sa.AutomountServiceAccountToken)
			assert.Equal(t, map[string]string{"gardener.cloud/role": "vpa"}, sa.Labels)
			pdb := rendertest.Typed[policyv1.PodDisruptionBudget](t, objs, "PodDisruptionBudget", tt.component)
			assert.Equal(t, map[string]string{"gardener.cloud/role": "vpa"}, pdb.Labels)
			assert.Equal(t, app, pdb.Spec.Selector.MatchLabels)
			assert.Equal(t, int32(1), pdb.Spec.MaxUnavailable.IntVal)
			assert.Equal(t, policyv1.AlwaysAllow, *pdb.Spec.UnhealthyPodEvictionPolicy)
			vpa := rendertest.Find(objs, "VerticalPodAutoscaler", tt.component)
			assert.Equal(t, tt.vpa, vpa != nil)
			if vpa != nil {
				policies, _, _ := unstructured.NestedSlice(vpa.Object, "spec", "resourcePolicy", "containerPolicies")
				assert.Equal(t, []any{map[string]any{"containerName": "*", "controlledValues": "RequestsOnly"}}, policies)
			}
		})
	}
	// The serving certificate and Gardener's CA bundle key, projected into one directory.
	d := rendertest.Typed[appsv1.Deployment](t, objs, "Deployment", "vpa-admission-controller")
	vol := d.Spec.Template.Spec.Volumes[0]
	assert.Equal(t, "vpa-tls-certs", vol.Name)
	assert.Equal(t, int32(420), *vol.Projected.DefaultMode)
	assert.Equal(t, "ca-seed", vol.Projected.Sources[0].Secret.Name)
	assert.Equal(t, []corev1.KeyToPath{{Key: "ca.crt", Path: "bundle.crt"}}, vol.Projected.Sources[0].Secret.Items)
	assert.Equal(t, "vpa-admission-controller-server", vol.Projected.Sources[1].Secret.Name)
	assert.Equal(t, []corev1.KeyToPath{{Key: "tls.crt", Path: "tls.crt"}, {Key: "tls.key", Path: "tls.key"}}, vol.Projected.Sources[1].Secret.Items)
	assert.Equal(t, []corev1.VolumeMount{{Name: "vpa-tls-certs", MountPath: "/etc/tls-certs", ReadOnly: true}}, d.Spec.Template.Spec.Containers[0].VolumeMounts)
}

func TestServices(t *testing.T) {
	for _, tt := range []struct {
		garden bool
		scrape string
	}{
		{false, "networking.resources.gardener.cloud/from-all-seed-scrape-targets-allowed-ports"},
		{true, "networking.resources.gardener.cloud/from-all-garden-scrape-targets-allowed-ports"},
	} {
		v := rendertest.Overlay(Type.Defaults(), Values{Cluster: decode.Cluster{Name: "runtime"}, GardenRuntime: tt.garden})
		objs, err := Objects(v)
		require.NoError(t, err)
		webhook := rendertest.Typed[corev1.Service](t, objs, "Service", "vpa-webhook")
		assert.Equal(t, map[string]string{"app": "vpa-admission-controller", "gardener.cloud/role": "vpa"}, webhook.Labels)
		assert.Equal(t, map[string]string{
			"networking.resources.gardener.cloud/from-world-to-ports": `[{"protocol":"TCP","port":10250}]`,
			tt.scrape: `[{"protocol":"TCP","port":8944}]`,
		}, webhook.Annotations)
		assert.Equal(t, map[string]string{"app": "vpa-admission-controller"}, webhook.Spec.Selector)
		assert.Equal(t, []corev1.ServicePort{
			{Name: "metrics", Port: 8944, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8944)},
			{Name: "server", Port: 443, TargetPort: intstr.FromInt32(10250)},
		}, webhook.Spec.Ports)
		recommender := rendertest.Typed[corev1.Service](t, objs, "Service", "vpa-recommender")
		assert.Equal(t, map[string]string{"app": "vpa-recommender"}, recommender.Labels)
		assert.Equal(t, map[string]string{tt.scrape: `[{"protocol":"TCP","port":8942}]`}, recommender.Annotations)
		assert.Equal(t, []corev1.ServicePort{{Name: "metrics", Port: 8942, TargetPort: intstr.FromInt32(8942)}}, recommender.Spec.Ports)
	}
}

func TestHighAvailability(t *testing.T) {
	objs := render1(t, map[string]cty.Value{"high_availability": cty.True})
	for _, c := range []string{"vpa-admission-controller", "vpa-recommender", "vpa-updater"} {
		d := rendertest.Typed[appsv1.Deployment](t, objs, "Deployment", c)
		assert.Equal(t, int32(2), *d.Spec.Replicas, c)
		assert.NotEmpty(t, d.Spec.Template.Spec.TopologySpreadConstraints, c)
	}
}

func TestWebhook(t *testing.T) {
	objs := render1(t, map[string]cty.Value{"ca_bundle": cty.StringVal(testCA)})
	cfg := rendertest.Typed[admissionregistrationv1.MutatingWebhookConfiguration](t, objs, "MutatingWebhookConfiguration", "zzz-vpa-webhook-config-source")
	assert.Equal(t, map[string]string{"remediation.webhook.shoot.gardener.cloud/exclude": "true"}, cfg.Labels)
	assert.Contains(t, cfg.Annotations["gardener.cloud/description"], "intentionally starts with 'zzz'")
	require.Len(t, cfg.Webhooks, 1)
	wh := cfg.Webhooks[0]
	assert.Equal(t, "vpa.k8s.io", wh.Name)
	assert.Equal(t, admissionregistrationv1.Ignore, *wh.FailurePolicy)
	assert.Equal(t, admissionregistrationv1.Exact, *wh.MatchPolicy)
	assert.Equal(t, admissionregistrationv1.IfNeededReinvocationPolicy, *wh.ReinvocationPolicy)
	assert.Equal(t, admissionregistrationv1.SideEffectClassNone, *wh.SideEffects)
	assert.Equal(t, int32(10), *wh.TimeoutSeconds)
	assert.Equal(t, []byte(testCA), wh.ClientConfig.CABundle)
	assert.Equal(t, admissionregistrationv1.ServiceReference{Name: "vpa-webhook", Namespace: "garden", Port: ptr.To[int32](443)}, *wh.ClientConfig.Service)
	require.Len(t, wh.Rules, 2)
	assert.Equal(t, []string{"pods"}, wh.Rules[0].Resources)
	assert.Equal(t, admissionregistrationv1.AllScopes, *wh.Rules[0].Scope)
	assert.Equal(t, []string{"*"}, wh.Rules[1].APIVersions)
	assert.Equal(t, []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}, wh.Rules[1].Operations)
}

func TestWebhooksOff(t *testing.T) {
	objs := render1(t, map[string]cty.Value{"admission_webhooks": cty.False})
	assert.Nil(t, rendertest.Find(objs, "MutatingWebhookConfiguration", "zzz-vpa-webhook-config-source"))
	assert.NotNil(t, rendertest.Find(objs, "Deployment", "vpa-admission-controller"))
}

// Gardener's RBAC for a VPA acting on its own cluster: the gardener.cloud:vpa:source: ClusterRoles
// with their subjects, and the leader-locking Roles.
func TestCRDsAndRBAC(t *testing.T) {
	objs := render1(t, nil)
	for _, name := range []string{"verticalpodautoscalers.autoscaling.k8s.io", "verticalpodautoscalercheckpoints.autoscaling.k8s.io"} {
		assert.NotNil(t, rendertest.Find(objs, "CustomResourceDefinition", name), name)
	}
	for role, subjects := range map[string][]string{
		"admission-controller": {"vpa-admission-controller"},
		"metrics-reader":       {"vpa-recommender"},
		"checkpoint-actor":     {"vpa-recommender"},
		"status-actor":         {"vpa-recommender"},
		"evictioner":           {"vpa-updater"},
		"actor":                {"vpa-recommender", "vpa-updater"},
		"target-reader":        {"vpa-admission-controller", "vpa-recommender", "vpa-updater"},
	} {
		rendertest.MustFind(t, objs, "ClusterRole", "gardener.cloud:vpa:source:"+role)
		b := rendertest.Typed[rbacv1.ClusterRoleBinding](t, objs, "ClusterRoleBinding", "gardener.cloud:vpa:source:"+role)
		assert.Equal(t, map[string]string{"resources.gardener.cloud/delete-on-invalid-update": "true"}, b.Annotations)
		var got []string
		for _, s := range b.Subjects {
			assert.Equal(t, "garden", s.Namespace)
			got = append(got, s.Name)
		}
		assert.Equal(t, subjects, got, role)
	}
	for _, c := range []string{"vpa-recommender", "vpa-updater"} {
		r := rendertest.Typed[rbacv1.Role](t, objs, "Role", "gardener.cloud:vpa:source:leader-locking-"+c)
		assert.Equal(t, []string{c}, r.Rules[1].ResourceNames)
		rendertest.MustFind(t, objs, "RoleBinding", "gardener.cloud:vpa:source:leader-locking-"+c)
	}
}

func TestObjectsWithTheDefaults(t *testing.T) {
	objs, err := Objects(rendertest.Overlay(Type.Defaults(), Values{Cluster: decode.Cluster{Name: "runtime"}}))
	require.NoError(t, err)
	d := rendertest.Find(objs, "Deployment", "vpa-recommender")
	require.NotNil(t, d)
	assert.Equal(t, "garden", d.GetNamespace())
	assert.NotNil(t, rendertest.Find(objs, "MutatingWebhookConfiguration", "zzz-vpa-webhook-config-source"), "webhooks default to on")
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		config cty.Value
		want   string
	}{
		{"unknown image", config(map[string]cty.Value{"images": cty.MapVal(map[string]cty.Value{"vpa-nothing": cty.StringVal("1.0")})}), `image "vpa-nothing" is not in the image vector`},
		{"image without tag", config(map[string]cty.Value{"images": cty.MapVal(map[string]cty.Value{"vpa-updater": cty.StringVal("mirror.example.com/vpa")})}), "has no tag"},
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

// A composite that installs the CRDs first (a seed, as gardenlet does) leaves them out of the
// component's objects.
func TestCRDsApart(t *testing.T) {
	crdObjs, err := CRDObjects("seed")
	require.NoError(t, err)
	require.Len(t, crdObjs, 2)
	assert.Equal(t, "seed", crdObjs[0].Cluster)
	objs, err := Objects(rendertest.Overlay(Type.Defaults(), Values{Cluster: decode.Cluster{Name: "seed"}, OmitCRDs: true}))
	require.NoError(t, err)
	assert.Nil(t, rendertest.Find(objs, "CustomResourceDefinition", "verticalpodautoscalers.autoscaling.k8s.io"))
}
