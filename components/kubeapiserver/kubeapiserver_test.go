package kubeapiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

var runtimeCluster = decode.Cluster{Name: "runtime"}

func minimal() Values {
	return rendertest.Overlay(Type.Defaults(), Values{
		Cluster:           runtimeCluster,
		KubernetesVersion: "1.31.4",
		DNSDomains:        []string{"garden.example.com"},
		ServiceNetwork:    "100.64.0.0/13",
	})
}

func cases() map[string]Values {
	ha := minimal()
	ha.HighAvailability = true
	ha.DNSDomains = []string{"garden.example.com", "garden.example.org"}
	ha.EncryptedResources = []string{"configmaps", "shoots.core.gardener.cloud"}
	ha.AuditPolicyConfigMap = "audit-policy"
	ha.EventTTL = "24h"
	ha.FeatureGates = map[string]bool{"WatchList": true, "AnonymousAuthConfigurableEndpoints": false}
	ha.EnableAdmissionPlugins = []string{"EventRateLimit"}
	ha.AdmissionPluginConfigs = map[string]string{"EventRateLimit": "apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Server\n  qps: 50\n  burst: 100\n"}
	ha.TopologyAwareRouting = true
	ha.Images = map[string]string{"kube-apiserver": "registry.example.com/kube-apiserver@sha256:0123"}

	shoot := minimal()
	shoot.NamePrefix = ""
	shoot.Namespace = "shoot--dev--a"
	shoot.SNI = false
	shoot.PriorityClassName = "gardener-system-500"
	shoot.ScrapeTargetsAlias = "all-scrape-targets"
	shoot.CPURequest, shoot.MemoryRequest = "250m", "500Mi"
	hibernated := shoot
	hibernated.Hibernated = true
	return map[string]Values{"default": minimal(), "ha-customised": ha, "shoot-without-sni": shoot, "shoot-hibernated": hibernated}
}

func TestObjectsGolden(t *testing.T) {
	for name, v := range cases() {
		t.Run(name, func(t *testing.T) {
			objs, err := Objects(v)
			require.NoError(t, err)
			golden.Assert(t, name, objs)
		})
	}
}

// find returns the rendered object of a kind, converted into out when out is a typed struct.
func find(t *testing.T, v Values, kind string, out any) *unstructured.Unstructured {
	t.Helper()
	objs, err := Objects(v)
	require.NoError(t, err)
	for _, o := range objs {
		if o.Object.GetKind() == kind {
			if out != nil {
				require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object.Object, out))
			}
			return o.Object
		}
	}
	t.Fatalf("no %s rendered", kind)
	return nil
}

func TestDeploymentFacts(t *testing.T) {
	var d appsv1.Deployment
	u := find(t, minimal(), "Deployment", &d)
	// Gardener's "Gardener Operator" docs/concepts/operator.md: the Deployment's name; Gardener's
	// docs/concepts/operator.md: in the garden namespace.
	assert.Equal(t, "virtual-garden-kube-apiserver", u.GetName())
	assert.Equal(t, "garden", u.GetNamespace())
	// Gardener's "Priority Classes" docs/development/priority-classes.md: gardener-garden-system-500.
	assert.Equal(t, "gardener-garden-system-500", d.Spec.Template.Spec.PriorityClassName)
	assert.Nil(t, d.Spec.Replicas, "the HPA owns the replicas")
	for k, val := range d.Spec.Selector.MatchLabels {
		assert.Equal(t, val, d.Spec.Template.Labels[k], k)
	}
	c := d.Spec.Template.Spec.Containers[0]
	assert.Equal(t, "registry.k8s.io/kube-apiserver:v1.31.4", c.Image)
	// Gardener's "Autoscaling Specifics for Components"
	// docs/development/autoscaling-specifics-for-components.md: initial requests 600m and 512Mi.
	assert.Equal(t, "600m", c.Resources.Requests.Cpu().String())
	assert.Equal(t, "512Mi", c.Resources.Requests.Memory().String())
	assert.Contains(t, c.Args, "--etcd-servers=https://virtual-garden-etcd-main-client.garden.svc:2379")
	// Events live in the events etcd (Gardener's "etcd" docs/concepts/etcd.md, "Topology Aware
	// Routing" docs/operations/topology_aware_routing.md).
	assert.Contains(t, c.Args, "--etcd-servers-overrides=/events#https://virtual-garden-etcd-events-client.garden.svc:2379")
	// Gardener's docs/concepts/operator.md: the first domain is the external hostname.
	assert.Contains(t, c.Args, "--external-hostname=api.garden.example.com")
	assert.Contains(t, c.Args, "--service-cluster-ip-range=100.64.0.0/13")
	assert.Contains(t, c.Args, "--authorization-mode=RBAC")
	assert.Contains(t, c.Args, "--encryption-provider-config=/etc/kubernetes/etcd-encryption-secret/encryption-configuration.yaml")
	assert.NotContains(t, c.Args, "--feature-gates=")
	assert.Equal(t, "allowed", d.Spec.Template.Labels["networking.resources.gardener.cloud/to-virtual-garden-etcd-main-client-tcp-2379"])
	for _, sc := range d.Spec.Template.Spec.TopologySpreadConstraints {
		assert.Equal(t, corev1.ScheduleAnyway, sc.WhenUnsatisfiable)
	}
}

