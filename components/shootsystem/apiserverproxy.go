package shootsystem

import (
	"fmt"
	"net"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/unique"
)

// The apiserver-proxy: an envoy on every node (host network) that listens on the address the
// shoot's API server advertises, the address of the kubernetes Service in the shoot, and
// tunnels each connection by HTTP CONNECT through the seed's Istio ingress gateway (port 8132,
// the Reversed-VPN header naming the API server's Service) to the API server. A sidecar puts
// that address on the node's loopback interface. Pods reach the API server through the
// kubernetes Service this way without the seed's cluster IP ever being routable in the shoot
// (Gardener's GEP-30 docs/proposals/30-apiserver-proxy.md; the objects' facts are
// pkg/component/networking/apiserverproxy's at gardener/gardener v1.120.0). Pods that name the
// API server by its domain instead (KUBERNETES_SERVICE_HOST, injected by the resource manager,
// Gardener's docs/usage/networking/shoot_kubernetes_service_host_injection.md) do not use it.
const (
	// APIServerProxyManagedResourceName is the ManagedResource that carries it into the shoot.
	APIServerProxyManagedResourceName = "shoot-core-apiserver-proxy"
	// APIServerProxyName names its DaemonSet, ServiceAccount and Service.
	APIServerProxyName = "apiserver-proxy"
	// apiServerProxyConfig is its configuration's ConfigMap, named after its content.
	apiServerProxyConfig = "apiserver-proxy-config"
	// apiServerProxyAdminPort serves envoy's readiness and metrics (through the metrics listener;
	// the admin interface itself is a Unix socket).
	apiServerProxyAdminPort = 16910
	// apiServerProxyTunnelPort is the Istio ingress gateway's HTTP CONNECT port, the reversed VPN's.
	apiServerProxyTunnelPort = 8132
	apiServerProxyConfigDir  = "/etc/apiserver-proxy"
	apiServerProxyConfigKey  = "envoy.yaml"
	apiServerProxyAdminDir   = "/etc/admin-uds"
	apiServerProxyAdminPipe  = apiServerProxyAdminDir + "/admin.socket"
)

// APIServerProxyConfig configures the apiserver-proxy.
type APIServerProxyConfig struct {
	// AdvertiseAddress is the address the shoot's kube-apiserver advertises
	// (--advertise-address): its Service's cluster IP in the seed, an IPv4 address mapped into
	// the reserved range 240.0.0.0/8 (render.ShootAPIServerAddress). The proxy is rendered only
	// with it.
	AdvertiseAddress string
	// ControlPlaneNamespace is the shoot's namespace in the seed: the Reversed-VPN header names
	// the API server's Service in it. APIServerProxyManagedResource fills it in when empty.
	ControlPlaneNamespace string
}

// apiServerProxyLabels are on every object of the proxy; apiServerProxySelector selects its pods.
var (
	apiServerProxySelector = map[string]string{"app": "kubernetes", "role": APIServerProxyName}
	apiServerProxyLabels   = merge(apiServerProxySelector, map[string]string{"gardener.cloud/role": "system-component", "origin": "gardener"})
)

// APIServerProxy renders the apiserver-proxy's ConfigMap, ServiceAccount, headless metrics
// Service and DaemonSet; nothing without an advertised address.
func APIServerProxy(v Values) ([]*unstructured.Unstructured, error) {
	return renderPrepared(v, (*prepared).apiServerProxy)
}

