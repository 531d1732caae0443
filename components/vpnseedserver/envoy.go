package vpnseedserver

import (
	"path"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

const (
	envoyConfigName = Name + "-envoy-config"
	envoyConfigKey  = "envoy.yaml"
	// envoyAdminPipe is the Unix socket of Envoy's admin interface, which only the metrics
	// listener reaches.
	envoyAdminPipe = "/home/nonroot/envoy.admin"
	// envoyMaxHosts bounds the proxy's DNS cache and its connections to the shoot.
	envoyMaxHosts = 8192
	// envoyAccessLogFormat is one line per slow or failed request.
	envoyAccessLogFormat = `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% %BYTES_RECEIVED% rx %BYTES_SENT% tx %DURATION%ms "%DOWNSTREAM_REMOTE_ADDRESS%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"` + "\n"
)

// typed is an Envoy extension's configuration of a type.
func typed(typeURL string, fields map[string]any) map[string]any {
	out := map[string]any{"@type": "type.googleapis.com/" + typeURL}
	for k, v := range fields {
		out[k] = v
	}
	return out
}

// dualStackAddress listens on port on every IPv4 address and, as an additional address, on every
// IPv6 one.
func dualStackAddress(listener map[string]any, port int) map[string]any {
	listener["address"] = map[string]any{"socket_address": map[string]any{"protocol": "TCP", "address": "0.0.0.0", "port_value": port}}
	listener["additional_addresses"] = []any{map[string]any{"address": map[string]any{"socket_address": map[string]any{"address": "::", "port_value": port}}}}
	return listener
}

// envoyConfig makes Envoy the HTTP CONNECT proxy through which the kube-apiserver reaches the
// shoot's nodes, Services and Pods (Gardener's "Reversed VPN Tunnel"
// docs/development/reversed-vpn-tunnel.md), as Gardener configures it
// (pkg/component/networking/vpn/seedserver/templates/envoy.yaml.tpl at Gardener v1.120.0): on
// ProxyPort over TLS with the server's certificate, checking client certificates against the VPN
// CA when they are presented; CONNECT requests go to a dynamic forward proxy that resolves the
// target (IPv4 and IPv6), other requests find no route; slow (at least 1 s) or failed (5xx)
// requests are logged. A second listener on MetricsPort serves Envoy's Prometheus statistics at
// /metrics from the admin interface, which listens on a Unix socket only.
func envoyConfig() string {
	dnsCache := map[string]any{"name": "dynamic_forward_proxy_cache_config", "dns_lookup_family": "ALL", "max_hosts": envoyMaxHosts}
	threshold := func(filter string, value int) map[string]any {
		return map[string]any{filter: map[string]any{"comparison": map[string]any{
			"op": "GE", "value": map[string]any{"default_value": value, "runtime_key": "null"},
		}}}
	}
	router := map[string]any{"name": "envoy.filters.http.router", "typed_config": typed("envoy.extensions.filters.http.router.v3.Router", nil)}
	connectUpgrade := map[string]any{"upgrade_type": "CONNECT"}
	proxy := dualStackAddress(map[string]any{
		"name": "listener_0",
		"listener_filters": []any{map[string]any{
			"name":         "envoy.filters.listener.tls_inspector",
			"typed_config": typed("envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector", nil),
		}},
		"filter_chains": []any{map[string]any{
			"transport_socket": map[string]any{
				"name": "envoy.transport_sockets.tls",
				"typed_config": typed("envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext", map[string]any{
					"common_tls_context": map[string]any{
						"tls_certificates": []any{map[string]any{
							"certificate_chain": map[string]any{"filename": path.Join(dirCerts, "tls.crt")},
							"private_key":       map[string]any{"filename": path.Join(dirCerts, "tls.key")},
						}},
						"validation_context": map[string]any{"trusted_ca": map[string]any{"filename": path.Join(dirCerts, "ca.crt")}},
					},
				}),
			},
			"filters": []any{map[string]any{
				"name": "envoy.filters.network.http_connection_manager",
				"typed_config": typed("envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager", map[string]any{
					"stat_prefix": "ingress_http",
					"access_log": []any{map[string]any{
						"name":   "envoy.access_loggers.stdout",
						"filter": map[string]any{"or_filter": map[string]any{"filters": []any{threshold("status_code_filter", 500), threshold("duration_filter", 1000)}}},
						"typed_config": typed("envoy.extensions.access_loggers.stream.v3.StdoutAccessLog", map[string]any{
							"log_format": map[string]any{"text_format_source": map[string]any{"inline_string": envoyAccessLogFormat}},
						}),
					}},
					"route_config": map[string]any{"name": "local_route", "virtual_hosts": []any{map[string]any{
						"name": "local_service", "domains": []any{"*"},
						"routes": []any{map[string]any{
							"match": map[string]any{"connect_matcher": map[string]any{}},
							"route": map[string]any{
								"cluster":         "dynamic_forward_proxy_cluster",
								"upgrade_configs": []any{map[string]any{"upgrade_type": "CONNECT", "connect_config": map[string]any{}}},
							},
						}},
					}}},
					"http_filters": []any{
						map[string]any{
							"name":         "envoy.filters.http.dynamic_forward_proxy",
							"typed_config": typed("envoy.extensions.filters.http.dynamic_forward_proxy.v3.FilterConfig", map[string]any{"dns_cache_config": dnsCache}),
						},
						router,
					},
					"http_protocol_options": map[string]any{"accept_http_10": true},
					"upgrade_configs":       []any{connectUpgrade},
				}),
			}},
		}},
	}, ProxyPort)
	metrics := dualStackAddress(map[string]any{
		"name": "metrics_listener",
		"filter_chains": []any{map[string]any{"filters": []any{map[string]any{
			"name": "envoy.filters.network.http_connection_manager",
			"typed_config": typed("envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager", map[string]any{
				"stat_prefix": "stats_server",
				"route_config": map[string]any{"virtual_hosts": []any{map[string]any{
					"name": "admin_interface", "domains": []any{"*"},
					"routes": []any{map[string]any{
						"match": map[string]any{
							"prefix":  "/metrics",
							"headers": []any{map[string]any{"name": ":method", "string_match": map[string]any{"exact": "GET"}}},
						},
						"route": map[string]any{"cluster": "prometheus_stats", "prefix_rewrite": "/stats/prometheus"},
					}},
				}}},
				"http_filters": []any{router},
			}),
		}}}},
	}, MetricsPort)
	delete(metrics["address"].(map[string]any)["socket_address"].(map[string]any), "protocol")
	adminPipe := map[string]any{"pipe": map[string]any{"path": envoyAdminPipe}}
	config := map[string]any{
		"static_resources": map[string]any{
			"listeners": []any{proxy, metrics},
			"clusters": []any{
				map[string]any{
					"name":            "dynamic_forward_proxy_cluster",
					"connect_timeout": "20s",
					"circuitBreakers": map[string]any{"thresholds": []any{map[string]any{"maxConnections": envoyMaxHosts}}},
					"lb_policy":       "CLUSTER_PROVIDED",
					"cluster_type": map[string]any{
						"name":         "envoy.clusters.dynamic_forward_proxy",
						"typed_config": typed("envoy.extensions.clusters.dynamic_forward_proxy.v3.ClusterConfig", map[string]any{"dns_cache_config": dnsCache}),
					},
				},
				map[string]any{
					"name": "prometheus_stats", "connect_timeout": "0.25s", "type": "static",
					"load_assignment": map[string]any{"cluster_name": "prometheus_stats", "endpoints": []any{map[string]any{
						"lb_endpoints": []any{map[string]any{"endpoint": map[string]any{"address": adminPipe}}},
					}}},
				},
			},
		},
		"admin": map[string]any{"address": adminPipe},
	}
	out, _ := yaml.Marshal(config) // plain maps never fail
	return string(out)
}

func envoyConfigMap(r resolved) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: envoyConfigName, Namespace: r.Namespace, Labels: SelectorLabels()},
		Data:       map[string]string{envoyConfigKey: envoyConfig()},
	}
}