func TestEtcdEndpointsCanBeOverridden(t *testing.T) {
	v := minimal()
	v.EtcdMainEndpoint, v.EtcdEventsEndpoint = "https://etcd-a:2379", "https://etcd-b:2379"
	var d appsv1.Deployment
	find(t, v, "Deployment", &d)
	assert.Contains(t, d.Spec.Template.Spec.Containers[0].Args, "--etcd-servers=https://etcd-a:2379")
	assert.Contains(t, d.Spec.Template.Spec.Containers[0].Args, "--etcd-servers-overrides=/events#https://etcd-b:2379")
}

func TestAutoscaling(t *testing.T) {
	for _, tc := range []struct {
		ha       bool
		min, max int32
	}{
		// Gardener's docs/development/autoscaling-specifics-for-components.md: min 2 for a non-HA, 3 for
		// an HA virtual cluster; max 6.
		{false, 2, 6},
		{true, 3, 6},
	} {
		v := minimal()
		v.HighAvailability = tc.ha
		var h autoscalingv2.HorizontalPodAutoscaler
		find(t, v, "HorizontalPodAutoscaler", &h)
		assert.Equal(t, tc.min, *h.Spec.MinReplicas)
		assert.Equal(t, tc.max, h.Spec.MaxReplicas)
		assert.Equal(t, "virtual-garden-kube-apiserver", h.Spec.ScaleTargetRef.Name)
		// Gardener's docs/development/autoscaling-specifics-for-components.md: average usage of 6 CPUs
		// and 24G, not utilization.
		require.Len(t, h.Spec.Metrics, 2)
		assert.Equal(t, autoscalingv2.AverageValueMetricType, h.Spec.Metrics[0].Resource.Target.Type)
		assert.Equal(t, "6", h.Spec.Metrics[0].Resource.Target.AverageValue.String())
		assert.Equal(t, "24G", h.Spec.Metrics[1].Resource.Target.AverageValue.String())
	}
}

// TestHibernation checks that a hibernated API server is scaled to zero (Gardener's "Shoot
// Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component Checklist"
// docs/development/component-checklist.md) and keeps its HPA, which does not scale a target at
// zero, so that hibernating deletes nothing, and that an awake one leaves the replicas to its HPA.
func TestHibernation(t *testing.T) {
	kinds := func(objs []render.Object) []string {
		var out []string
		for _, o := range objs {
			out = append(out, o.Object.GetKind())
		}
		return out
	}
	awake := minimal()
	asleep := minimal()
	asleep.Hibernated = true

	var d appsv1.Deployment
	find(t, asleep, "Deployment", &d)
	require.NotNil(t, d.Spec.Replicas)
	assert.Equal(t, int32(0), *d.Spec.Replicas)
	objs, err := Objects(asleep)
	require.NoError(t, err)
	assert.Contains(t, kinds(objs), "HorizontalPodAutoscaler", "kept: hibernating deletes nothing")
	assert.Contains(t, kinds(objs), "PodDisruptionBudget")

	find(t, awake, "Deployment", &d)
	assert.Nil(t, d.Spec.Replicas, "the HPA owns the replicas")
	objs, err = Objects(awake)
	require.NoError(t, err)
	assert.Contains(t, kinds(objs), "HorizontalPodAutoscaler")
}

