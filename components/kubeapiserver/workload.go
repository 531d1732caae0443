package kubeapiserver

import (
	"encoding/json"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
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
// scrape ports of the Service's pods (Gardener's docs/operations/network_policies.md).
func ScrapeAnnotation(alias string, port int32) (string, string) {
	return fmt.Sprintf("networking.resources.gardener.cloud/from-%s-allowed-ports", alias),
		fmt.Sprintf(`[{"port":%d,"protocol":"TCP"}]`, port)
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

// service is the ClusterIP Service in front of the API server (Gardener's "Gardener Operator"
// docs/concepts/operator.md). With SNI it admits the ingress gateway's namespace; with
// topology-aware routing it carries the annotation and label of Gardener's "Topology Aware Routing"
// docs/operations/topology_aware_routing.md.
func service(r resolved) *corev1.Service {
	selector := SelectorLabels(r.prefix)
	k, val := ScrapeAnnotation(r.ScrapeTargetsAlias, Port)
	annotations := map[string]string{k: val}
	labels := SelectorLabels(r.prefix)
	if r.SNI {
		sel, _ := json.Marshal([]any{map[string]any{"matchLabels": map[string]string{"kubernetes.io/metadata.name": r.IngressGatewayNamespace}}})
		annotations[annotationNamespaceSelectors] = string(sel)
	}
	if r.TopologyAwareRouting {
		annotations[annotationTopologyMode] = "auto"
		labels[labelTopologyConsider] = "true"
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: ServiceName(r.prefix), Namespace: r.namespace, Labels: labels, Annotations: annotations},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: selector,
			Ports: []corev1.ServicePort{{
				Name: "kube-apiserver", Protocol: corev1.ProtocolTCP, Port: Port, TargetPort: intstr.FromInt32(Port),
			}},
		},
	}
}

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
		ObjectMeta: metav1.ObjectMeta{Name: Name(r.prefix), Namespace: r.namespace, Labels: SelectorLabels(r.prefix)},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: Name(r.prefix)},
			MinReplicas:    ptr.To(MinReplicas(r.HighAvailability)),
			MaxReplicas:    MaxReplicas,
			Metrics:        []autoscalingv2.MetricSpec{target(corev1.ResourceCPU, hpaCPUTarget), target(corev1.ResourceMemory, hpaMemoryTarget)},
		},
	}
}
