package shootsystem

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/unique"
)

// proxyValues are the values of Gardener's apiserver-proxy tests (pkg/component/networking/apiserverproxy
// at gardener/gardener v1.120.0): the namespace shoot--internal--internal, the internal domain
// api.internal.local and the address 10.2.170.21.
func proxyValues() Values {
	v := base()
	v.APIServerHost = "api.internal.local"
	v.APIServerProxy = APIServerProxyConfig{AdvertiseAddress: "10.2.170.21", ControlPlaneNamespace: "shoot--internal--internal"}
	return v
}

// TestAPIServerProxyObjects: the DaemonSet, Service and ServiceAccount are Gardener's field for
// field; the ConfigMap is named after its content and the DaemonSet and its pods name it.
func TestAPIServerProxyObjects(t *testing.T) {
	objs, err := APIServerProxy(proxyValues())
	require.NoError(t, err)
	require.Len(t, objs, 4)
	kinds := []string{}
	for _, o := range objs {
		kinds = append(kinds, o.GetKind())
	}
	assert.Equal(t, []string{"ConfigMap", "ServiceAccount", "Service", "DaemonSet"}, kinds)

	labels := map[string]string{"app": "kubernetes", "gardener.cloud/role": "system-component", "origin": "gardener", "role": "apiserver-proxy"}
	selector := map[string]string{"app": "kubernetes", "role": "apiserver-proxy"}

	cm := objs[0]
	assert.Regexp(t, `^apiserver-proxy-config-[0-9a-f]{8}$`, cm.GetName())
	assert.Equal(t, "kube-system", cm.GetNamespace())
	assert.Equal(t, merge(labels, map[string]string{unique.Label: "true"}), cm.GetLabels())
	immutable, _, _ := unstructured.NestedBool(cm.Object, "immutable")
	assert.True(t, immutable)

	var sa corev1.ServiceAccount
	fromUnstructured(t, objs[1], &sa)
	assert.Equal(t, corev1.ServiceAccount{
		TypeMeta:                     metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta:                   metav1.ObjectMeta{Name: "apiserver-proxy", Namespace: "kube-system", Labels: labels},
		AutomountServiceAccountToken: ptr.To(false),
	}, sa)

	var svc corev1.Service
	fromUnstructured(t, objs[2], &svc)
	assert.Equal(t, corev1.ServiceSpec{
		Type: corev1.ServiceTypeClusterIP, ClusterIP: "None", Selector: selector,
		Ports: []corev1.ServicePort{{Name: "metrics", Port: 16910, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(16910)}},
	}, svc.Spec)
	assert.Equal(t, labels, svc.Labels)

	var ds appsv1.DaemonSet
	fromUnstructured(t, objs[3], &ds)
	refs := map[string]string{unique.AnnotationKey("configmap", cm.GetName()): cm.GetName()}
	assert.Equal(t, merge(labels, map[string]string{"node.gardener.cloud/critical-component": "true"}), ds.Labels)
	assert.Equal(t, refs, ds.Annotations)
	netAdmin := &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}}}
	resources := func(cpu, memory, limit string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(limit)},
		}
	}
	probe := func(period, failures int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(16910)}},
			InitialDelaySeconds: 1, PeriodSeconds: period, SuccessThreshold: 1, TimeoutSeconds: 1, FailureThreshold: failures,
		}
	}
	sidecar := "europe-docker.pkg.dev/gardener-project/releases/gardener/apiserver-proxy:v0.19.0"
	want := appsv1.DaemonSetSpec{
		UpdateStrategy:       appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType},
		RevisionHistoryLimit: ptr.To[int32](2),
		Selector:             &metav1.LabelSelector{MatchLabels: selector},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{
				Annotations: refs,
				Labels: merge(labels, map[string]string{
					"node.gardener.cloud/critical-component": "true",
					"networking.gardener.cloud/to-dns":       "allowed",
					"networking.gardener.cloud/to-apiserver": "allowed",
					"networking.gardener.cloud/from-seed":    "allowed",
				}),
			},
			Spec: corev1.PodSpec{
				ServiceAccountName: "apiserver-proxy",
				PriorityClassName:  "system-node-critical",
				Tolerations: []corev1.Toleration{
					{Effect: corev1.TaintEffectNoSchedule, Operator: corev1.TolerationOpExists},
					{Effect: corev1.TaintEffectNoExecute, Operator: corev1.TolerationOpExists},
				},
				HostNetwork:                  true,
				AutomountServiceAccountToken: ptr.To(false),
				SecurityContext:              &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
				InitContainers: []corev1.Container{{
					Name: "setup", Image: sidecar, ImagePullPolicy: corev1.PullIfNotPresent,
					Args:      []string{"--ip-address=10.2.170.21", "--daemon=false", "--interface=lo"},
					Resources: resources("20m", "20Mi", "200Mi"), SecurityContext: netAdmin,
				}},
				Containers: []corev1.Container{
					{
						Name: "sidecar", Image: sidecar, ImagePullPolicy: corev1.PullIfNotPresent,
						Args:      []string{"--ip-address=10.2.170.21", "--interface=lo"},
						Resources: resources("5m", "15Mi", "90Mi"), SecurityContext: netAdmin,
					},
					{
						Name: "proxy", Image: "europe-docker.pkg.dev/gardener-project/releases/3rd/envoyproxy/envoy-distroless:v1.34.1", ImagePullPolicy: corev1.PullIfNotPresent,
						Command:   []string{"envoy", "--concurrency", "2", "--use-dynamic-base-id", "-c", "/etc/apiserver-proxy/envoy.yaml"},
						Resources: resources("5m", "30Mi", "1Gi"),
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							Capabilities:             &corev1.Capabilities{Add: []corev1.Capability{"NET_BIND_SERVICE"}},
							RunAsUser:                ptr.To[int64](0),
						},
						ReadinessProbe: probe(2, 0),
						LivenessProbe:  probe(10, 3),
						Ports:          []corev1.ContainerPort{{Name: "metrics", ContainerPort: 16910, HostPort: 16910}},
						VolumeMounts: []corev1.VolumeMount{
							{Name: "proxy-config", MountPath: "/etc/apiserver-proxy"},
							{Name: "admin-uds", MountPath: "/etc/admin-uds"},
						},
					},
				},
				Volumes: []corev1.Volume{
					{Name: "proxy-config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.GetName()}}}},
					{Name: "admin-uds", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				},
			},
		},
	}
	assert.Equal(t, want, ds.Spec)
}

