package etcddruid

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// The webhook server: druid serves it on 10250 behind the Service's port 443 and reads its
// certificate from the mounted Secret.
const (
	webhookPort        = 10250
	webhookServicePort = 443
	webhookPath        = "/webhooks/etcdcomponents"
	webhookTLSVolume   = "webhook-server-tls-cert"
	webhookTLSDir      = "/etc/webhook-server-tls"
)

// managedByDruid selects the objects druid created for an Etcd.
var managedByDruid = map[string]string{"app.kubernetes.io/managed-by": "etcd-druid"}

// webhookConfiguration lets druid refuse updates and deletions of the objects it manages for an
// Etcd by anyone but itself (and the exempt garbage collector): one webhook for the objects
// selected by their managed-by label, one for the StatefulSets' scale subresource, which an
// objectSelector cannot match.
func webhookConfiguration(v Values) (*unstructured.Unstructured, error) {
	updateDelete := []admissionregistrationv1.OperationType{admissionregistrationv1.Update, admissionregistrationv1.Delete}
	deletion := []admissionregistrationv1.OperationType{admissionregistrationv1.Delete}
	rule := func(group string, ops []admissionregistrationv1.OperationType, resources ...string) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{
			APIGroups: []string{group}, APIVersions: []string{"v1"}, Resources: resources, Scope: ptr.To(admissionregistrationv1.AllScopes),
		}}
	}
	client := admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
		Name: Name, Namespace: v.Namespace, Path: ptr.To(webhookPath), Port: ptr.To[int32](webhookServicePort),
	}}
	hook := func(name string, objectSelector *metav1.LabelSelector, rules ...admissionregistrationv1.RuleWithOperations) admissionregistrationv1.ValidatingWebhook {
		return admissionregistrationv1.ValidatingWebhook{
			Name:                    name,
			ClientConfig:            client,
			Rules:                   rules,
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			MatchPolicy:             ptr.To(admissionregistrationv1.Exact),
			ObjectSelector:          objectSelector,
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds:          ptr.To[int32](10),
			AdmissionReviewVersions: []string{"v1", "v1beta1"},
		}
	}
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: meta(Name, ""),
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			hook("etcdcomponents.webhooks.druid.gardener.cloud", &metav1.LabelSelector{MatchLabels: managedByDruid},
				rule("", updateDelete, "serviceaccounts", "services", "configmaps"),
				rule("", deletion, "persistentvolumeclaims"),
				rule("rbac.authorization.k8s.io", updateDelete, "roles", "rolebindings"),
				rule("apps", updateDelete, "statefulsets"),
				rule("policy", updateDelete, "poddisruptionbudgets"),
				rule("batch", updateDelete, "jobs"),
				rule("coordination.k8s.io", updateDelete, "leases"),
			),
			hook("stsscale.etcdcomponents.webhooks.druid.gardener.cloud", nil, rule("apps", updateDelete, "statefulsets/scale")),
		},
	}
	u, err := kube.ToUnstructured(cfg)
	if err != nil {
		return nil, err
	}
	return u, kube.SetWebhookCABundles(u, v.CABundle)
}
