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
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/version"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/etcd"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults; fields whose default depends on other fields say so. Fields without a JSON name are
// set by the composites (garden, shoot) only: they name Secrets and networks those composites
// generate and know.
type Values struct {
	// Cluster is the runtime cluster the API server runs in.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace of all objects.
	Namespace string `json:"namespace"`
	// NamePrefix is put before kube-apiserver: etcd.DefaultNamePrefix for the virtual garden, ""
	// for the control planes of shoots.
	NamePrefix string `json:"name_prefix"`
	// Images overrides image vector entries by name (kube-apiserver, vpn-client).
	Images map[string]string `json:"images"`
	// KubernetesVersion (MAJOR.MINOR.PATCH) tags the image and gates features.
	KubernetesVersion string `json:"kubernetes_version"`
	// HighAvailability raises the minimum replicas from 2 to 3 (Gardener's
	// docs/development/autoscaling-specifics-for-components.md).
	HighAvailability bool `json:"high_availability"`
	// Workerless is a cluster without nodes: the virtual garden (gardener-operator renders it so,
	// pkg/operator/controller/garden/garden/components.go at Gardener v1.120.0) or a workerless
	// shoot. It has no Node authorizer and no kubelet flags, and the APIs of workloads are off
	// unless RuntimeConfig turns them on.
	Workerless bool `json:"workerless"`
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
	// component with the same prefix, by their short names as Gardener names them.
	EtcdMainEndpoint   string `json:"etcd_main_endpoint"`
	EtcdEventsEndpoint string `json:"etcd_events_endpoint"`
	// CASecretName holds the cluster CA (ca.crt), mounted as Gardener mounts it.
	CASecretName string `json:"ca_secret_name"`
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
	// HealthCheckTokenSecretName holds the bearer token (key token) of the health-check user, the
	// only user of the static token file, with which the probes authenticate.
	HealthCheckTokenSecretName string `json:"health_check_token_secret_name"`
	// EncryptionConfigSecretName holds the EncryptionConfiguration (key
	// encryption-configuration.yaml) with the keys; the engine or composite provides it, built
	// with EncryptionConfiguration(EncryptedResources(...)).
	EncryptionConfigSecretName string `json:"encryption_config_secret_name"`
	// EncryptedResources are resources (resource.group) encrypted in addition to Secrets
	// (Gardener's docs/concepts/operator.md).
	EncryptedResources []string `json:"encrypted_resources"`
	// AuditPolicyConfigMap names a ConfigMap of the namespace with key audit-policy.yaml; ""
	// means the component's own audit-policy-config with Gardener's default policy.
	AuditPolicyConfigMap string `json:"audit_policy_config_map"`
	// EventTTL is how long events are kept; "" leaves the flag out (kube-apiserver's 1h).
	EventTTL string `json:"event_ttl"`
	// AnonymousAuthentication lets unauthenticated requests in as system:anonymous.
	AnonymousAuthentication bool `json:"anonymous_authentication"`
	// APIAudiences are the audiences ServiceAccount tokens must be bound to; empty means
	// kubernetes and gardener, and gardener is always one of them.
	APIAudiences []string `json:"api_audiences"`
	// RuntimeConfig turns API groups and versions on or off (--runtime-config); a workerless
	// cluster starts from the workload APIs switched off.
	RuntimeConfig map[string]bool `json:"runtime_config"`
	// FeatureGates switch Kubernetes feature gates on or off.
	FeatureGates map[string]bool `json:"feature_gates"`
	// EnableAdmissionPlugins and DisableAdmissionPlugins change the default admission plugins;
	// NodeRestriction is always on unless disabled.
	EnableAdmissionPlugins  []string `json:"enable_admission_plugins"`
	DisableAdmissionPlugins []string `json:"disable_admission_plugins"`
	// AdmissionPluginConfigs are YAML configurations of admission plugins by plugin name, each a
	// file of the admission ConfigMap the AdmissionConfiguration names.
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
	// IngressGatewayLabels select the ingress gateway pods; empty means
	// {app: istio-ingressgateway, istio: ingressgateway}.
	IngressGatewayLabels map[string]string `json:"ingress_gateway_labels"`

	// MaxRequestsInflight and MaxMutatingRequestsInflight limit the requests in flight; zero
	// leaves a flag out. A shoot's are Gardener's defaults of every Shoot (400 and 200).
	MaxRequestsInflight         int32 `json:"-"`
	MaxMutatingRequestsInflight int32 `json:"-"`
	// Verbosity is the log level (--v); nil leaves the flag out. A shoot's is 2.
	Verbosity *int32 `json:"-"`
	// AdvertiseAddress is the address the API server publishes as the endpoint of the cluster's
	// kubernetes Service: for a shoot exposed by SNI, the cluster IP of its Service in the seed
	// (a render.LiveValue until the Service exists). "" leaves the flag out.
	AdvertiseAddress string `json:"-"`
	// Kubelet are the Secrets to reach kubelets with; nil for a cluster without nodes.
	Kubelet *KubeletAccess `json:"-"`
	// VPN is the tunnel to the nodes of a shoot with workers; nil for a cluster without nodes.
	VPN *VPN `json:"-"`
	// AuthorizationWebhooks are consulted after the Node and RBAC authorizers.
	AuthorizationWebhooks []AuthorizationWebhook `json:"-"`
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

// KubeletAccess are the Secrets the API server reaches kubelets with (logs, exec, port-forward):
// the kubelet CA (ca.crt) it verifies their serving certificates with and its client certificate
// (tls.crt, tls.key), named kube-apiserver-kubelet as Gardener's secrets manager names it
// (pkg/component/kubernetes/apiserver/deployment.go at Gardener v1.120.0).
type KubeletAccess struct {
	CASecretName     string
	ClientSecretName string
}

// VPN is the reversed VPN from the control plane to the nodes (Gardener's "Reversed VPN Tunnel"
// docs/development/reversed-vpn-tunnel.md). Without high availability the API server dials the
// nodes through vpn-seed-server's HTTP CONNECT proxy (the egress selector configuration); with it,
// each pod runs a vpn-client per vpn-seed-server and a path controller beside the API server.
type VPN struct {
	// CASecretName holds the VPN CA (ca.crt).
	CASecretName string
	// HTTPProxySecretName holds the client certificate (tls.crt, tls.key) for the proxy
	// (kube-apiserver-http-proxy); only without high availability.
	HTTPProxySecretName string
	// HighAvailability runs the vpn-client sidecars; Servers and Clients are the numbers of
	// vpn-seed-servers and of vpn-shoot clients (2 each in Gardener v1.120.0).
	HighAvailability bool
	Servers, Clients int
	// ClientSecretName holds the sidecars' client certificate (vpn-seed-client) and
	// TLSAuthSecretName the tls-auth key (vpn.tlsauth); only with high availability.
	ClientSecretName  string
	TLSAuthSecretName string
	// Pods and Nodes are the shoot's pod and node networks (Nodes may be empty).
	Pods, Nodes string
}

// AuthorizationWebhook is an authorizer the API server asks after Node and RBAC through a
// kubeconfig: the virtual garden's seed authorizer served by gardener-admission-controller
// (pkg/operator/controller/garden/garden/components.go at Gardener v1.120.0). Its settings are
// the ones Gardener gives every such webhook: decisions are never cached (1ns), a call times out
// after 10s and fails closed, SubjectAccessReviews of v1.
type AuthorizationWebhook struct {
	// Name names the authorizer and its kubeconfig file.
	Name string
	// Server is the URL the webhook is served at; CAData the base64 CA bundle that verifies it
	// (a render.GeneratedRef marker with base64 set).
	Server, CAData string
	// MatchExpression is the CEL condition a request must meet to be sent to the webhook.
	MatchExpression string
}

// resolved are the values with the defaults that depend on other values applied.
type resolved struct {
	Values
	prefix, namespace, mainEndpoint, eventsEndpoint, eventTTL string
	audiences                                                 []string
	runtimeConfig                                             map[string]bool
	enabledPlugins, disabledPlugins                           []string
	structuredAuthorization                                   bool
}

// workerlessRuntimeConfig are the APIs of workloads a cluster without nodes serves none of
// (computeKubeAPIServerArgs in pkg/component/kubernetes/apiserver/deployment.go at Gardener
// v1.120.0); RuntimeConfig may turn them on again.
func workerlessRuntimeConfig() map[string]bool {
	return map[string]bool{
		"apps/v1": false, "autoscaling/v2": false, "batch/v1": false,
		"discovery.k8s.io/v1": false, "policy/v1": false, "storage.k8s.io/v1/csinodes": false,
	}
}

// gardenerAudience is the audience Gardener always adds to the API server's (v1beta1constants
// GardenerAudience at Gardener v1.120.0).
const gardenerAudience = "gardener"

func resolve(v Values) (resolved, error) {
	r := resolved{Values: v, prefix: v.NamePrefix, namespace: v.Namespace}
	if v.KubernetesVersion == "" {
		return r, fmt.Errorf("kubernetes version is required")
	}
	ver, err := version.ParseGeneric(v.KubernetesVersion)
	if err != nil {
		return r, fmt.Errorf("kubernetes version %q: %w", v.KubernetesVersion, err)
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
	if v.HealthCheckTokenSecretName == "" {
		return r, fmt.Errorf("health check token secret name is required: the probes authenticate with its token")
	}
	if v.Workerless && (v.Kubelet != nil || v.VPN != nil) {
		return r, fmt.Errorf("a workerless API server reaches no kubelets and needs no VPN")
	}
	if err := checkVPN(v.VPN); err != nil {
		return r, err
	}
	if v.EventTTL != "" {
		d, err := time.ParseDuration(v.EventTTL)
		if err != nil {
			return r, fmt.Errorf("event ttl %q: %w", v.EventTTL, err)
		}
		r.eventTTL = d.String() // as Gardener writes a metav1.Duration: 1h0m0s
	}
	// Structured authorization from Kubernetes 1.30 on, unless its feature gate is off
	// (useStructuredAuthorization at Gardener v1.120.0).
	gate, set := v.FeatureGates["StructuredAuthorizationConfiguration"]
	r.structuredAuthorization = (!set || gate) && ver.AtLeast(version.MajorMinor(1, 30))
	r.mainEndpoint = or(v.EtcdMainEndpoint, etcdEndpoint(r.prefix, etcd.RoleMain))
	r.eventsEndpoint = or(v.EtcdEventsEndpoint, etcdEndpoint(r.prefix, etcd.RoleEvents))
	r.audiences = []string{"kubernetes", gardenerAudience}
	if len(v.APIAudiences) > 0 {
		r.audiences = slices.Clone(v.APIAudiences)
		if !slices.Contains(r.audiences, gardenerAudience) {
			r.audiences = append(r.audiences, gardenerAudience)
		}
	}
	if v.Workerless {
		r.runtimeConfig = workerlessRuntimeConfig()
	}
	if len(v.RuntimeConfig) > 0 {
		if r.runtimeConfig == nil {
			r.runtimeConfig = map[string]bool{}
		}
		maps.Copy(r.runtimeConfig, v.RuntimeConfig)
	}
	// NodeRestriction is the plugin Gardener enables beyond Kubernetes' defaults; the
	// landscape's come after it, and a disabled plugin is never enabled
	// (computeEnabledAPIServerAdmissionPlugins in pkg/component/shared/apiserver.go at Gardener
	// v1.120.0).
	for _, n := range append([]string{"NodeRestriction"}, v.EnableAdmissionPlugins...) {
		if !slices.Contains(r.enabledPlugins, n) && !slices.Contains(v.DisableAdmissionPlugins, n) {
			r.enabledPlugins = append(r.enabledPlugins, n)
		}
	}
	r.disabledPlugins = v.DisableAdmissionPlugins
	if len(v.IngressGatewayLabels) == 0 {
		r.IngressGatewayLabels = DefaultIngressGatewayLabels()
	}
	return r, nil
}

// checkVPN requires the Secrets and counts of the VPN's mode.
func checkVPN(v *VPN) error {
	switch {
	case v == nil:
		return nil
	case v.CASecretName == "" || v.Pods == "":
		return fmt.Errorf("vpn: the CA Secret and the pod network are required")
	case !v.HighAvailability && v.HTTPProxySecretName == "":
		return fmt.Errorf("vpn: the HTTP proxy client certificate is required without high availability")
	case v.HighAvailability && (v.Servers < 1 || v.Clients < 1 || v.ClientSecretName == "" || v.TLSAuthSecretName == ""):
		return fmt.Errorf("vpn: high availability needs the numbers of servers and clients, the client certificate and the tls-auth key")
	}
	return nil
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
			"server_dns_names":    stringList(ServerDNSNames(prefix, ns, v.ClusterDomain, v.DNSDomains, !v.Workerless, loopback(v))),
			"encrypted_resources": stringList(resources),
		},
	}, nil
}