func TestServiceFacts(t *testing.T) {
	var s corev1.Service
	find(t, minimal(), "Service", &s)
	// Gardener's docs/concepts/operator.md: ClusterIP only; Gardener's "Network Policies"
	// docs/operations/network_policies.md: port 443.
	assert.Equal(t, corev1.ServiceTypeClusterIP, s.Spec.Type)
	require.Len(t, s.Spec.Ports, 1)
	assert.Equal(t, int32(443), s.Spec.Ports[0].Port)
	assert.Equal(t, int32(443), s.Spec.Ports[0].TargetPort.IntVal)
	assert.Equal(t, `[{"matchLabels":{"kubernetes.io/metadata.name":"virtual-garden-istio-ingress"}}]`, s.Annotations["networking.resources.gardener.cloud/namespace-selectors"])
	assert.NotContains(t, s.Annotations, "service.kubernetes.io/topology-mode")
}

func TestIstioExposure(t *testing.T) {
	v := minimal()
	v.DNSDomains = []string{"a.example.com", "b.example.com"}
	gw := find(t, v, "Gateway", nil)
	assert.Equal(t, "networking.istio.io/v1beta1", gw.GetAPIVersion())
	assert.Equal(t, "garden", gw.GetNamespace())
	sel, _, _ := unstructured.NestedStringMap(gw.Object, "spec", "selector")
	assert.Equal(t, map[string]string{"app": "istio-ingressgateway", "istio": "ingressgateway"}, sel)
	servers, _, _ := unstructured.NestedSlice(gw.Object, "spec", "servers")
	require.Len(t, servers, 1)
	server := servers[0].(map[string]any)
	// Gardener's docs/concepts/operator.md: api.<domain> and gardener.<domain> for every domain.
	assert.Equal(t, []any{"api.a.example.com", "api.b.example.com", "gardener.a.example.com", "gardener.b.example.com"}, server["hosts"])
	assert.Equal(t, map[string]any{"mode": "PASSTHROUGH"}, server["tls"])

	vs := find(t, v, "VirtualService", nil)
	routes, _, _ := unstructured.NestedSlice(vs.Object, "spec", "tls")
	require.Len(t, routes, 1)
	dest := routes[0].(map[string]any)["route"].([]any)[0].(map[string]any)["destination"].(map[string]any)
	assert.Equal(t, "virtual-garden-kube-apiserver.garden.svc.cluster.local", dest["host"])

	dr := find(t, v, "DestinationRule", nil)
	host, _, _ := unstructured.NestedString(dr.Object, "spec", "host")
	mode, _, _ := unstructured.NestedString(dr.Object, "spec", "trafficPolicy", "tls", "mode")
	assert.Equal(t, "virtual-garden-kube-apiserver.garden.svc.cluster.local", host)
	assert.Equal(t, "DISABLE", mode)
}

func TestNoIstioWithoutSNI(t *testing.T) {
	v := minimal()
	v.SNI = false
	objs, err := Objects(v)
	require.NoError(t, err)
	for _, o := range objs {
		assert.NotEqual(t, "networking.istio.io/v1beta1", o.Object.GetAPIVersion(), o.Object.GetKind())
	}
}

