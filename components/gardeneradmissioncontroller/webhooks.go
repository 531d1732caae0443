package gardeneradmissioncontroller

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// Handler is one admission handler the webhook configuration registers.
type Handler struct {
	// Name is the webhook's name in the configuration.
	Name string
	// Path is the handler's path on the webhook server. Gardener's documentation names only the
	// SeedAuthorizer's /webhooks/auth/seed (Gardener's "Scoped API Access for gardenlets and
	// Extensions" docs/deployment/gardenlet_api_access.md); the admission paths follow its scheme.
	Path string
	// Rules select the requests the handler sees.
	Rules []admissionregistrationv1.RuleWithOperations
	// ProjectNamespacesOnly restricts the handler to objects in (or, for namespaces, being)
	// project namespaces, labelled gardener.cloud/role=project (Gardener's "Gardener Controller
	// Manager" docs/concepts/controller-manager.md, "Projects" docs/usage/project/projects.md).
	ProjectNamespacesOnly bool
}

var (
	create       = []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	update       = []admissionregistrationv1.OperationType{admissionregistrationv1.Update}
	createUpdate = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	remove       = []admissionregistrationv1.OperationType{admissionregistrationv1.Delete}
)

// Handlers are the admission handlers Gardener's "Gardener Admission Controller"
// docs/concepts/admission-controller.md documents, in their order, that apply to the values: the
// resource size validator only with limits, SeedRestriction only when enabled.
func (r resolved) Handlers() []Handler {
	handlers := []Handler{
		{
			// Validates the structured authentication configurations Shoots reference (Gardener's
			// docs/concepts/admission-controller.md).
			Name: "validate-authentication-configuration.gardener.cloud", Path: "/webhooks/admission/authenticationconfiguration",
			Rules: []admissionregistrationv1.RuleWithOperations{kube.WebhookRule("", "v1", createUpdate, "configmaps")}, ProjectNamespacesOnly: true,
		},
		{
			// Validates the structured authorization configurations Shoots reference (Gardener's
			// docs/concepts/admission-controller.md).
			Name: "validate-authorization-configuration.gardener.cloud", Path: "/webhooks/admission/authorizationconfiguration",
			Rules: []admissionregistrationv1.RuleWithOperations{kube.WebhookRule("", "v1", createUpdate, "configmaps")}, ProjectNamespacesOnly: true,
		},
		{
			// Keeps the kubeconfig in admission plugin secrets Shoots refer to (Gardener's
			// docs/concepts/admission-controller.md).
			Name: "validate-admission-plugin-secrets.gardener.cloud", Path: "/webhooks/admission/admissionpluginsecret",
			Rules: []admissionregistrationv1.RuleWithOperations{kube.WebhookRule("", "v1", update, "secrets")}, ProjectNamespacesOnly: true,
		},
		{
			// Denies kubeconfigs that violate Gardener's security standards (Gardener's
			// docs/concepts/admission-controller.md).
			Name: "validate-kubeconfig-secrets.gardener.cloud", Path: "/webhooks/validate-kubeconfig-secrets",
			Rules: []admissionregistrationv1.RuleWithOperations{kube.WebhookRule("", "v1", createUpdate, "secrets")}, ProjectNamespacesOnly: true,
		},
		{
			// Protects project namespaces with shoots from deletion (Gardener's
			// docs/concepts/admission-controller.md).
			Name: "validate-namespace-deletion.gardener.cloud", Path: "/webhooks/validate-namespace-deletion",
			Rules: []admissionregistrationv1.RuleWithOperations{kube.WebhookRule("", "v1", remove, "namespaces")}, ProjectNamespacesOnly: true,
		},
	}
	if len(r.Values.ResourceSizeLimits) > 0 {
		// Denies (or logs) objects above their limit (Gardener's docs/concepts/admission-controller.md).
		h := Handler{Name: "validate-resource-size.gardener.cloud", Path: "/webhooks/validate-resource-size"}
		for _, l := range r.Values.ResourceSizeLimits {
			h.Rules = append(h.Rules, admissionregistrationv1.RuleWithOperations{
				Operations: createUpdate,
				Rule:       admissionregistrationv1.Rule{APIGroups: l.APIGroups, APIVersions: l.APIVersions, Resources: l.Resources},
			})
		}
		handlers = append(handlers, h)
	}
	if r.Values.SeedRestriction {
		// Handles the CREATE requests of gardenlets and extensions, which the SeedAuthorizer's
		// graph cannot decide, for the kinds of Gardener's docs/deployment/gardenlet_api_access.md that
		// gardenlets create (Gardener's docs/deployment/gardenlet_api_access.md).
		handlers = append(handlers, Handler{
			Name: "seed-restriction.gardener.cloud", Path: "/webhooks/admission/seedrestriction",
			Rules: []admissionregistrationv1.RuleWithOperations{
				kube.WebhookRule("", "v1", create, "secrets", "serviceaccounts"),
				kube.WebhookRule("certificates.k8s.io", "v1", create, "certificatesigningrequests"),
				kube.WebhookRule("coordination.k8s.io", "v1", create, "leases"),
				kube.WebhookRule("core.gardener.cloud", "v1beta1", create, "backupbuckets", "backupentries", "seeds", "shootstates"),
				kube.WebhookRule("operations.gardener.cloud", "v1alpha1", create, "bastions"),
				kube.WebhookRule("rbac.authorization.k8s.io", "v1", create, "clusterrolebindings"),
				kube.WebhookRule("seedmanagement.gardener.cloud", "v1alpha1", create, "gardenlets"),
			},
		})
	}
	return handlers
}

