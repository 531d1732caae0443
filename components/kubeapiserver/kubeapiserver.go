// Package kubeapiserver renders the kube_apiserver component: the API server of the virtual
// garden (virtual-garden-kube-apiserver, Gardener's "Gardener Operator" docs/concepts/operator.md)
// running as a Deployment in the runtime cluster, with its ClusterIP Service, autoscaling
// (Gardener's "Autoscaling Specifics for Components"
// docs/development/autoscaling-specifics-for-components.md), disruption budget and the Istio
// objects that expose it by SNI through the virtual garden's ingress gateway (Gardener's
// docs/concepts/operator.md). With another name prefix it serves a shoot control plane.
package kubeapiserver

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/etcd"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults; fields whose default depends on other fields say so.
type Values struct {
	// Cluster is the runtime cluster the API server runs in.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace of all objects.
	Namespace string `json:"namespace"`
	// NamePrefix is put before kube-apiserver: etcd.DefaultNamePrefix for the virtual garden, ""
	// for the control planes of shoots.
	NamePrefix string `json:"name_prefix"`
	// Images overrides image vector entries by name (kube-apiserver).
	Images map[string]string `json:"images"`
	// KubernetesVersion (MAJOR.MINOR.PATCH) tags the image and gates features.
	KubernetesVersion string `json:"kubernetes_version"`
	// HighAvailability raises the minimum replicas from 2 to 3 (Gardener's
	// docs/development/autoscaling-specifics-for-components.md).
	HighAvailability bool `json:"high_availability"`
	// DNSDomains are the domains the API is exposed under as api.<domain> and gardener.<domain>;
	// the first one is the external hostname (Gardener's docs/concepts/operator.md). At least one is
	// required.
	DNSDomains []string `json:"dns_domains"`
	// ServiceNetwork is the IPv4 range Service cluster IPs are allocated from (Gardener's
	// docs/concepts/operator.md).
	ServiceNetwork string `json:"service_network"`
	// ClusterDomain of the runtime cluster, for the Istio destination host.
	ClusterDomain string `json:"cluster_domain"`
	// EtcdMainEndpoint and EtcdEventsEndpoint default to the client Services of the etcd
	// component with the same prefix and namespace.
	EtcdMainEndpoint   string `json:"etcd_main_endpoint"`
	EtcdEventsEndpoint string `json:"etcd_events_endpoint"`
	// EtcdCASecretName holds the etcd CA (ca.crt).
	EtcdCASecretName string `json:"etcd_ca_secret_name"`
	// EtcdClientSecretName holds the etcd client certificate (tls.crt, tls.key).
	EtcdClientSecretName string `json:"etcd_client_secret_name"`
	// ServerTLSSecretName holds the serving certificate (tls.crt, tls.key) for ServerDNSNames.
	ServerTLSSecretName string `json:"server_tls_secret_name"`
	// ClientCASecretName holds the CA (ca.crt) client certificates are verified with (Gardener's
	// docs/concepts/operator.md).
	ClientCASecretName string `json:"client_ca_secret_name"`
	// FrontProxyCASecretName holds the CA (ca.crt) of the aggregation layer (Gardener's
	// docs/concepts/operator.md).
	FrontProxyCASecretName string `json:"front_proxy_ca_secret_name"`
	// FrontProxyClientSecretName holds the client certificate (tls.crt, tls.key) the API server
	// proxies aggregated APIs (gardener-apiserver) with.
	FrontProxyClientSecretName string `json:"front_proxy_client_secret_name"`
	// ServiceAccountKeySecretName holds the ServiceAccount signing key (key.pem, pub.pem)
	// (Gardener's docs/concepts/operator.md).
	ServiceAccountKeySecretName string `json:"service_account_key_secret_name"`
	// ServiceAccountIssuer of tokens; "" means https://api.<first domain>.
	ServiceAccountIssuer string `json:"service_account_issuer"`
	// EncryptionConfigSecretName holds the EncryptionConfiguration (key
	// encryption-configuration.yaml) with the keys; the engine or composite provides it, built
	// with EncryptionConfiguration(EncryptedResources(...)).
	EncryptionConfigSecretName string `json:"encryption_config_secret_name"`
	// EncryptedResources are resources (resource.group) encrypted in addition to Secrets
	// (Gardener's docs/concepts/operator.md).
	EncryptedResources []string `json:"encrypted_resources"`
	// AuditPolicyConfigMap names a ConfigMap with key audit-policy.yaml; "" means no audit log.
	AuditPolicyConfigMap string `json:"audit_policy_config_map"`
	// EventTTL is how long events are kept.
	EventTTL string `json:"event_ttl"`
	// FeatureGates switch Kubernetes feature gates on or off.
	FeatureGates map[string]bool `json:"feature_gates"`
	// EnableAdmissionPlugins and DisableAdmissionPlugins change the default admission plugins.
	EnableAdmissionPlugins  []string `json:"enable_admission_plugins"`
	DisableAdmissionPlugins []string `json:"disable_admission_plugins"`
	// AdmissionPluginConfigs are YAML configurations of admission plugins by plugin name, put
	// into the AdmissionConfiguration.
	AdmissionPluginConfigs map[string]string `json:"admission_plugin_configs"`
	// CPURequest and MemoryRequest are the initial requests (Gardener's
	// docs/development/autoscaling-specifics-for-components.md).
	CPURequest    string `json:"cpu_request"`
	MemoryRequest string `json:"memory_request"`
	// PriorityClassName of the pods (Gardener's "Priority Classes"
	// docs/development/priority-classes.md).
	PriorityClassName string `json:"priority_class_name"`
	// TopologyAwareRouting makes the Service prefer endpoints in the caller's zone (Gardener's
	// "Topology Aware Routing" docs/operations/topology_aware_routing.md).
	TopologyAwareRouting bool `json:"topology_aware_routing"`
	// ScrapeTargetsAlias is the alias of the Prometheus that scrapes the API server (Gardener's
	// "Network Policies" docs/operations/network_policies.md); seeds use all-seed-scrape-targets.
	ScrapeTargetsAlias string `json:"scrape_targets_alias"`
	// SNI exposes the API server through the Istio ingress gateway.
	SNI bool `json:"sni"`
	// IngressGatewayNamespace is where the ingress gateway runs (Gardener's
	// docs/concepts/operator.md).
	IngressGatewayNamespace string `json:"ingress_gateway_namespace"`
	// IngressGatewayLabels select the ingress gateway pods; empty means
	// {app: istio-ingressgateway, istio: ingressgateway}.
	IngressGatewayLabels map[string]string `json:"ingress_gateway_labels"`
	// Hibernated scales the component to zero replicas: Gardener scales every control-plane
	// component in the shoot namespace to zero when a shoot hibernates, keeping etcd's volumes
	// (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component Checklist"
	// docs/development/component-checklist.md). The Deployment then carries replicas 0. The
	// HorizontalPodAutoscaler stays (inferred): Kubernetes' HPA controller leaves a target scaled to zero
	// alone (condition ScalingActive False, ScalingDisabled) until its count is raised again, which
	// waking up does by releasing the field (defaulted to 1, then the HPA's minimum). Deleting it
	// instead would make every hibernation a plan that deletes, which the daemon's approve-destructive
	// policy holds for an approval. The PodDisruptionBudget stays, it does not stop a scale-down.
	Hibernated bool `json:"-"`
}