// TestAPIServerProxyEnvoyConfig: the tunnel from the advertised address through the seed's
// ingress gateway, and the metrics listener, as Gardener configures envoy
// (templates/envoy.yaml.tpl of pkg/component/networking/apiserverproxy at v1.120.0).
func TestAPIServerProxyEnvoyConfig(t *testing.T) {
	config := func(v Values) map[string]any {
		objs, err := APIServerProxy(v)
		require.NoError(t, err)
		doc, _, _ := unstructured.NestedString(objs[0].Object, "data", "envoy.yaml")
		var out map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(doc), &out))
		return out
	}
	c := config(proxyValues())
	get := func(obj any, path ...any) any {
		for _, step := range path {
			switch s := step.(type) {
			case string:
				m, ok := obj.(map[string]any)
				require.True(t, ok, "%v at %v", path, step)
				obj = m[s]
			case int:
				l, ok := obj.([]any)
				require.True(t, ok, "%v at %v", path, step)
				require.Greater(t, len(l), s, "%v at %v", path, step)
				obj = l[s]
			}
		}
		return obj
	}
	tunnel := get(c, "static_resources", "listeners", 0)
	assert.Equal(t, "kube_apiserver", get(tunnel, "name"))
	assert.Equal(t, map[string]any{"address": "10.2.170.21", "port_value": float64(443)}, get(tunnel, "address", "socket_address"))
	assert.Equal(t, float64(32768), get(tunnel, "per_connection_buffer_limit_bytes"))
	proxy := get(tunnel, "filter_chains", 0, "filters", 0)
	assert.Equal(t, "envoy.filters.network.tcp_proxy", get(proxy, "name"))
	assert.Equal(t, "kube_apiserver", get(proxy, "typed_config", "cluster"))
	assert.Equal(t, "api.internal.local.:443", get(proxy, "typed_config", "tunneling_config", "hostname"))
	assert.Equal(t, map[string]any{"key": "Reversed-VPN", "value": "outbound|443||kube-apiserver.shoot--internal--internal.svc.cluster.local"},
		get(proxy, "typed_config", "tunneling_config", "headers_to_add", 0, "header"))

	upstream := get(c, "static_resources", "clusters", 0)
	assert.Equal(t, "kube_apiserver", get(upstream, "name"))
	assert.Equal(t, "LOGICAL_DNS", get(upstream, "type"))
	assert.Equal(t, "V4_ONLY", get(upstream, "dns_lookup_family"))
	assert.Equal(t, "5s", get(upstream, "connect_timeout"))
	assert.Equal(t, map[string]any{"address": "api.internal.local.", "port_value": float64(8132)},
		get(upstream, "load_assignment", "endpoints", 0, "lb_endpoints", 0, "endpoint", "address", "socket_address"))
	assert.Equal(t, map[string]any{"keepalive_time": float64(7200), "keepalive_interval": float64(55)}, get(upstream, "upstream_connection_options", "tcp_keepalive"))

	metrics := get(c, "static_resources", "listeners", 1)
	assert.Equal(t, map[string]any{"address": "0.0.0.0", "port_value": float64(16910)}, get(metrics, "address", "socket_address"))
	assert.Equal(t, map[string]any{"address": "::", "port_value": float64(16910)}, get(metrics, "additional_addresses", 0, "address", "socket_address"))
	routes := get(metrics, "filter_chains", 0, "filters", 0, "typed_config", "route_config", "virtual_hosts", 0, "routes")
	assert.Equal(t, []any{
		map[string]any{"match": map[string]any{"path": "/metrics"}, "route": map[string]any{"cluster": "uds_admin", "prefix_rewrite": "/stats/prometheus"}},
		map[string]any{"match": map[string]any{"path": "/ready"}, "route": map[string]any{"cluster": "uds_admin"}},
	}, routes)
	admin := map[string]any{"pipe": map[string]any{"path": "/etc/admin-uds/admin.socket"}}
	assert.Equal(t, admin, get(c, "admin", "address"), "the admin interface is never a TCP address")
	assert.Equal(t, admin, get(c, "static_resources", "clusters", 1, "load_assignment", "endpoints", 0, "lb_endpoints", 0, "endpoint", "address"))
	assert.Equal(t, float64(10000), get(c, "layered_runtime", "layers", 0, "static_layer", "overload", "global_downstream_max_connections"))
	assert.Equal(t, float64(10000), get(c, "layered_runtime", "layers", 0, "static_layer", "envoy", "resource_limits", "listener", "kube_apiserver", "connection_limit"))

	v6 := proxyValues()
	v6.APIServerProxy.AdvertiseAddress = "2001:db8::1"
	c = config(v6)
	assert.Equal(t, "V6_ONLY", get(c, "static_resources", "clusters", 0, "dns_lookup_family"))
	assert.Equal(t, "2001:db8::1", get(c, "static_resources", "listeners", 0, "address", "socket_address", "address"))
}

