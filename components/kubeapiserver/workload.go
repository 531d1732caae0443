package kubeapiserver

import (
	"encoding/json"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/autoscaler"
)

// MaxReplicas is the autoscaler's upper bound for the virtual API server (Gardener's "Autoscaling
// Specifics for Components" docs/development/autoscaling-specifics-for-components.md).
const MaxReplicas = 6

// MinReplicas is the autoscaler's lower bound: 2, or 3 for a highly available virtual cluster
// (Gardener's docs/development/autoscaling-specifics-for-components.md).
func MinReplicas(highAvailability bool) int32 {
	if highAvailability {
		return 3
	}
	return 2
}

// The HPA's targets are average usage, not utilization, so that VPA can scale vertically first:
// 6 CPUs and 24G per pod (Gardener's docs/development/autoscaling-specifics-for-components.md).
var (
	hpaCPUTarget    = resource.MustParse("6")
	hpaMemoryTarget = resource.MustParse("24G")
)

// NetworkPolicy annotations of gardener-resource-manager's controller (Gardener's "Gardener
// Resource Manager" docs/concepts/resource-manager.md, "Network Policies"
// docs/operations/network_policies.md).
const (
	annotationNamespaceSelectors = "networking.resources.gardener.cloud/namespace-selectors"
	annotationTopologyMode       = "service.kubernetes.io/topology-mode"
	labelTopologyConsider        = "endpoint-slice-hints.resources.gardener.cloud/consider"
)

// ScrapeAnnotation is the Service annotation that lets the Prometheus with the given alias
// scrape ports of the Service's pods (Gardener's docs/operations/network_policies.md), its value
// the JSON Gardener writes, protocol before port (InjectNetworkPolicyAnnotationsForScrapeTargets
// in pkg/utils/gardener/networkpolicy.go at Gardener v1.120.0).
func ScrapeAnnotation(alias string, port int32) (string, string) {
	return fmt.Sprintf("networking.resources.gardener.cloud/from-%s-allowed-ports", alias),
		fmt.Sprintf(`[{"protocol":"TCP","port":%d}]`, port)
}

// MetricsService is the ClusterIP Service that exposes a control-plane component's metrics port
// (named metrics) to the Prometheus with the given alias, selecting the pods by labels.
func MetricsService(name, namespace string, labels map[string]string, alias string, port int32) *corev1.Service {
	k, val := ScrapeAnnotation(alias, port)
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels, Annotations: map[string]string{k: val}},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: labels,
			Ports:    []corev1.ServicePort{{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: port, TargetPort: intstr.FromInt32(port)}},
		},
	}
}

// service is the ClusterIP Service in front of the API server (NewService in
// pkg/component/kubernetes/apiserverexposure/service.go at Gardener v1.120.0): exported to every
// Istio namespace, reachable from the Istio ingress namespaces and the namespaces allowed to reach
// API servers, and for a shoot also from the garden namespace, exposure class handlers'
// namespaces and extensions' namespaces, whose pods reach it by the all-shoots alias. With
// topology-aware routing it carries the annotation and label of Gardener's "Topology Aware
// Routing" docs/operations/topology_aware_routing.md.
func service(r resolved) (*corev1.Service, error) {
	k, val := ScrapeAnnotation(r.ScrapeTargetsAlias, Port)
	annotations := map[string]string{k: val, annotationIstioExportTo: "*"}
	selectors := []metav1.LabelSelector{
		{MatchLabels: map[string]string{"gardener.cloud/role": "istio-ingress"}},
		{MatchLabels: map[string]string{"networking.gardener.cloud/access-target-apiserver": networkPolicyAllowed}},
	}
	if isShootNamespace(r.namespace) {
		annotations[annotationPodLabelSelectorNamespace] = "all-shoots"
		selectors = append(selectors,
			metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: "garden"}},
			metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "handler.exposureclass.gardener.cloud/name", Operator: metav1.LabelSelectorOpExists}}},
			metav1.LabelSelector{MatchLabels: map[string]string{"gardener.cloud/role": "extension"}},
		)
	}
	sel, err := json.Marshal(selectors)
	if err != nil {
		return nil, fmt.Errorf("service namespace selectors: %w", err)
	}
	annotations[annotationNamespaceSelectors] = string(sel)
	labels := SelectorLabels()
	if r.TopologyAwareRouting {
		annotations[annotationTopologyMode] = "auto"
		labels[labelTopologyConsider] = "true"
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: ServiceName(r.prefix), Namespace: r.namespace, Labels: labels, Annotations: annotations},
		Spec: corev1.ServiceSpec{
			Type:           corev1.ServiceTypeClusterIP,
			Selector:       SelectorLabels(),
			IPFamilyPolicy: ptr.To(corev1.IPFamilyPolicyPreferDualStack),
			Ports: []corev1.ServicePort{{
				Name: "kube-apiserver", Protocol: corev1.ProtocolTCP, Port: Port, TargetPort: intstr.FromInt32(Port),
			}},
		},
	}, nil
}

// hpa scales the API server between MinReplicas and MaxReplicas on average usage, adding up to as
// many pods as run once a minute and removing one every five minutes after half an hour of less
// load (reconcileHorizontalPodAutoscaler in
// pkg/component/kubernetes/apiserver/horizontalpodautoscaler.go at Gardener v1.120.0).
func hpa(r resolved) *autoscalingv2.HorizontalPodAutoscaler {
	target := func(name corev1.ResourceName, q resource.Quantity) autoscalingv2.MetricSpec {
		return autoscalingv2.MetricSpec{
			Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricSource{Name: name, Target: autoscalingv2.MetricTarget{
				Type: autoscalingv2.AverageValueMetricType, AverageValue: &q,
			}},
		}
	}
	return &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: Name(r.prefix), Namespace: r.namespace, Labels: map[string]string{
			highAvailabilityConfigTypeLabel: highAvailabilityConfigTypeServer,
		}},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: Name(r.prefix)},
			MinReplicas:    ptr.To(MinReplicas(r.HighAvailability)),
			MaxReplicas:    MaxReplicas,
			Metrics:        []autoscalingv2.MetricSpec{target(corev1.ResourceCPU, hpaCPUTarget), target(corev1.ResourceMemory, hpaMemoryTarget)},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{
				ScaleUp: &autoscalingv2.HPAScalingRules{
					StabilizationWindowSeconds: ptr.To(int32(60)),
					Policies:                   []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 60}},
				},
				ScaleDown: &autoscalingv2.HPAScalingRules{
					StabilizationWindowSeconds: ptr.To(int32(1800)),
					Policies:                   []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 300}},
				},
			},
		},
	}
}

// vpa lets VPA set the API server's requests, never below 20m and 200M, and leaves the VPN
// containers alone (reconcileVerticalPodAutoscaler in
// pkg/component/kubernetes/apiserver/verticalpodautoscaler.go at Gardener v1.120.0).
func vpa(r resolved) *unstructured.Unstructured {
	policies := []autoscaler.ContainerPolicy{{
		Container: containerName, MinAllowed: map[string]string{"cpu": "20m", "memory": "200M"}, ControlledValues: autoscaler.RequestsOnly,
	}}
	for _, c := range vpnContainerNames(r) {
		policies = append(policies, autoscaler.ContainerPolicy{Container: c, Mode: autoscaler.ModeOff})
	}
	return autoscaler.Vertical(r.namespace, Name(r.prefix)+"-vpa", nil, Name(r.prefix), policies...)
}