// resolved are the values with the defaults that depend on other values applied.
type resolved struct {
	Values
	prefix, namespace, mainEndpoint, eventsEndpoint string
}

func resolve(v Values) (resolved, error) {
	r := resolved{Values: v, prefix: v.NamePrefix, namespace: v.Namespace}
	if v.KubernetesVersion == "" {
		return r, fmt.Errorf("kubernetes version is required")
	}
	if len(v.DNSDomains) == 0 {
		return r, fmt.Errorf("dns domains: at least one domain is required")
	}
	p, err := netip.ParsePrefix(v.ServiceNetwork)
	if err != nil {
		return r, fmt.Errorf("service network %q: %w", v.ServiceNetwork, err)
	}
	if p != p.Masked() {
		return r, fmt.Errorf("service network %q has host bits set", v.ServiceNetwork)
	}
	r.mainEndpoint = or(v.EtcdMainEndpoint, etcd.Endpoint(r.prefix, etcd.RoleMain, r.namespace))
	r.eventsEndpoint = or(v.EtcdEventsEndpoint, etcd.Endpoint(r.prefix, etcd.RoleEvents, r.namespace))
	if len(v.IngressGatewayLabels) == 0 {
		r.IngressGatewayLabels = DefaultIngressGatewayLabels()
	}
	return r, nil
}

