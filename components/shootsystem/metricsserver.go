package shootsystem

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
)

const (
	// MetricsServerName is the Deployment and Service of metrics-server (Gardener's "Shoot
	// Autoscaling" docs/usage/autoscaling/shoot_autoscaling.md).
	MetricsServerName = "metrics-server"
	// MetricsAPIService is the aggregated resource metrics API (Gardener's "Log Parsers"
	// docs/development/log_parsers.md).
	MetricsAPIService  = "v1beta1.metrics.k8s.io"
	metricsServerPort  = 8443
	metricsServerCerts = "/srv/metrics-server/tls"
	// Two replicas keep the resource metrics API, and with it HPAs and VPAs, available during a
	// node drain; Gardener's documentation gives no count.
	metricsServerReplicas = 2
)

var metricsServerLabels = map[string]string{"k8s-app": MetricsServerName}

// MetricsServer renders metrics-server, the resource metrics API HPA and VPA rely on
// (Gardener's docs/usage/autoscaling/shoot_autoscaling.md): its Deployment, Service, APIService and
// RBAC.
func MetricsServer(v Values) ([]*unstructured.Unstructured, error) {
	return renderPrepared(v, (*prepared).metricsServer)
}

func (p *prepared) metricsServer() ([]*unstructured.Unstructured, error) {
	image, err := p.image(images.MetricsServer, "")
	if err != nil {
		return nil, err
	}
	// The kube-apiserver reaches it through the VPN (from-seed, Gardener's "Network Policies"
	// docs/operations/network_policies.md); it reads from the kubelets and the API server.
	podLabels := merge(metricsServerLabels, map[string]string{fromSeed: allowed, toAPIServer: allowed, toDNS: allowed, toKubelet: allowed})
	typed, err := kube.All(
		serviceAccount(MetricsServerName, metricsServerLabels, true),
		&rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "system:metrics-server", Labels: metricsServerLabels},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"nodes/metrics"}, Verbs: []string{"get"}},
				{APIGroups: []string{""}, Resources: []string{"pods", "nodes"}, Verbs: []string{"get", "list", "watch"}},
			},
		},
		&rbacv1.ClusterRole{
			// Aggregated into the default view, edit and admin roles, so users can read metrics.
			ObjectMeta: metav1.ObjectMeta{Name: "system:aggregated-metrics-reader", Labels: merge(metricsServerLabels, map[string]string{
				"rbac.authorization.k8s.io/aggregate-to-view":  "true",
				"rbac.authorization.k8s.io/aggregate-to-edit":  "true",
				"rbac.authorization.k8s.io/aggregate-to-admin": "true",
			})},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{"metrics.k8s.io"}, Resources: []string{"pods", "nodes"}, Verbs: []string{"get", "list", "watch"}}},
		},
		clusterRoleBinding("system:metrics-server", "system:metrics-server", MetricsServerName, metricsServerLabels),
		clusterRoleBinding("metrics-server:system:auth-delegator", "system:auth-delegator", MetricsServerName, metricsServerLabels),
		&rbacv1.RoleBinding{
			ObjectMeta: meta("metrics-server-auth-reader", metricsServerLabels),
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "extension-apiserver-authentication-reader"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: MetricsServerName, Namespace: Namespace}},
		},
		&corev1.Service{
			ObjectMeta: meta(MetricsServerName, metricsServerLabels),
			Spec: corev1.ServiceSpec{
				Selector: metricsServerLabels,
				Ports:    []corev1.ServicePort{{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(metricsServerPort)}},
			},
		},
		&appsv1.Deployment{
			ObjectMeta: meta(MetricsServerName, metricsServerLabels),
			Spec: appsv1.DeploymentSpec{
				Replicas:             ptr.To[int32](metricsServerReplicas),
				RevisionHistoryLimit: ptr.To[int32](2),
				Selector:             &metav1.LabelSelector{MatchLabels: metricsServerLabels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
					Spec: corev1.PodSpec{
						// Not in Gardener's "Priority Classes" docs/development/priority-classes.md; cluster-critical
						// like the other APIs workloads depend on.
						PriorityClassName:         SystemClusterCritical,
						ServiceAccountName:        MetricsServerName,
						TopologySpreadConstraints: hostnameSpread(metricsServerLabels),
						Containers: []corev1.Container{{
							Name:  MetricsServerName,
							Image: image,
							Args: []string{
								"--secure-port=8443",
								"--tls-cert-file=" + metricsServerCerts + "/tls.crt",
								"--tls-private-key-file=" + metricsServerCerts + "/tls.key",
								"--kubelet-preferred-address-types=InternalIP,InternalDNS,Hostname",
								// Kubelet serving certificates are self-signed unless server TLS
								// bootstrapping is on; Gardener's documentation is silent.
								"--kubelet-insecure-tls",
								"--metric-resolution=15s",
								"--profiling=false",
							},
							Ports: []corev1.ContainerPort{{Name: "https", ContainerPort: metricsServerPort, Protocol: corev1.ProtocolTCP}},
							LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
								Path: "/livez", Port: intstr.FromString("https"), Scheme: corev1.URISchemeHTTPS,
							}}, FailureThreshold: 3, PeriodSeconds: 10},
							ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
								Path: "/readyz", Port: intstr.FromString("https"), Scheme: corev1.URISchemeHTTPS,
							}}, InitialDelaySeconds: 20, PeriodSeconds: 10},
							Resources: corev1.ResourceRequirements{
								Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("150Mi")},
							},
							SecurityContext: restricted(),
							VolumeMounts:    []corev1.VolumeMount{{Name: "tls", MountPath: metricsServerCerts, ReadOnly: true}},
						}},
						Volumes: []corev1.Volume{{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: p.MetricsServer.TLSSecretName}}}},
					},
				},
			},
		},
		disruption.Budget(Namespace, MetricsServerName, metricsServerLabels),
	)
	if err != nil {
		return nil, err
	}
	spec := map[string]any{
		"group":                "metrics.k8s.io",
		"version":              "v1beta1",
		"groupPriorityMinimum": int64(100),
		"versionPriority":      int64(100),
		"service":              map[string]any{"name": MetricsServerName, "namespace": Namespace, "port": int64(443)},
	}
	if p.MetricsServer.CABundle != "" {
		spec["caBundle"] = p.MetricsServer.CABundle
	} else {
		spec["insecureSkipTLSVerify"] = true
	}
	apiService := kube.Custom("apiregistration.k8s.io/v1", "APIService", "", MetricsAPIService, metricsServerLabels, map[string]any{"spec": spec})
	out := append(typed, apiService)
	if t := p.MetricsServer.TLS; t.Name != "" {
		out = append(out, generatedSecret(p.MetricsServer.TLSSecretName, metricsServerLabels, map[string]string{"tls.crt": t.ref("tls.crt"), "tls.key": t.ref("tls.key")}))
	}
	return out, nil
}
