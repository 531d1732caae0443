package istio

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
)

// istiod's ports, as upstream Istio serves them.
const (
	istiodHTTPPort       int32 = 8080  // debug and readiness (/ready)
	istiodGRPCPort       int32 = 15010 // plain-text xDS
	istiodMonitoringPort int32 = 15014 // metrics
	istiodWebhookPort    int32 = 15017 // webhooks (none registered here, see istiodEnv)
	// istiodClusterRole names istiod's ClusterRole and binding; one istiod runs per cluster
	// (a runtime cluster that is also a seed runs the garden's, Gardener's "Gardener Operator"
	// docs/concepts/operator.md).
	istiodClusterRole = "gardener.cloud:istio:istiod"
	// meshConfigMap is the ConfigMap istiod reads the mesh configuration from.
	meshConfigMap = "istio"
)

// IstiodLabels are the labels of istiod's pods and the selector of its Service.
func IstiodLabels() map[string]string {
	return map[string]string{"app": "istiod", "istio": "pilot"}
}

// DiscoveryAddress is istiod's xDS and CA address for proxies in any namespace.
func DiscoveryAddress(istiodNamespace string) string {
	return fmt.Sprintf("%s.%s.svc:%d", IstiodName, istiodNamespace, istiodXDSPort)
}

// istiodObjects renders istiod's namespace, RBAC, mesh configuration, Deployment, Service and
// PodDisruptionBudget.
func istiodObjects(v Values, image string) []runtime.Object {
	ns, labels := v.Namespace, IstiodLabels()
	meta := metav1.ObjectMeta{Namespace: ns, Name: IstiodName, Labels: labels}
	n := replicas.HighAvailability(v.HighAvailability)
	rbac := kube.ServiceAccountRBAC(meta, istiodClusterRole, istiodClusterRules(), []rbacv1.PolicyRule{
		// istiod's self-signed CA (istio-ca-secret) and its leader election.
		{APIGroups: []string{""}, Resources: []string{"secrets", "configmaps"}, Verbs: []string{"get", "list", "watch", "create", "update", "delete"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "watch", "create", "update", "delete"}},
	})
	// The namespace's labels and annotations as gardenlet and gardener-operator keep them
	// (deployIstiod in pkg/component/networking/istio/istiod.go at Gardener v1.120.0).
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: ns,
		Labels: map[string]string{
			"istio-operator-managed": "Reconcile", "istio-injection": "disabled", labelPodSecurityEnforce: "baseline",
			labelConsiderHA: "true", LabelRole: "istio-system",
		},
		Annotations: map[string]string{annotationHAZones: strings.Join(v.Zones, ",")},
	}}
	return append(append([]runtime.Object{namespace}, rbac...),
		&corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: meshConfigMap, Labels: labels},
			Data:       map[string]string{"mesh": meshConfig(v), "meshNetworks": "networks: {}\n"},
		},
		kube.Deployment(meta, labels, n, istiodPod(v, image, n)),
		&corev1.Service{
			ObjectMeta: meta,
			Spec: corev1.ServiceSpec{
				Type:     corev1.ServiceTypeClusterIP,
				Selector: labels,
				Ports: []corev1.ServicePort{
					{Name: "grpc-xds", Port: istiodGRPCPort, TargetPort: intstr.FromInt32(istiodGRPCPort), Protocol: corev1.ProtocolTCP},
					{Name: "https-dns", Port: istiodXDSPort, TargetPort: intstr.FromInt32(istiodXDSPort), Protocol: corev1.ProtocolTCP},
					{Name: "https-webhook", Port: 443, TargetPort: intstr.FromInt32(istiodWebhookPort), Protocol: corev1.ProtocolTCP},
					{Name: "http-monitoring", Port: istiodMonitoringPort, TargetPort: intstr.FromInt32(istiodMonitoringPort), Protocol: corev1.ProtocolTCP},
				},
			},
		},
		disruption.Budget(ns, IstiodName, labels),
	)
}

