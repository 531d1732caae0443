package vpa

import (
	"encoding/base64"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// webhookServicePort is the port the kube-apiserver calls the webhook on.
const webhookServicePort = 443

// webhookService exposes the admission controller to the kube-apiserver: vpa-webhook, port 443
// to the container's 10250 (Gardener's SeedSettingTopologyAwareRouting in
// docs/api-reference/core.md names the Service).
func webhookService(namespace string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: meta(WebhookServiceName, namespace),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: selector(AdmissionController),
			Ports: []corev1.ServicePort{{
				Name:       "https",
				Port:       webhookServicePort,
				TargetPort: intstr.FromInt32(WebhookPort),
				Protocol:   corev1.ProtocolTCP,
			}},
		},
	}
}

// webhookConfiguration registers the admission controller for pod creation (to set requests
// from recommendations) and VPA creation and update (to validate and default them). It fails
// open: a VPA outage must never block pod creation in the runtime cluster.
func webhookConfiguration(v Values) (*unstructured.Unstructured, error) {
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: meta(WebhookConfigurationName, ""),
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "vpa.k8s.io",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service: &admissionregistrationv1.ServiceReference{
					Namespace: v.Namespace,
					Name:      WebhookServiceName,
					Port:      ptr.To[int32](webhookServicePort),
				},
			},
			Rules: []admissionregistrationv1.RuleWithOperations{
				{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       rule("", "v1", "pods"),
				},
				{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
					Rule:       rule("autoscaling.k8s.io", "*", "verticalpodautoscalers"),
				},
			},
			FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](10),
			ReinvocationPolicy:      ptr.To(admissionregistrationv1.NeverReinvocationPolicy),
		}},
	}
	u, err := kube.ToUnstructured(cfg)
	if err != nil {
		return nil, err
	}
	if v.CABundle == "" {
		return u, nil
	}
	webhooks, _, err := unstructured.NestedSlice(u.Object, "webhooks")
	if err != nil {
		return nil, fmt.Errorf("webhook configuration: %w", err)
	}
	for _, w := range webhooks {
		if err := unstructured.SetNestedField(w.(map[string]any), caBundle(v.CABundle), "clientConfig", "caBundle"); err != nil {
			return nil, fmt.Errorf("webhook configuration: %w", err)
		}
	}
	if err := unstructured.SetNestedSlice(u.Object, webhooks, "webhooks"); err != nil {
		return nil, fmt.Errorf("webhook configuration: %w", err)
	}
	return u, nil
}

// caBundle is the caBundle field's text: PEM is base64-encoded, anything else (base64, an
// engine marker) is taken as it is. It is set on the unstructured object because a marker is
// no valid []byte for the typed field.
func caBundle(s string) string {
	if strings.HasPrefix(strings.TrimSpace(s), "-----BEGIN") {
		return base64.StdEncoding.EncodeToString([]byte(s))
	}
	return s
}

func rule(group, version, resource string) admissionregistrationv1.Rule {
	return admissionregistrationv1.Rule{
		APIGroups:   []string{group},
		APIVersions: []string{version},
		Resources:   []string{resource},
		Scope:       ptr.To(admissionregistrationv1.NamespacedScope),
	}
}