func (p *prepared) apiServerProxy() ([]*unstructured.Unstructured, error) {
	address := p.APIServerProxy.AdvertiseAddress
	if address == "" {
		return nil, nil
	}
	if net.ParseIP(address) == nil {
		return nil, fmt.Errorf("apiserver-proxy: advertised address %q is not an IP address", address)
	}
	if p.APIServerHost == "" || p.APIServerProxy.ControlPlaneNamespace == "" {
		return nil, fmt.Errorf("apiserver-proxy: the API server's host and the control-plane namespace are required")
	}
	envoyImage, err := p.image(images.APIServerProxy, "")
	if err != nil {
		return nil, err
	}
	sidecarImage, err := p.image(images.APIServerProxySidecar, "")
	if err != nil {
		return nil, err
	}
	config, err := p.apiServerProxyEnvoyConfig(address)
	if err != nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{ObjectMeta: meta(apiServerProxyConfig, apiServerProxyLabels), Data: map[string]string{apiServerProxyConfigKey: config}}
	unique.ConfigMap(cm)

	// The sidecar adds the address to lo (the init container once before envoy binds it, the
	// sidecar keeps it there); both need NET_ADMIN only.
	netAdmin := func(cpu, memory, limit string) (corev1.ResourceRequirements, *corev1.SecurityContext) {
		return corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(limit)},
			}, &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr.To(false),
				Capabilities:             &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}},
			}
	}
	setupResources, setupSecurity := netAdmin("20m", "20Mi", "200Mi")
	sidecarResources, sidecarSecurity := netAdmin("5m", "15Mi", "90Mi")
	ready := func(period int32, failures int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(apiServerProxyAdminPort)}},
			InitialDelaySeconds: 1, PeriodSeconds: period, SuccessThreshold: 1, TimeoutSeconds: 1, FailureThreshold: failures,
		}
	}
	podLabels := merge(apiServerProxyLabels, map[string]string{
		criticalComponentLabel: "true", toDNS: allowed, "networking.gardener.cloud/to-apiserver": allowed, fromSeed: allowed,
	})
	ds := &appsv1.DaemonSet{
		ObjectMeta: meta(APIServerProxyName, merge(apiServerProxyLabels, map[string]string{criticalComponentLabel: "true"})),
		Spec: appsv1.DaemonSetSpec{
			UpdateStrategy:       appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType},
			RevisionHistoryLimit: ptr.To[int32](2),
			Selector:             &metav1.LabelSelector{MatchLabels: apiServerProxySelector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					ServiceAccountName: APIServerProxyName,
					PriorityClassName:  SystemNodeCritical,
					Tolerations: []corev1.Toleration{
						{Effect: corev1.TaintEffectNoSchedule, Operator: corev1.TolerationOpExists},
						{Effect: corev1.TaintEffectNoExecute, Operator: corev1.TolerationOpExists},
					},
					HostNetwork:                  true,
					AutomountServiceAccountToken: ptr.To(false),
					SecurityContext:              &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
					InitContainers: []corev1.Container{{
						Name: "setup", Image: sidecarImage, ImagePullPolicy: corev1.PullIfNotPresent,
						Args:      []string{"--ip-address=" + address, "--daemon=false", "--interface=lo"},
						Resources: setupResources, SecurityContext: setupSecurity,
					}},
					Containers: []corev1.Container{
						{
							Name: "sidecar", Image: sidecarImage, ImagePullPolicy: corev1.PullIfNotPresent,
							Args:      []string{"--ip-address=" + address, "--interface=lo"},
							Resources: sidecarResources, SecurityContext: sidecarSecurity,
						},
						{
							Name: "proxy", Image: envoyImage, ImagePullPolicy: corev1.PullIfNotPresent,
							Command: []string{"envoy", "--concurrency", "2", "--use-dynamic-base-id", "-c", apiServerProxyConfigDir + "/" + apiServerProxyConfigKey},
							Resources: corev1.ResourceRequirements{
								Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("5m"), corev1.ResourceMemory: resource.MustParse("30Mi")},
								Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
							},
							// Root only to bind port 443 on the node.
							SecurityContext: &corev1.SecurityContext{
								AllowPrivilegeEscalation: ptr.To(false),
								Capabilities:             &corev1.Capabilities{Add: []corev1.Capability{"NET_BIND_SERVICE"}},
								RunAsUser:                ptr.To[int64](0),
							},
							ReadinessProbe: ready(2, 0),
							LivenessProbe:  ready(10, 3),
							Ports:          []corev1.ContainerPort{{Name: "metrics", ContainerPort: apiServerProxyAdminPort, HostPort: apiServerProxyAdminPort}},
							VolumeMounts: []corev1.VolumeMount{
								{Name: "proxy-config", MountPath: apiServerProxyConfigDir},
								{Name: "admin-uds", MountPath: apiServerProxyAdminDir},
							},
						},
					},
					Volumes: []corev1.Volume{
						{Name: "proxy-config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}},
						{Name: "admin-uds", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
					},
				},
			},
		},
	}
	// The DaemonSet and its pods name the ConfigMap, so that the resource manager's garbage
	// collector keeps it while they use it.
	unique.InjectTemplateReferences(&ds.ObjectMeta, &ds.Spec.Template)
	return kube.All(
		cm,
		serviceAccount(APIServerProxyName, apiServerProxyLabels, false),
		&corev1.Service{
			ObjectMeta: meta(APIServerProxyName, apiServerProxyLabels),
			Spec: corev1.ServiceSpec{
				Type: corev1.ServiceTypeClusterIP, ClusterIP: corev1.ClusterIPNone, Selector: apiServerProxySelector,
				Ports: []corev1.ServicePort{{Name: "metrics", Port: apiServerProxyAdminPort, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(apiServerProxyAdminPort)}},
			},
		},
		ds,
	)
}

