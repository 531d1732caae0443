package shootsystem

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
)

const (
	// CoreDNSName is CoreDNS's Deployment (Gardener's "Custom DNS Configuration"
	// docs/usage/networking/custom-dns-config.md).
	CoreDNSName = "coredns"
	// KubeDNSService is the cluster DNS Service (Gardener's
	// docs/usage/networking/custom-dns-config.md).
	KubeDNSService = "kube-dns"
	// CoreDNSCustomConfigMap holds the users' additions (keys *.server, *.override,
	// Gardener's docs/usage/networking/custom-dns-config.md).
	CoreDNSCustomConfigMap = "coredns-custom"
	// coreDNSPort is the port CoreDNS listens on; kube-dns forwards port 53 to it (Gardener's
	// docs/usage/networking/custom-dns-config.md). An unprivileged port lets CoreDNS run without
	// NET_BIND_SERVICE.
	coreDNSPort = 8053
	// Horizontal autoscaling between 2 and 5 replicas, Gardener's default mode (Gardener's "DNS
	// Autoscaling" docs/usage/autoscaling/dns-autoscaling.md).
	coreDNSMinReplicas = 2
	coreDNSMaxReplicas = 5
	clusterDomain      = "cluster.local"
)

// coreDNSLabels select CoreDNS pods; the kube-system policy gardener.cloud--allow-dns selects
// k8s-app=kube-dns (Gardener's "Network Policies" docs/operations/network_policies.md).
var coreDNSLabels = map[string]string{"k8s-app": "kube-dns"}

// corefile is CoreDNS's configuration: the cluster domain from the API, everything else to the
// node's resolvers, and the users' coredns-custom files imported (Gardener's
// docs/usage/networking/custom-dns-config.md). reload picks up changes within 30s (Gardener's
// docs/usage/networking/custom-dns-config.md).
func corefile() string {
	return fmt.Sprintf(`.:%d {
  errors
  log . {
    class error
  }
  health {
    lameduck 15s
  }
  ready
  kubernetes %s in-addr.arpa ip6.arpa {
    pods insecure
    fallthrough in-addr.arpa ip6.arpa
    ttl 30
  }
  prometheus :9153
  forward . /etc/resolv.conf
  cache 30
  loop
  reload
  loadbalance round_robin
  import custom/*.override
}
import custom/*.server
`, coreDNSPort, clusterDomain)
}

// CoreDNS renders the cluster DNS: the Deployment coredns with its HPA, the Service kube-dns on
// the cluster DNS address, its configuration and RBAC.
func CoreDNS(v Values) ([]*unstructured.Unstructured, error) {
	return renderPrepared(v, (*prepared).coreDNS)
}