// loopback reports whether something in the pod calls the API server on localhost, so that its
// serving certificate must cover it: Gardener's shoots exposed by SNI and the highly available
// VPN's path controller (reconcileSecretServer at Gardener v1.120.0).
func loopback(v Values) bool {
	return v.AdvertiseAddress != "" || (v.VPN != nil && v.VPN.HighAvailability)
}

func stringList(ss []string) cty.Value {
	vals := make([]cty.Value, len(ss))
	for i, s := range ss {
		vals[i] = cty.StringVal(s)
	}
	return cty.ListVal(vals)
}

// Objects renders the API server's objects: its configuration files (admission, audit policy,
// authorization, egress selector, static token, webhook kubeconfigs), Service, Deployment (with
// the ServiceAccount and RBAC of the highly available VPN), HorizontalPodAutoscaler,
// VerticalPodAutoscaler, PodDisruptionBudget and, with SNI, the Istio Gateway, VirtualService and
// DestinationRule.
func Objects(v Values) ([]render.Object, error) {
	r, err := resolve(v)
	if err != nil {
		return nil, err
	}
	if _, err := EncryptedResources(v.KubernetesVersion, v.EncryptedResources); err != nil {
		return nil, err
	}
	cfg, err := configurationOf(r)
	if err != nil {
		return nil, err
	}
	typed := cfg.objects
	svc, err := service(r)
	if err != nil {
		return nil, err
	}
	typed = append(typed, svc)
	if r.VPN != nil && r.VPN.HighAvailability {
		typed = append(typed, vpnAccess(r)...)
	}
	deployment, err := deployment(r, cfg)
	if err != nil {
		return nil, err
	}
	typed = append(typed, deployment, hpa(r), disruption.Budget(r.namespace, Name(r.prefix), SelectorLabels()))
	us, err := kube.All(typed...)
	if err != nil {
		return nil, err
	}
	StripStatus(us)
	us = append(us, vpa(r))
	if r.SNI {
		us = append(us, istioObjects(r)...)
	}
	objs := kube.On(v.Cluster.Name, "", us...)
	markVersions(r, objs)
	return objs, nil
}