// URL is where the virtual garden's API servers reach a handler: the runtime Service by its
// namespaced name, as the SeedAuthorizer's kubeconfig does (Gardener's
// docs/deployment/gardenlet_api_access.md). The virtual garden's API servers run in the runtime
// cluster, so they resolve it.
func (r resolved) URL(path string) string {
	return "https://" + Name + "." + r.Namespace + path
}

// webhookConfiguration registers the handlers. All fail closed: a request they should have
// checked must not pass unchecked while the admission controller is down.
func (r resolved) webhookConfiguration() *admissionregistrationv1.ValidatingWebhookConfiguration {
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	equivalent := admissionregistrationv1.Equivalent
	timeout := int32(10)
	project := &metav1.LabelSelector{MatchLabels: map[string]string{"gardener.cloud/role": "project"}}
	// Handlers for all namespaces leave out kube-system: the ServiceAccounts the components
	// (this one included) authenticate with and the API servers' own Leases are created there,
	// and must not wait for a server that cannot start without them. Gardenlets and extensions
	// work in garden, seed-* and project namespaces, and on cluster-scoped kinds, which a
	// namespace selector never skips.
	notSystem := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"},
	}}}
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Labels: gardenercontrolplane.Labels(gardenercontrolplane.Role(Name))},
	}
	for _, h := range r.Handlers() {
		url := r.URL(h.Path)
		w := admissionregistrationv1.ValidatingWebhook{
			Name:                    h.Name,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url},
			Rules:                   h.Rules,
			FailurePolicy:           &fail,
			MatchPolicy:             &equivalent,
			SideEffects:             &none,
			TimeoutSeconds:          &timeout,
			AdmissionReviewVersions: []string{"v1"},
		}
		switch {
		case h.ProjectNamespacesOnly && h.Rules[0].Resources[0] == "namespaces":
			w.ObjectSelector = project
		case h.ProjectNamespacesOnly:
			w.NamespaceSelector = project
		default:
			w.NamespaceSelector = notSystem
		}
		cfg.Webhooks = append(cfg.Webhooks, w)
	}
	return cfg
}

// setCABundle puts the CA bundle into every webhook of the converted configuration; the typed
// field is bytes, which would encode an engine marker instead of letting the engine replace it.
func setCABundle(u *unstructured.Unstructured, bundle string) error {
	if bundle == "" {
		return nil
	}
	webhooks, _, err := unstructured.NestedSlice(u.Object, "webhooks")
	if err != nil {
		return err
	}
	for _, w := range webhooks {
		if err := unstructured.SetNestedField(w.(map[string]any), gardenercontrolplane.CABundle(bundle), "clientConfig", "caBundle"); err != nil {
			return err
		}
	}
	return unstructured.SetNestedSlice(u.Object, webhooks, "webhooks")
}