func (p *prepared) coreDNS() ([]*unstructured.Unstructured, error) {
	image, err := p.image(images.CoreDNS, "")
	if err != nil {
		return nil, err
	}
	config := map[string]string{"Corefile": corefile()}
	podLabels := merge(coreDNSLabels, map[string]string{toAPIServer: allowed})
	dnsPorts := []corev1.ServicePort{
		{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP, TargetPort: intstr.FromInt32(coreDNSPort)},
		{Name: "dns-tcp", Port: 53, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(coreDNSPort)},
	}
	objs := []runtime.Object{
		serviceAccount(CoreDNSName, coreDNSLabels, true),
		&rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "system:coredns", Labels: coreDNSLabels},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"endpoints", "services", "pods", "namespaces"}, Verbs: []string{"list", "watch"}},
				{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"list", "watch"}},
			},
		},
		clusterRoleBinding("system:coredns", "system:coredns", CoreDNSName, coreDNSLabels),
		&corev1.ConfigMap{ObjectMeta: meta(CoreDNSName, coreDNSLabels), Data: config},
		&corev1.ConfigMap{
			// Created once and then left to the users (Gardener's "Gardener Resource Manager"
			// docs/concepts/resource-manager.md): their edits survive.
			ObjectMeta: annotated(meta(CoreDNSCustomConfigMap, coreDNSLabels), map[string]string{"resources.gardener.cloud/ignore": "true"}),
			Data:       map[string]string{},
		},
		&corev1.Service{
			ObjectMeta: meta(KubeDNSService, coreDNSLabels),
			Spec: corev1.ServiceSpec{
				ClusterIP: p.clusterDNSIP,
				Selector:  coreDNSLabels,
				Ports: append(dnsPorts, corev1.ServicePort{
					Name: "metrics", Port: 9153, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(9153),
				}),
			},
		},
		&appsv1.Deployment{
			// The HPA owns the replica count; the resource manager keeps it (Gardener's
			// docs/concepts/resource-manager.md).
			ObjectMeta: annotated(meta(CoreDNSName, coreDNSLabels), map[string]string{"resources.gardener.cloud/preserve-replicas": "true"}),
			Spec: appsv1.DeploymentSpec{
				Replicas:             ptr.To[int32](coreDNSMinReplicas),
				RevisionHistoryLimit: ptr.To[int32](2),
				Selector:             &metav1.LabelSelector{MatchLabels: coreDNSLabels},
				Strategy: appsv1.DeploymentStrategy{
					Type:          appsv1.RollingUpdateDeploymentStrategyType,
					RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr.To(intstr.FromInt32(0)), MaxSurge: ptr.To(intstr.FromInt32(1))},
				},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: podLabels, Annotations: map[string]string{"checksum/config": checksum(config)}},
					Spec: corev1.PodSpec{
						PriorityClassName:         SystemClusterCritical, // Gardener's docs/development/priority-classes.md
						ServiceAccountName:        CoreDNSName,
						DNSPolicy:                 corev1.DNSDefault, // CoreDNS resolves upstream through the node
						Tolerations:               []corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}},
						TopologySpreadConstraints: hostnameSpread(coreDNSLabels),
						Containers: []corev1.Container{{
							Name:  CoreDNSName,
							Image: image,
							Args:  []string{"-conf", "/etc/coredns/Corefile"},
							Ports: []corev1.ContainerPort{
								{Name: "dns-udp", ContainerPort: coreDNSPort, Protocol: corev1.ProtocolUDP},
								{Name: "dns-tcp", ContainerPort: coreDNSPort, Protocol: corev1.ProtocolTCP},
								{Name: "metrics", ContainerPort: 9153, Protocol: corev1.ProtocolTCP},
							},
							LivenessProbe: &corev1.Probe{
								ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromInt32(8080)}},
								InitialDelaySeconds: 60, TimeoutSeconds: 5, FailureThreshold: 5,
							},
							ReadinessProbe: &corev1.Probe{
								ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8181)}},
							},
							Resources: corev1.ResourceRequirements{
								Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("15Mi")},
								Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1500Mi")},
							},
							SecurityContext: restricted(),
							VolumeMounts: []corev1.VolumeMount{
								{Name: "config-volume", MountPath: "/etc/coredns", ReadOnly: true},
								{Name: "custom-config-volume", MountPath: "/etc/coredns/custom", ReadOnly: true},
							},
						}},
						Volumes: []corev1.Volume{
							{Name: "config-volume", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
								LocalObjectReference: corev1.LocalObjectReference{Name: CoreDNSName},
								Items:                []corev1.KeyToPath{{Key: "Corefile", Path: "Corefile"}},
							}}},
							{Name: "custom-config-volume", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
								LocalObjectReference: corev1.LocalObjectReference{Name: CoreDNSCustomConfigMap},
								Optional:             ptr.To(true),
							}}},
						},
					},
				},
			},
		},
		disruption.Budget(Namespace, CoreDNSName, coreDNSLabels),
		&autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: meta(CoreDNSName, coreDNSLabels),
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: CoreDNSName},
				MinReplicas:    ptr.To[int32](coreDNSMinReplicas),
				MaxReplicas:    coreDNSMaxReplicas,
				// Scaling on CPU (Gardener's docs/usage/autoscaling/dns-autoscaling.md); the target utilisation
				// is our choice.
				Metrics: []autoscalingv2.MetricSpec{{
					Type: autoscalingv2.ResourceMetricSourceType,
					Resource: &autoscalingv2.ResourceMetricSource{
						Name:   corev1.ResourceCPU,
						Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](70)},
					},
				}},
			},
		},
	}
	return kube.All(objs...)
}
