package vpa

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// webhookServicePort is the port the kube-apiserver calls the webhook on.
const webhookServicePort = 443

// webhookDescription is the gardener.cloud/description Gardener gives the webhook configuration.
const webhookDescription = "The order in which MutatingWebhooks are called is determined alphabetically. This webhook's name " +
	"intentionally starts with 'zzz', such that it is called after all other webhooks which inject " +
	"containers. All containers injected by webhooks that are called _after_ the vpa webhook will not be " +
	"under control of vpa."

// scrapeAnnotation admits the cluster's Prometheus (the seed's, or the garden's in the runtime
// cluster) to a metrics port through gardener-resource-manager's NetworkPolicy controller.
func scrapeAnnotation(v Values) string {
	if v.GardenRuntime {
		return "networking.resources.gardener.cloud/from-all-garden-scrape-targets-allowed-ports"
	}
	return "networking.resources.gardener.cloud/from-all-seed-scrape-targets-allowed-ports"
}

func tcpPorts(port int) string { return fmt.Sprintf(`[{"protocol":"TCP","port":%d}]`, port) }

// services are vpa-webhook, which exposes the admission controller's webhook (port 443, reachable
// by the API server from anywhere) and metrics, and vpa-recommender, which exposes the
// recommender's metrics.
func services(v Values) []runtime.Object {
	webhook := meta(WebhookServiceName, v.Namespace, withRole(AdmissionController))
	webhook.Annotations = map[string]string{
		"networking.resources.gardener.cloud/from-world-to-ports": tcpPorts(WebhookPort),
		scrapeAnnotation(v): tcpPorts(admissionControllerMetrics),
	}
	recommender := meta(Recommender, v.Namespace, selector(Recommender))
	recommender.Annotations = map[string]string{scrapeAnnotation(v): tcpPorts(recommenderMetrics)}
	return []runtime.Object{
		&corev1.Service{ObjectMeta: webhook, Spec: corev1.ServiceSpec{
			Selector: selector(AdmissionController),
			Ports: []corev1.ServicePort{
				{Name: "metrics", Port: admissionControllerMetrics, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(admissionControllerMetrics)},
				{Name: "server", Port: webhookServicePort, TargetPort: intstr.FromInt32(WebhookPort)},
			},
		}},
		&corev1.Service{ObjectMeta: recommender, Spec: corev1.ServiceSpec{
			Selector: selector(Recommender),
			Ports:    []corev1.ServicePort{{Name: "metrics", Port: recommenderMetrics, TargetPort: intstr.FromInt32(recommenderMetrics)}},
		}},
	}
}

// webhookConfiguration registers the admission controller for pod creation (to set requests
// from recommendations) and VPA creation and update (to validate and default them). It fails
// open: a VPA outage must never block pod creation; it is called again when later webhooks
// change the pod.
func webhookConfiguration(v Values) (*unstructured.Unstructured, error) {
	rule := func(group, version, resource string, ops ...admissionregistrationv1.OperationType) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{
			APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource}, Scope: ptr.To(admissionregistrationv1.AllScopes),
		}}
	}
	m := meta(WebhookConfigurationName, "", map[string]string{"remediation.webhook.shoot.gardener.cloud/exclude": "true"})
	m.Annotations = map[string]string{"gardener.cloud/description": webhookDescription}
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: m,
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "vpa.k8s.io",
			AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
				Name: WebhookServiceName, Namespace: v.Namespace, Port: ptr.To[int32](webhookServicePort),
			}},
			FailurePolicy:      ptr.To(admissionregistrationv1.Ignore),
			MatchPolicy:        ptr.To(admissionregistrationv1.Exact),
			ReinvocationPolicy: ptr.To(admissionregistrationv1.IfNeededReinvocationPolicy),
			SideEffects:        ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds:     ptr.To[int32](10),
			Rules: []admissionregistrationv1.RuleWithOperations{
				rule("", "v1", "pods", admissionregistrationv1.Create),
				rule("autoscaling.k8s.io", "*", "verticalpodautoscalers", admissionregistrationv1.Create, admissionregistrationv1.Update),
			},
		}},
	}
	u, err := kube.ToUnstructured(cfg)
	if err != nil {
		return nil, err
	}
	return u, kube.SetWebhookCABundles(u, v.CABundle)
}
