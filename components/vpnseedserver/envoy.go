package vpnseedserver

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	envoyConfigName = Name + "-envoy-config"
	envoyConfigKey  = "envoy.yaml"
)

// envoyConfig makes Envoy an HTTP CONNECT proxy on ProxyPort: the kube-apiserver opens a CONNECT
// tunnel to a node, Service or Pod address of the shoot (Gardener's "Reversed VPN Tunnel"
// docs/development/reversed-vpn-tunnel.md), authenticated with a client certificate of the VPN CA,
// and the proxy connects to that address, which the server routes through the tunnel. The proxy
// serves the server's own certificate.
func envoyConfig(family string) string {
	lookup := "V4_ONLY"
	if family == "IPv6" {
		lookup = "V6_ONLY"
	}
	return fmt.Sprintf(`static_resources:
  listeners:
  - name: http-connect
    address:
      socket_address: {address: "::", ipv4_compat: true, port_value: %[1]d}
    filter_chains:
    - transport_socket:
        name: envoy.transport_sockets.tls
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
          require_client_certificate: true
          common_tls_context:
            tls_certificates:
            - certificate_chain: {filename: %[2]s/tls.crt}
              private_key: {filename: %[2]s/tls.key}
            validation_context:
              trusted_ca: {filename: %[2]s/ca.crt}
      filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: http_connect
          upgrade_configs:
          - upgrade_type: CONNECT
          http2_protocol_options: {allow_connect: true}
          route_config:
            name: shoot
            virtual_hosts:
            - name: shoot
              domains: ["*"]
              routes:
              - match: {connect_matcher: {}}
                route:
                  cluster: dynamic_forward_proxy
                  timeout: 0s
                  upgrade_configs:
                  - upgrade_type: CONNECT
                    connect_config: {}
          http_filters:
          - name: envoy.filters.http.dynamic_forward_proxy
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.dynamic_forward_proxy.v3.FilterConfig
              dns_cache_config: {name: shoot, dns_lookup_family: %[3]s}
          - name: envoy.filters.http.router
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
  clusters:
  - name: dynamic_forward_proxy
    connect_timeout: 20s
    lb_policy: CLUSTER_PROVIDED
    cluster_type:
      name: envoy.clusters.dynamic_forward_proxy
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.clusters.dynamic_forward_proxy.v3.ClusterConfig
        dns_cache_config: {name: shoot, dns_lookup_family: %[3]s}
`, ProxyPort, dirCerts, lookup)
}

func envoyConfigMap(r resolved) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: envoyConfigName, Namespace: r.Namespace, Labels: SelectorLabels()},
		Data:       map[string]string{envoyConfigKey: envoyConfig(ipFamily(r.ShootNetworks.Pods))},
	}
}
