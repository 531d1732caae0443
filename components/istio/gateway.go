package istio

import (
	"encoding/json"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
)

// gatewayObjects renders one ingress gateway: its namespace, ServiceAccount, the Role that lets
// the gateway and istiod read TLS Secrets there, the Envoy Deployment, its Service and
// PodDisruptionBudget. gw has its defaults applied.
func gatewayObjects(v Values, gw Gateway, image string) []runtime.Object {
	ns, name, labels := gw.Namespace, gw.Name, gw.Labels
	meta := metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}
	sds := name + "-sds"
	n := replicas.HighAvailability(v.HighAvailability)
	svcMeta := meta
	svcMeta.Annotations = maps.Clone(gw.LoadBalancerAnnotations)
	return []runtime.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		// The proxy never talks to the Kubernetes API; it authenticates to istiod with the
		// projected istio-token.
		&corev1.ServiceAccount{ObjectMeta: meta, AutomountServiceAccountToken: ptr.To(false)},
		// Gateways with TLS termination read their certificates (credentialName) from Secrets
		// in their own namespace, through istiod, which checks that the gateway may read them.
		&rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sds, Labels: labels},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "watch"}}},
		},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sds, Labels: labels},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: sds},
			Subjects: []rbacv1.Subject{
				{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name},
				{Kind: rbacv1.ServiceAccountKind, Namespace: v.Namespace, Name: IstiodName},
			},
		},
		kube.Deployment(meta, labels, n, gatewayPod(v, gw, image, n)),
		&corev1.Service{
			ObjectMeta: svcMeta,
			Spec: corev1.ServiceSpec{
				Type:     gw.ServiceType,
				Selector: labels,
				Ports:    servicePorts(gw.Ports),
			},
		},
		disruption.Budget(ns, name, labels),
	}
}

// servicePorts are the status port, for load balancer health checks, and the gateway's ports.
func servicePorts(ports []Port) []corev1.ServicePort {
	out := []corev1.ServicePort{{Name: "status-port", Port: StatusPort, TargetPort: intstr.FromInt32(StatusPort), Protocol: corev1.ProtocolTCP}}
	for _, p := range ports {
		out = append(out, corev1.ServicePort{Name: p.Name, Port: p.Port, TargetPort: intstr.FromInt32(p.TargetPort), Protocol: corev1.ProtocolTCP})
	}
	return out
}

// gatewayPod runs Envoy as a router (no sidecar), configured and issued certificates by istiod.
func gatewayPod(v Values, gw Gateway, image string, n int32) corev1.PodSpec {
	ports := []corev1.ContainerPort{}
	for _, p := range gw.Ports {
		ports = append(ports, corev1.ContainerPort{Name: p.Name, ContainerPort: p.TargetPort, Protocol: corev1.ProtocolTCP})
	}
	ports = append(ports,
		corev1.ContainerPort{Name: "status-port", ContainerPort: StatusPort, Protocol: corev1.ProtocolTCP},
		corev1.ContainerPort{Name: "http-envoy-prom", ContainerPort: envoyMetricsPort, Protocol: corev1.ProtocolTCP},
	)
	spec := istioPod{
		serviceAccount: gw.Name,
		noToken:        true,
		priorityClass:  v.PriorityClassName,
		spread:         spread(n, gw.Zone != "", gw.Labels),
		container:      "istio-proxy",
		image:          image,
		args: []string{
			"proxy", "router",
			"--domain", "$(POD_NAMESPACE).svc." + clusterDomain,
			"--proxyLogLevel=warning",
			"--proxyComponentLogLevel=misc:error",
			"--log_output_level=default:info",
		},
		ports: ports,
		env:   gatewayEnv(v, gw),
		readiness: &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz/ready", Port: intstr.FromInt32(StatusPort)}},
			InitialDelaySeconds: 1,
			PeriodSeconds:       2,
			FailureThreshold:    30,
		},
		cpu: "100m", memory: "128Mi",
		mounts: []corev1.VolumeMount{
			{Name: "workload-socket", MountPath: "/var/run/secrets/workload-spiffe-uds"},
			{Name: "credential-socket", MountPath: "/var/run/secrets/credential-uds"},
			{Name: "workload-certs", MountPath: "/var/run/secrets/workload-spiffe-credentials"},
			{Name: "istio-envoy", MountPath: "/etc/istio/proxy"},
			{Name: "istio-data", MountPath: "/var/lib/istio/data"},
			{Name: "podinfo", MountPath: "/etc/istio/pod"},
			{Name: "istio-token", MountPath: "/var/run/secrets/tokens", ReadOnly: true},
			{Name: "istiod-ca-cert", MountPath: "/var/run/secrets/istio", ReadOnly: true},
		},
		volumes: []corev1.Volume{
			emptyDir("workload-socket", "1Mi", false),
			emptyDir("credential-socket", "1Mi", false),
			emptyDir("workload-certs", "1Mi", true),
			emptyDir("istio-envoy", "64Mi", true),
			emptyDir("istio-data", "64Mi", false),
			{Name: "podinfo", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{
				{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.labels"}},
				{Path: "annotations", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.annotations"}},
			}}}},
			istioTokenVolume(),
			// istiod publishes its root certificate in every namespace under this name.
			{Name: "istiod-ca-cert", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "istio-ca-root-cert"},
			}}},
		},
	}.spec()
	if gw.Zone != "" {
		// A zonal gateway serves the control planes pinned to its zone (Gardener's "Istio"
		// docs/operations/istio.md).
		spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{gw.Zone}}},
			}}},
		}}
	}
	return spec
}

// gatewayEnv tells the proxy agent where istiod is, who it is, and which mesh it belongs to.
func gatewayEnv(v Values, gw Gateway) []corev1.EnvVar {
	proxyConfig, _ := json.Marshal(map[string]string{"discoveryAddress": DiscoveryAddress(v.Namespace)}) // a string map always marshals
	return []corev1.EnvVar{
		{Name: "JWT_POLICY", Value: "third-party-jwt"},
		{Name: "PILOT_CERT_PROVIDER", Value: "istiod"},
		{Name: "CA_ADDR", Value: DiscoveryAddress(v.Namespace)},
		{Name: "PROXY_CONFIG", Value: string(proxyConfig)},
		fieldEnv("NODE_NAME", "spec.nodeName"),
		fieldEnv("POD_NAME", "metadata.name"),
		fieldEnv("POD_NAMESPACE", "metadata.namespace"),
		fieldEnv("INSTANCE_IP", "status.podIP"),
		fieldEnv("HOST_IP", "status.hostIP"),
		fieldEnv("SERVICE_ACCOUNT", "spec.serviceAccountName"),
		fieldEnv("ISTIO_META_NODE_NAME", "spec.nodeName"),
		{Name: "ISTIO_META_WORKLOAD_NAME", Value: gw.Name},
		{Name: "ISTIO_META_OWNER", Value: fmt.Sprintf("kubernetes://apis/apps/v1/namespaces/%s/deployments/%s", gw.Namespace, gw.Name)},
		{Name: "ISTIO_META_MESH_ID", Value: v.TrustDomain},
		{Name: "TRUST_DOMAIN", Value: v.TrustDomain},
		{Name: "ISTIO_META_UNPRIVILEGED_POD", Value: "true"},
		{Name: "ISTIO_META_CLUSTER_ID", Value: "Kubernetes"},
	}
}