// TestAPIServerProxyManagedResource: Gardener's shoot-core-apiserver-proxy, with the no-cleanup
// label injected and an immutable, content-named Secret; nothing without an address.
func TestAPIServerProxyManagedResource(t *testing.T) {
	v := proxyValues()
	v.APIServerProxy.ControlPlaneNamespace = ""
	objs, err := APIServerProxyManagedResource(v, "seed", "shoot--internal--internal")
	require.NoError(t, err)
	require.Len(t, objs, 2)
	secret, mr := objs[0].Object, objs[1].Object
	assert.Equal(t, "shoot-core-apiserver-proxy", mr.GetName())
	assert.Equal(t, map[string]string{"origin": "gardener"}, mr.GetLabels())
	inject, _, _ := unstructured.NestedStringMap(mr.Object, "spec", "injectLabels")
	assert.Equal(t, map[string]string{"shoot.gardener.cloud/no-cleanup": "true"}, inject)
	assert.Regexp(t, `^managedresource-shoot-core-apiserver-proxy-[0-9a-f]{8}$`, secret.GetName())
	immutable, _, _ := unstructured.NestedBool(secret.Object, "immutable")
	assert.True(t, immutable)
	data, _, _ := unstructured.NestedStringMap(secret.Object, "stringData")
	var cm string
	for key, doc := range data {
		if strings.HasPrefix(key, "configmap__kube-system__apiserver-proxy-config-") {
			cm = doc
		}
	}
	assert.Contains(t, cm, "outbound|443||kube-apiserver.shoot--internal--internal.svc.cluster.local",
		"the control-plane namespace defaults to the ManagedResource's")

	v.APIServerProxy.AdvertiseAddress = ""
	objs, err = APIServerProxyManagedResource(v, "seed", "shoot--internal--internal")
	require.NoError(t, err)
	assert.Empty(t, objs)

	v.APIServerProxy.AdvertiseAddress = "not-an-ip"
	_, err = APIServerProxyManagedResource(v, "seed", "shoot--internal--internal")
	assert.ErrorContains(t, err, `advertised address "not-an-ip" is not an IP address`)
}

func fromUnstructured(t *testing.T, u *unstructured.Unstructured, into any) {
	t.Helper()
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into))
}