// Type is the kube_apiserver component type as the catalog registers it: its schema (schema.go) and
// its render function.
var Type = component.Define(typeSchema, renderValues)

// renderValues renders one kube_apiserver instance.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	objs, err := Objects(v)
	if err != nil {
		return nil, err
	}
	resources, err := EncryptedResources(v.KubernetesVersion, v.EncryptedResources)
	if err != nil {
		return nil, err
	}
	prefix, ns := v.NamePrefix, v.Namespace
	return &render.Output{
		Objects: objs,
		Outputs: map[string]cty.Value{
			"service_name":        cty.StringVal(ServiceName(prefix)),
			"endpoint":            cty.StringVal("https://" + ExternalHostname(v.DNSDomains)),
			"internal_endpoint":   cty.StringVal(InternalEndpoint(prefix, ns)),
			"server_dns_names":    stringList(ServerDNSNames(prefix, ns, v.ClusterDomain, v.DNSDomains)),
			"encrypted_resources": stringList(resources),
		},
	}, nil
}

func stringList(ss []string) cty.Value {
	vals := make([]cty.Value, len(ss))
	for i, s := range ss {
		vals[i] = cty.StringVal(s)
	}
	return cty.ListVal(vals)
}

// Objects renders the API server's objects: admission configuration, Service, Deployment,
// HorizontalPodAutoscaler, PodDisruptionBudget and, with SNI, the Istio
// Gateway, VirtualService and DestinationRule.
func Objects(v Values) ([]render.Object, error) {
	r, err := resolve(v)
	if err != nil {
		return nil, err
	}
	if _, err := EncryptedResources(v.KubernetesVersion, v.EncryptedResources); err != nil {
		return nil, err
	}
	admission, err := admissionConfigMap(r)
	if err != nil {
		return nil, err
	}
	deployment, err := deployment(r, admission)
	if err != nil {
		return nil, err
	}
	typed := []runtime.Object{admission, service(r), deployment, hpa(r), disruption.Budget(r.namespace, Name(r.prefix), SelectorLabels(r.prefix))}
	us, err := kube.All(typed...)
	if err != nil {
		return nil, err
	}
	StripStatus(us)
	if r.SNI {
		us = append(us, istioObjects(r)...)
	}
	return kube.On(v.Cluster.Name, "", us...), nil
}

// StripStatus removes the status the typed HPA and PDB structs serialise with zero counters
// (desiredReplicas: 0); the status belongs to the controllers, and a rendered one would show up
// as a change in every plan.
func StripStatus(us []*unstructured.Unstructured) {
	for _, u := range us {
		unstructured.RemoveNestedField(u.Object, "status")
	}
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// FeatureGatesFlag renders the value of --feature-gates sorted by gate name, so that the flag
// never changes without a change of the gates.
func FeatureGatesFlag(gates map[string]bool) string {
	parts := make([]string, 0, len(gates))
	for name, on := range gates {
		parts = append(parts, fmt.Sprintf("%s=%t", name, on))
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}