// istiodClusterRules is what istiod watches cluster-wide to program the proxies, plus the
// ConfigMap it publishes its root certificate in (istio-ca-root-cert, in every namespace) and the
// reviews with which it authenticates and authorises proxies. Gateway TLS Secrets are readable
// per gateway namespace only (gatewayObjects).
func istiodClusterRules() []rbacv1.PolicyRule {
	read := []string{"get", "list", "watch"}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch", "create", "update"}},
		{APIGroups: []string{""}, Resources: []string{"endpoints", "namespaces", "nodes", "pods", "services", "serviceaccounts"}, Verbs: read},
		{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: read},
		{APIGroups: []string{"networking.istio.io"}, Resources: []string{"*"}, Verbs: read},
		{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: read},
		{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
		{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
	}
}

// meshConfig is the mesh configuration after Gardener's deviations from Istio's default profile
// (Gardener's "Istio" docs/operations/istio.md): Services and VirtualServices are not exported
// unless they ask to be (exportTo "~" means no namespace; objects opt in with exportTo ["*"],
// Gardener's docs/operations/istio.md), no telemetry (no Prometheus merging, no tracing, no access
// log), no Kubernetes Ingress handling, automatic mTLS on (Gardener's docs/operations/istio.md).
func meshConfig(v Values) string {
	cfg := map[string]any{
		"rootNamespace":                 v.Namespace,
		"trustDomain":                   v.TrustDomain,
		"defaultServiceExportTo":        []string{"~"},
		"defaultVirtualServiceExportTo": []string{"~"},
		"enableAutoMtls":                true,
		"enablePrometheusMerge":         false,
		"enableTracing":                 false,
		"accessLogFile":                 "",
		"ingressControllerMode":         "OFF",
		"defaultConfig": map[string]any{
			"discoveryAddress": DiscoveryAddress(v.Namespace),
		},
	}
	data, err := yaml.Marshal(cfg)
	if err != nil {
		panic("istio: marshalling the mesh configuration: " + err.Error()) // plain maps always marshal
	}
	return string(data)
}

// istiodPod runs the discovery server.
func istiodPod(v Values, image string, n int32) corev1.PodSpec {
	labels := IstiodLabels()
	return istioPod{
		serviceAccount: IstiodName,
		priorityClass:  v.PriorityClassName,
		spread:         spread(n, false, labels),
		container:      "discovery",
		image:          image,
		args: []string{
			"discovery",
			fmt.Sprintf("--monitoringAddr=:%d", istiodMonitoringPort),
			"--log_output_level=default:info",
			"--domain", clusterDomain,
			"--keepaliveMaxServerConnectionAge", "30m",
		},
		ports: []corev1.ContainerPort{
			{Name: "http-debug", ContainerPort: istiodHTTPPort, Protocol: corev1.ProtocolTCP},
			{Name: "grpc-xds", ContainerPort: istiodGRPCPort, Protocol: corev1.ProtocolTCP},
			{Name: "tls-xds", ContainerPort: istiodXDSPort, Protocol: corev1.ProtocolTCP},
			{Name: "http-monitoring", ContainerPort: istiodMonitoringPort, Protocol: corev1.ProtocolTCP},
			{Name: "https-webhooks", ContainerPort: istiodWebhookPort, Protocol: corev1.ProtocolTCP},
		},
		env: istiodEnv(),
		readiness: &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(istiodHTTPPort)}},
			InitialDelaySeconds: 1,
			PeriodSeconds:       3,
			TimeoutSeconds:      5,
		},
		// istiod's load grows with the number of proxies.
		cpu: "100m", memory: "256Mi",
		mounts: []corev1.VolumeMount{
			{Name: "local-certs", MountPath: "/var/run/secrets/istio-dns"},
			{Name: "istio-token", MountPath: "/var/run/secrets/tokens", ReadOnly: true},
			{Name: "config-volume", MountPath: "/etc/istio/config", ReadOnly: true},
			{Name: "cacerts", MountPath: "/etc/cacerts", ReadOnly: true},
		},
		volumes: []corev1.Volume{
			emptyDir("local-certs", "10Mi", true),
			istioTokenVolume(),
			{Name: "config-volume", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: meshConfigMap},
			}}},
			// An operator-provided CA (Secret cacerts) replaces istiod's self-signed one.
			{Name: "cacerts", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "cacerts", Optional: ptr.To(true)}}},
		},
	}.spec()
}

// istiodEnv configures istiod: its own CA for proxies, no sidecar injector and no validation
// webhook to patch (Gardener's docs/operations/istio.md: the injector is not enabled), no Gateway
// API, analysis or status.
func istiodEnv() []corev1.EnvVar {
	return []corev1.EnvVar{
		{Name: "REVISION", Value: "default"},
		{Name: "PILOT_CERT_PROVIDER", Value: "istiod"},
		fieldEnv("POD_NAME", "metadata.name"),
		fieldEnv("POD_NAMESPACE", "metadata.namespace"),
		fieldEnv("SERVICE_ACCOUNT", "spec.serviceAccountName"),
		{Name: "CLUSTER_ID", Value: "Kubernetes"},
		{Name: "INJECTION_WEBHOOK_CONFIG_NAME", Value: ""},
		{Name: "VALIDATION_WEBHOOK_CONFIG_NAME", Value: ""},
		{Name: "PILOT_ENABLE_GATEWAY_API", Value: "false"},
		{Name: "PILOT_ENABLE_GATEWAY_API_STATUS", Value: "false"},
		{Name: "PILOT_ENABLE_GATEWAY_API_DEPLOYMENT_CONTROLLER", Value: "false"},
		{Name: "PILOT_ENABLE_ANALYSIS", Value: "false"},
		// No status on Istio objects: the CRDs have no status subresource.
		{Name: "PILOT_ENABLE_STATUS", Value: "false"},
	}
}