func TestEncryptedResources(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version string
		extra   []string
		want    []string
		err     string
	}{
		// Gardener's docs/concepts/operator.md: Secrets are always encrypted.
		{"nothing extra", "1.31.0", nil, []string{"secrets"}, ""},
		{"secrets only once", "1.31.0", []string{"secrets", "secrets"}, []string{"secrets"}, ""},
		{"sorted", "1.31.0", []string{"shoots.core.gardener.cloud", "configmaps"}, []string{"configmaps", "secrets", "shoots.core.gardener.cloud"}, ""},
		{"built-in group before 1.26", "1.25.3", []string{"ingresses.networking.k8s.io"}, []string{"ingresses.networking.k8s.io", "secrets"}, ""},
		// Gardener's docs/concepts/operator.md: custom resources only from 1.26.
		{"custom resource before 1.26", "1.25.3", []string{"shoots.core.gardener.cloud"}, nil, "needs 1.26 or later"},
		{"custom resource at 1.26", "1.26.0", []string{"shoots.core.gardener.cloud"}, []string{"secrets", "shoots.core.gardener.cloud"}, ""},
		{"malformed", "1.31.0", []string{"Secrets"}, nil, `encrypted resource "Secrets" is not of the form`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EncryptedResources(tc.version, tc.extra)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestEncryptionConfiguration(t *testing.T) {
	data, err := EncryptionConfiguration([]string{"secrets"}, []EncryptionKey{{Name: "key1", Secret: "c2VjcmV0"}})
	require.NoError(t, err)
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal(data, &cfg))
	assert.Equal(t, "EncryptionConfiguration", cfg["kind"])
	r := cfg["resources"].([]any)[0].(map[string]any)
	assert.Equal(t, []any{"secrets"}, r["resources"])
	providers := r["providers"].([]any)
	require.Len(t, providers, 2)
	assert.Contains(t, providers[0], "aescbc")
	assert.Contains(t, providers[1], "identity")

	_, err = EncryptionConfiguration([]string{"secrets"}, nil)
	assert.ErrorContains(t, err, "no keys")
	_, err = EncryptionConfiguration(nil, []EncryptionKey{{Name: "k", Secret: "s"}})
	assert.ErrorContains(t, err, "no resources")
	_, err = EncryptionConfiguration([]string{"secrets"}, []EncryptionKey{{Name: "k"}})
	assert.ErrorContains(t, err, "key 1 needs a name and a secret")
}

func TestAuditPolicy(t *testing.T) {
	v := minimal()
	v.AuditPolicyConfigMap = "audit"
	var d appsv1.Deployment
	find(t, v, "Deployment", &d)
	assert.Contains(t, d.Spec.Template.Spec.Containers[0].Args, "--audit-policy-file=/etc/kubernetes/audit/audit-policy.yaml")
	found := false
	for _, vol := range d.Spec.Template.Spec.Volumes {
		if vol.ConfigMap != nil && vol.ConfigMap.Name == "audit" {
			found = true
		}
	}
	assert.True(t, found, "the audit policy ConfigMap is mounted")
}

func TestRenderOutputs(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Config: rendertest.ConfigOf(Type, map[string]cty.Value{
		"cluster":             cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime")}),
		"kubernetes_version":  cty.StringVal("1.32.0"),
		"dns_domains":         cty.ListVal([]cty.Value{cty.StringVal("garden.example.com")}),
		"service_network":     cty.StringVal("100.64.0.0/13"),
		"encrypted_resources": cty.ListVal([]cty.Value{cty.StringVal("configmaps")}),
	})})
	require.NoError(t, err)
	assert.Equal(t, "virtual-garden-kube-apiserver", out.Outputs["service_name"].AsString())
	assert.Equal(t, "https://api.garden.example.com", out.Outputs["endpoint"].AsString())
	assert.Equal(t, "https://virtual-garden-kube-apiserver.garden.svc", out.Outputs["internal_endpoint"].AsString())
	assert.Equal(t, cty.ListVal([]cty.Value{cty.StringVal("configmaps"), cty.StringVal("secrets")}), out.Outputs["encrypted_resources"])
	assert.True(t, out.Outputs["server_dns_names"].LengthInt() > 8)
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Values)
		err    string
	}{
		{"no version", func(v *Values) { v.KubernetesVersion = "" }, "kubernetes version is required"},
		{"no domains", func(v *Values) { v.DNSDomains = nil }, "dns domains: at least one domain is required"},
		{"bad service network", func(v *Values) { v.ServiceNetwork = "100.64.0.0" }, `service network "100.64.0.0"`},
		{"host bits", func(v *Values) { v.ServiceNetwork = "100.64.0.1/13" }, "has host bits set"},
		{"unknown image", func(v *Values) { v.Images = map[string]string{"kube-api": "v1"} }, `kube-apiserver images: image "kube-api" is not in the image vector`},
		{"custom resource too early", func(v *Values) {
			v.KubernetesVersion = "1.25.0"
			v.EncryptedResources = []string{"foos.example.com"}
		}, "needs 1.26 or later"},
		{"admission config not YAML", func(v *Values) { v.AdmissionPluginConfigs = map[string]string{"X": "a: [b"} }, "admission plugin X configuration"},
		{"admission config not an object", func(v *Values) { v.AdmissionPluginConfigs = map[string]string{"X": "- a"} }, "admission plugin X configuration is not a YAML object"},
		{"bad cpu", func(v *Values) { v.CPURequest = "lots" }, `cpu request "lots"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := minimal()
			tc.change(&v)
			_, err := Objects(v)
			assert.ErrorContains(t, err, tc.err)
		})
	}
}