// markVersions lets each unique ConfigMap and Secret supersede its earlier versions, so that a
// plan deletes them as superseded when the content changes, as the resource manager's garbage
// collector does in Gardener. The admission configuration had a name of its own before it was
// unique, with the name prefix: that is an earlier version too.
func markVersions(r resolved, objs []render.Object) {
	for _, base := range []string{AdmissionConfigMapPrefix, AuditPolicyConfigMapPrefix, AuthorizationConfigMapPrefix, EgressSelectorConfigMapPrefix} {
		unique.MarkVersions(objs, "ConfigMap", base)
	}
	unique.MarkVersions(objs, "Secret", AdmissionKubeconfigsSecretPrefix)
	earlier := regexp.MustCompile("^(" + regexp.QuoteMeta(r.prefix) + ")?" + regexp.QuoteMeta(AdmissionConfigMapPrefix) + "(-[0-9a-f]{8})?$")
	for i, o := range objs {
		if o.Object.GetKind() == "ConfigMap" && o.Supersedes != nil && strings.HasPrefix(o.Object.GetName(), AdmissionConfigMapPrefix+"-") {
			objs[i].Supersedes = earlier
		}
	}
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
// never changes without a change of the gates (FeatureGatesToCommandLineParameter in
// pkg/utils/kubernetes at Gardener v1.120.0).
func FeatureGatesFlag(gates map[string]bool) string { return keyValueFlag(gates) }

// keyValueFlag renders key=bool pairs sorted by key, comma-separated, as Gardener renders
// --feature-gates and --runtime-config (MapStringBoolToCommandLineParameter).
func keyValueFlag(m map[string]bool) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s=%t", k, m[k]))
	}
	return strings.Join(parts, ",")
}

// SeedAuthorizer is the virtual garden's authorization webhook served by
// gardener-admission-controller, which restricts gardenlets and the ServiceAccounts of seed
// namespaces to the objects of their seeds; caData is the base64 CA bundle that signs
// gardener-admission-controller's serving certificate (ca-gardener). Only their requests are sent
// to it (newKubeAPIServer in pkg/operator/controller/garden/garden/components.go at Gardener
// v1.120.0). The URL names the Service by its short name, which resolves in the runtime cluster's
// garden namespace where both run.
func SeedAuthorizer(caData string) AuthorizationWebhook {
	return AuthorizationWebhook{
		Name:            "seed-authorizer",
		Server:          "https://gardener-admission-controller/webhooks/auth/seed",
		CAData:          caData,
		MatchExpression: "'gardener.cloud:system:seeds' in request.groups || request.groups.exists(e, e.startsWith('system:serviceaccounts:seed-'))",
	}
}