// apiServerProxyEnvoyConfig is envoy's configuration: a TCP listener on the advertised address,
// port 443, that tunnels to the seed's ingress gateway (the API server's internal domain, port
// 8132) with the Reversed-VPN header naming the API server's Service; a metrics listener on port
// 16910 that serves only /metrics (envoy's /stats/prometheus) and /ready from the admin
// interface, which listens on a Unix socket only; connection limits of 10000. The values are
// Gardener's (templates/envoy.yaml.tpl of pkg/component/networking/apiserverproxy at v1.120.0);
// the document is rendered from data here, so its layout differs.
func (p *prepared) apiServerProxyEnvoyConfig(address string) (string, error) {
	// The trailing dot makes the internal domain absolute, so that no search domain of the node
	// is tried first (outOfClusterAPIServerFQDN in pkg/gardenlet/operation/botanist at v1.120.0).
	host := p.APIServerHost + "."
	stdout := func(extra map[string]any) map[string]any {
		typed := map[string]any{"@type": "type.googleapis.com/envoy.extensions.access_loggers.stream.v3.StdoutAccessLog"}
		for k, v := range extra {
			typed[k] = v
		}
		return map[string]any{"name": "envoy.access_loggers.stdout", "typed_config": typed}
	}
	notPath := func(path string) map[string]any {
		return map[string]any{"header_filter": map[string]any{"header": map[string]any{
			"name": ":Path", "string_match": map[string]any{"exact": path}, "invert_match": true,
		}}}
	}
	adminLog := stdout(nil)
	// Probes and scrapes would flood the admin access log.
	adminLog["filter"] = map[string]any{"and_filter": map[string]any{"filters": []any{notPath("/ready"), notPath("/stats/prometheus")}}}
	socket := func(addr string, port int64) map[string]any {
		return map[string]any{"socket_address": map[string]any{"address": addr, "port_value": port}}
	}
	pipe := map[string]any{"pipe": map[string]any{"path": apiServerProxyAdminPipe}}
	endpoint := func(addr map[string]any) []any {
		return []any{map[string]any{"lb_endpoints": []any{map[string]any{"endpoint": map[string]any{"address": addr}}}}}
	}
	tunnel := map[string]any{
		"name": "kube_apiserver", "address": socket(address, 443), "per_connection_buffer_limit_bytes": int64(32768),
		"filter_chains": []any{map[string]any{"filters": []any{map[string]any{
			"name": "envoy.filters.network.tcp_proxy",
			"typed_config": map[string]any{
				"@type":       "type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy",
				"stat_prefix": "kube_apiserver", "cluster": "kube_apiserver",
				// The gateway routes by the header; envoy drops the host name.
				"tunneling_config": map[string]any{
					"hostname": host + ":443",
					"headers_to_add": []any{map[string]any{"header": map[string]any{
						"key": "Reversed-VPN", "value": fmt.Sprintf("outbound|443||kube-apiserver.%s.svc.cluster.local", p.APIServerProxy.ControlPlaneNamespace),
					}}},
				},
				"access_log": []any{stdout(map[string]any{"log_format": map[string]any{"text_format_source": map[string]any{
					"inline_string": "[%START_TIME%] %RESPONSE_CODE% %RESPONSE_FLAGS% %BYTES_RECEIVED% rx %BYTES_SENT% tx %DURATION%ms \"%DOWNSTREAM_REMOTE_ADDRESS%\" \"%UPSTREAM_HOST%\"\n",
				}}})},
			},
		}}}},
	}
	metrics := map[string]any{
		"name": "metrics", "address": socket("0.0.0.0", apiServerProxyAdminPort),
		"additional_addresses": []any{map[string]any{"address": socket("::", apiServerProxyAdminPort)}},
		"filter_chains": []any{map[string]any{"filters": []any{map[string]any{
			"name": "envoy.filters.network.http_connection_manager",
			"typed_config": map[string]any{
				"@type":              "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
				"stat_prefix":        "ingress_http",
				"use_remote_address": true,
				"common_http_protocol_options": map[string]any{
					"idle_timeout": "8s", "max_connection_duration": "10s", "max_headers_count": int64(20),
					"max_stream_duration": "8s", "headers_with_underscores_action": "REJECT_REQUEST",
				},
				"http2_protocol_options": map[string]any{
					"max_concurrent_streams": int64(5), "initial_stream_window_size": int64(65536), "initial_connection_window_size": int64(1048576),
				},
				"stream_idle_timeout": "8s", "request_timeout": "9s", "codec_type": "AUTO",
				"route_config": map[string]any{"name": "local_route", "virtual_hosts": []any{map[string]any{
					"name": "local_service", "domains": []any{"*"},
					"routes": []any{
						map[string]any{"match": map[string]any{"path": "/metrics"}, "route": map[string]any{"cluster": "uds_admin", "prefix_rewrite": "/stats/prometheus"}},
						map[string]any{"match": map[string]any{"path": "/ready"}, "route": map[string]any{"cluster": "uds_admin"}},
					},
				}}},
				"http_filters": []any{map[string]any{
					"name":         "envoy.filters.http.router",
					"typed_config": map[string]any{"@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"},
				}},
			},
		}}}},
	}
	config := map[string]any{
		"layered_runtime": map[string]any{"layers": []any{map[string]any{
			"name": "static_layer_0",
			"static_layer": map[string]any{
				"envoy":    map[string]any{"resource_limits": map[string]any{"listener": map[string]any{"kube_apiserver": map[string]any{"connection_limit": int64(10000)}}}},
				"overload": map[string]any{"global_downstream_max_connections": int64(10000)},
			},
		}}},
		// The admin interface is never a TCP address: only the metrics listener exposes it.
		"admin": map[string]any{"access_log": []any{adminLog}, "address": pipe},
		"static_resources": map[string]any{
			"listeners": []any{tunnel, metrics},
			"clusters": []any{
				map[string]any{
					"name": "kube_apiserver", "connect_timeout": "5s", "per_connection_buffer_limit_bytes": int64(32768),
					"type": "LOGICAL_DNS", "dns_lookup_family": dnsLookupFamily(address), "lb_policy": "ROUND_ROBIN",
					"load_assignment":             map[string]any{"cluster_name": "kube_apiserver", "endpoints": endpoint(socket(host, apiServerProxyTunnelPort))},
					"upstream_connection_options": map[string]any{"tcp_keepalive": map[string]any{"keepalive_time": int64(7200), "keepalive_interval": int64(55)}},
				},
				map[string]any{
					"name": "uds_admin", "connect_timeout": "0.25s", "type": "STATIC", "lb_policy": "ROUND_ROBIN",
					"load_assignment": map[string]any{"cluster_name": "uds_admin", "endpoints": endpoint(pipe)},
					"transport_socket": map[string]any{
						"name":         "envoy.transport_sockets.raw_buffer",
						"typed_config": map[string]any{"@type": "type.googleapis.com/envoy.extensions.transport_sockets.raw_buffer.v3.RawBuffer"},
					},
				},
			},
		},
	}
	out, err := yaml.Marshal(config)
	if err != nil {
		return "", fmt.Errorf("apiserver-proxy: %w", err)
	}
	return string(out), nil
}

// dnsLookupFamily resolves the tunnel's host in the advertised address's family only: an
// automatic lookup would fail once on every single-stack node first (DefaultAPIServerProxy in
// pkg/gardenlet/operation/botanist/apiserverproxy.go at v1.120.0).
func dnsLookupFamily(address string) string {
	if ip := net.ParseIP(address); ip != nil && ip.To4() == nil {
		return "V6_ONLY"
	}
	return "V4_ONLY"
}
