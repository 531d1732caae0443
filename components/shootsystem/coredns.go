package shootsystem

import (
	"fmt"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
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
// k8s-app=kube-dns (pkg/component/networking/coredns/constants at gardener/gardener v1.120.0).
var coreDNSLabels = map[string]string{"k8s-app": "kube-dns"}

// coreDNSPodLabels are the labels of CoreDNS's Deployment and pods: a system component of
// Gardener's, selected by k8s-app (getLabels in pkg/component/networking/coredns/coredns.go).
var coreDNSPodLabels = merge(systemComponentLabels, coreDNSLabels)

// corefile is CoreDNS's configuration as Gardener writes it (computeResourcesData in
// pkg/component/networking/coredns/coredns.go at v1.120.0): health and readiness, the rewrite of
// search-path expansions of names in the cluster domain, the cluster domain from the API,
// metrics, the users' coredns-custom files (Gardener's "Custom DNS Configuration"
// docs/usage/networking/custom-dns-config.md), everything else to the node's resolvers.
func corefile() string {
	domain := regexp.QuoteMeta(clusterDomain)
	return fmt.Sprintf(`.:%d {
  health {
      lameduck 15s
  }
  ready
  rewrite stop {
    name regex (^(?:[^\.]+\.)+)svc\.%[2]s\.svc\.%[2]s {1}svc.%[3]s
    answer name (^(?:[^\.]+\.)+)svc\.%[2]s {1}svc.%[3]s.svc.%[3]s
    answer value (^(?:[^\.]+\.)+)svc\.%[2]s {1}svc.%[3]s.svc.%[3]s
  }
  kubernetes %[3]s in-addr.arpa ip6.arpa {
      pods insecure
      fallthrough in-addr.arpa ip6.arpa
      ttl 30
  }
  prometheus :%[4]d
  loop
  import custom/*.override
  errors
  log . {
      class error
  }
  forward . /etc/resolv.conf
  cache 30
  reload
  loadbalance round_robin
}
import custom/*.server
`, coreDNSPort, domain, clusterDomain, coreDNSMetricsPort)
}

// coreDNSMetricsPort serves CoreDNS's metrics.
const coreDNSMetricsPort = 9153

// customDNSHint is the content of the coredns-custom keys until users write their own.
const customDNSHint = "# how to use: https://github.com/gardener/gardener/blob/master/docs/usage/networking/custom-dns-config.md"

// CoreDNS renders the cluster DNS: the Deployment coredns with its HPA, the Service kube-dns on
// the cluster DNS address, its configuration, RBAC and NetworkPolicy.
func CoreDNS(v Values) ([]*unstructured.Unstructured, error) {
	return renderPrepared(v, (*prepared).coreDNS)
}

func (p *prepared) coreDNS() ([]*unstructured.Unstructured, error) {
	image, err := p.image(images.CoreDNS, "")
	if err != nil {
		return nil, err
	}
	tcp, udp := corev1.ProtocolTCP, corev1.ProtocolUDP
	port := func(n int32, proto *corev1.Protocol) networkingv1.NetworkPolicyPort {
		return networkingv1.NetworkPolicyPort{Port: ptr.To(intstr.FromInt32(n)), Protocol: proto}
	}
	from := []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{}, PodSelector: &metav1.LabelSelector{}}}
	for _, cidr := range []string{p.NodeCIDR, p.PodCIDR} {
		for _, c := range strings.Split(cidr, ",") {
			if c = strings.TrimSpace(c); c != "" {
				from = append(from, networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: c}})
			}
		}
	}
	container := corev1.Container{
		Name:            CoreDNSName,
		Image:           image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Args:            []string{"-conf", "/etc/coredns/Corefile"},
		Ports: []corev1.ContainerPort{
			{Name: "dns-udp", ContainerPort: coreDNSPort, Protocol: corev1.ProtocolUDP},
			{Name: "dns-tcp", ContainerPort: coreDNSPort, Protocol: corev1.ProtocolTCP},
			{Name: "metrics", ContainerPort: coreDNSMetricsPort, Protocol: corev1.ProtocolTCP},
		},
		LivenessProbe: &corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromInt32(8080), Scheme: corev1.URISchemeHTTP}},
			SuccessThreshold: 1, FailureThreshold: 5, InitialDelaySeconds: 60, TimeoutSeconds: 5,
		},
		ReadinessProbe: &corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8181), Scheme: corev1.URISchemeHTTP}},
			SuccessThreshold: 1, FailureThreshold: 1, InitialDelaySeconds: 30, TimeoutSeconds: 2, PeriodSeconds: 10,
		},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("15Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1500Mi")},
		},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Add: []corev1.Capability{"NET_BIND_SERVICE"}, Drop: []corev1.Capability{"all"}},
			ReadOnlyRootFilesystem:   ptr.To(true),
		},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "config-volume", MountPath: "/etc/coredns", ReadOnly: true},
			{Name: "custom-config-volume", MountPath: "/etc/coredns/custom", ReadOnly: true},
		},
	}
	if p.APIServerHost != "" {
		// Straight to the API server, not through the kubernetes Service, by its fully qualified
		// name (outOfClusterAPIServerFQDN in pkg/gardenlet/operation/botanist/botanist.go at
		// gardener/gardener v1.120.0), so that no search path is tried.
		container.Env = []corev1.EnvVar{{Name: "KUBERNETES_SERVICE_HOST", Value: p.APIServerHost + "."}}
	}
	objs := []runtime.Object{
		serviceAccount(CoreDNSName, nil, false),
		&rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "system:coredns"},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"endpoints", "services", "pods", "namespaces"}, Verbs: []string{"list", "watch"}},
				{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get"}},
				{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"list", "watch"}},
			},
		},
		&rbacv1.ClusterRoleBinding{
			// A changed role reference cannot be updated: the resource manager replaces it.
			ObjectMeta: metav1.ObjectMeta{Name: "system:coredns", Annotations: map[string]string{"resources.gardener.cloud/delete-on-invalid-update": "true"}},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:coredns"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: CoreDNSName, Namespace: Namespace}},
		},
		&corev1.ConfigMap{ObjectMeta: meta(CoreDNSName, nil), Data: map[string]string{"Corefile": corefile()}},
		&corev1.ConfigMap{
			// Created once and then left to the users (Gardener's "Gardener Resource Manager"
			// docs/concepts/resource-manager.md): their edits survive.
			ObjectMeta: annotated(meta(CoreDNSCustomConfigMap, nil), map[string]string{"resources.gardener.cloud/ignore": "true"}),
			Data:       map[string]string{"changeme.server": customDNSHint, "changeme.override": customDNSHint},
		},
		&corev1.Service{
			ObjectMeta: meta(KubeDNSService, merge(coreDNSLabels, map[string]string{"kubernetes.io/cluster-service": "true", "kubernetes.io/name": "CoreDNS"})),
			Spec: corev1.ServiceSpec{
				ClusterIP:      p.clusterDNSIP,
				ClusterIPs:     []string{p.clusterDNSIP},
				IPFamilyPolicy: ptr.To(corev1.IPFamilyPolicySingleStack),
				Selector:       coreDNSLabels,
				Ports: []corev1.ServicePort{
					{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP, TargetPort: intstr.FromInt32(coreDNSPort)},
					{Name: "dns-tcp", Port: 53, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(coreDNSPort)},
					{Name: "metrics", Port: coreDNSMetricsPort, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(coreDNSMetricsPort)},
				},
			},
		},
		&networkingv1.NetworkPolicy{
			ObjectMeta: annotated(meta("gardener.cloud--allow-dns", nil), map[string]string{
				"gardener.cloud/description": "Lets CoreDNS resolve names upstream and reach the API server, and lets every pod and node reach CoreDNS's server and metrics ports.",
			}),
			Spec: networkingv1.NetworkPolicySpec{
				PodSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k8s-app", Operator: metav1.LabelSelectorOpIn, Values: []string{"kube-dns"}}}},
				Egress:      []networkingv1.NetworkPolicyEgressRule{{Ports: []networkingv1.NetworkPolicyPort{port(443, &tcp), port(53, &tcp), port(53, &udp)}}},
				Ingress: []networkingv1.NetworkPolicyIngressRule{{
					Ports: []networkingv1.NetworkPolicyPort{port(coreDNSMetricsPort, &tcp), port(coreDNSPort, &tcp), port(coreDNSPort, &udp)},
					From:  from,
				}},
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
			},
		},
		&appsv1.Deployment{
			ObjectMeta: meta(CoreDNSName, merge(coreDNSPodLabels, map[string]string{"high-availability-config.resources.gardener.cloud/type": "server"})),
			Spec: appsv1.DeploymentSpec{
				Replicas:             ptr.To[int32](coreDNSMinReplicas),
				RevisionHistoryLimit: ptr.To[int32](2),
				Selector:             &metav1.LabelSelector{MatchLabels: coreDNSLabels},
				Strategy: appsv1.DeploymentStrategy{
					Type:          appsv1.RollingUpdateDeploymentStrategyType,
					RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr.To(intstr.FromInt32(0)), MaxSurge: ptr.To(intstr.FromInt32(1))},
				},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: coreDNSPodLabels},
					Spec: corev1.PodSpec{
						PriorityClassName:  SystemClusterCritical, // Gardener's docs/development/priority-classes.md
						ServiceAccountName: CoreDNSName,
						DNSPolicy:          corev1.DNSDefault, // CoreDNS resolves upstream through the node
						SecurityContext: &corev1.PodSecurityContext{
							RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65534), FSGroup: ptr.To[int64](1), SupplementalGroups: []int64{1},
							SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
						},
						Containers: []corev1.Container{container},
						Volumes: []corev1.Volume{
							{Name: "config-volume", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
								LocalObjectReference: corev1.LocalObjectReference{Name: CoreDNSName},
								Items:                []corev1.KeyToPath{{Key: "Corefile", Path: "Corefile"}},
							}}},
							{Name: "custom-config-volume", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
								LocalObjectReference: corev1.LocalObjectReference{Name: CoreDNSCustomConfigMap},
								DefaultMode:          ptr.To[int32](0o644),
								Optional:             ptr.To(true),
							}}},
						},
					},
				},
			},
		},
		disruption.Budget(Namespace, CoreDNSName, coreDNSLabels),
		&autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: meta(CoreDNSName, map[string]string{"high-availability-config.resources.gardener.cloud/type": "server"}),
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: CoreDNSName},
				MinReplicas:    ptr.To[int32](coreDNSMinReplicas),
				MaxReplicas:    coreDNSMaxReplicas,
				// 70% of the CPU request (Gardener's docs/usage/autoscaling/dns-autoscaling.md).
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
