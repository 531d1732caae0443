package resourcemanager

import (
	"encoding/base64"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// The webhooks the runtime GRM registers, each with the path the GRM serves it at (Gardener's
// documentation name the webhooks, not the paths).
const (
	HighAvailabilityConfigWebhook = "high-availability-config.resources.gardener.cloud"
	ProjectedTokenMountWebhook    = "projected-token-mount.resources.gardener.cloud"
	PodTopologySpreadWebhook      = "pod-topology-spread-constraints.resources.gardener.cloud"
	SeccompProfileWebhook         = "seccomp-profile.resources.gardener.cloud"
	EndpointSliceHintsWebhook     = "endpoint-slice-hints.resources.gardener.cloud"
	CRDDeletionProtectionWebhook  = "crd-deletion-protection.resources.gardener.cloud"
	CRDeletionProtectionWebhook   = "cr-deletion-protection.resources.gardener.cloud"
)

// extensionKinds are the custom resources of extensions.gardener.cloud/v1alpha1 that the
// deletion protection and validation webhooks handle (Gardener's "Gardener Resource Manager"
// docs/concepts/resource-manager.md); etcd is druid's Etcd, which they handle as well and which the
// garden runs for the virtual garden (Gardener's "Gardener Operator" docs/concepts/operator.md).
var extensionKinds = []struct{ plural, kind string }{
	{"backupbuckets", "backupbucket"},
	{"backupentries", "backupentry"},
	{"bastions", "bastion"},
	{"containerruntimes", "containerruntime"},
	{"controlplanes", "controlplane"},
	{"dnsrecords", "dnsrecord"},
	{"extensions", "extension"},
	{"infrastructures", "infrastructure"},
	{"networks", "network"},
	{"operatingsystemconfigs", "operatingsystemconfig"},
	{"workers", "worker"},
}

// notKubeSystem keeps the pod webhooks away from kube-system: with failurePolicy Fail, a GRM
// outage must not stop the runtime cluster's own system pods (DNS, CNI) from being created. Not in
// Gardener's documentation; the GRM's own pods are excluded by objectSelector (Gardener's
// docs/concepts/resource-manager.md).
func notKubeSystem() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"}},
	}}
}

// exclude is an objectSelector without objects carrying a skip label, and without the GRM's own
// pods, which must start while their webhooks cannot be served.
func exclude(skipLabel string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: skipLabel, Operator: metav1.LabelSelectorOpDoesNotExist},
		{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{Name}},
	}}
}

var (
	create         = []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	createOrUpdate = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	deletion       = []admissionregistrationv1.OperationType{admissionregistrationv1.Delete}
)

// mutatingWebhooks are the mutating webhooks Gardener's documentation describes for seed-like
// clusters, of which the runtime cluster is one; the shoot-only ones (system-components-config,
// kubernetes-service-host, Gardener's docs/concepts/resource-manager.md) are left out.
func mutatingWebhooks(v Values) []admissionregistrationv1.MutatingWebhook {
	type hook struct {
		name, path string
		rules      []admissionregistrationv1.RuleWithOperations
		ns, obj    *metav1.LabelSelector
	}
	hooks := []hook{
		// Replicas, spread and tolerations of workloads in namespaces labelled consider=true
		// (Gardener's docs/concepts/resource-manager.md).
		{HighAvailabilityConfigWebhook, "/webhooks/high-availability-config",
			[]admissionregistrationv1.RuleWithOperations{
				kube.WebhookRule("apps", "v1", createOrUpdate, "deployments", "statefulsets"),
				kube.WebhookRule("autoscaling", "v2", createOrUpdate, "horizontalpodautoscalers"),
			},
			&metav1.LabelSelector{MatchLabels: map[string]string{"high-availability-config.resources.gardener.cloud/consider": "true"}},
			&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: labelHASkip, Operator: metav1.LabelSelectorOpDoesNotExist}}}},
		// Projected ServiceAccount tokens for pods whose ServiceAccount does not automount
		// (Gardener's docs/concepts/resource-manager.md).
		{ProjectedTokenMountWebhook, "/webhooks/mount-projected-service-account-token",
			[]admissionregistrationv1.RuleWithOperations{kube.WebhookRule("", "v1", create, "pods")},
			notKubeSystem(), exclude("projected-token-mount.resources.gardener.cloud/skip")},
		// pod-template-hash in topology spread constraints (Gardener's
		// docs/concepts/resource-manager.md).
		{PodTopologySpreadWebhook, "/webhooks/pod-topology-spread-constraints",
			[]admissionregistrationv1.RuleWithOperations{kube.WebhookRule("", "v1", create, "pods")},
			notKubeSystem(), exclude("topology-spread-constraints.resources.gardener.cloud/skip")},
	}
	if v.DefaultSeccompProfile {
		// RuntimeDefault seccomp profile for pods that set none (Gardener's "Default Seccomp Profile"
		// docs/usage/security/default_seccomp_profile.md).
		hooks = append(hooks, hook{SeccompProfileWebhook, "/webhooks/seccomp-profile",
			[]admissionregistrationv1.RuleWithOperations{kube.WebhookRule("", "v1", create, "pods")},
			notKubeSystem(), exclude("seccompprofile.resources.gardener.cloud/skip")})
	}
	// Zone hints for EndpointSlices of Services labelled consider=true (Gardener's
	// docs/concepts/resource-manager.md, "Topology Aware Routing"
	// docs/operations/topology_aware_routing.md).
	hooks = append(hooks, hook{EndpointSliceHintsWebhook, "/webhooks/endpoint-slice-hints",
		[]admissionregistrationv1.RuleWithOperations{kube.WebhookRule("discovery.k8s.io", "v1", createOrUpdate, "endpointslices")},
		&metav1.LabelSelector{},
		&metav1.LabelSelector{MatchLabels: map[string]string{"endpoint-slice-hints.resources.gardener.cloud/consider": "true"}}})

	out := make([]admissionregistrationv1.MutatingWebhook, 0, len(hooks))
	for _, h := range hooks {
		out = append(out, admissionregistrationv1.MutatingWebhook{
			Name:                    h.name,
			ClientConfig:            clientConfig(v, h.path),
			Rules:                   h.rules,
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			MatchPolicy:             ptr.To(admissionregistrationv1.Exact),
			NamespaceSelector:       h.ns,
			ObjectSelector:          h.obj,
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds:          ptr.To[int32](10),
			AdmissionReviewVersions: []string{"v1"},
			ReinvocationPolicy:      ptr.To(admissionregistrationv1.NeverReinvocationPolicy),
		})
	}
	return out
}

// validatingWebhooks protect CRDs and extension resources from unconfirmed deletion
// (Gardener's docs/concepts/resource-manager.md) and validate extension resources (Gardener's
// docs/concepts/resource-manager.md).
func validatingWebhooks(v Values) []admissionregistrationv1.ValidatingWebhook {
	hook := func(name, path string, obj *metav1.LabelSelector, rules ...admissionregistrationv1.RuleWithOperations) admissionregistrationv1.ValidatingWebhook {
		return admissionregistrationv1.ValidatingWebhook{
			Name:                    name,
			ClientConfig:            clientConfig(v, path),
			Rules:                   rules,
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			MatchPolicy:             ptr.To(admissionregistrationv1.Exact),
			NamespaceSelector:       &metav1.LabelSelector{},
			ObjectSelector:          obj,
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds:          ptr.To[int32](10),
			AdmissionReviewVersions: []string{"v1"},
		}
	}
	plurals := make([]string, 0, len(extensionKinds))
	for _, k := range extensionKinds {
		plurals = append(plurals, k.plural)
	}
	const deletionPath = "/webhooks/validate-crd-deletion"
	out := []admissionregistrationv1.ValidatingWebhook{
		// Only CRDs labelled gardener.cloud/deletion-protected=true (Gardener's
		// docs/concepts/resource-manager.md).
		hook(CRDDeletionProtectionWebhook, deletionPath,
			&metav1.LabelSelector{MatchLabels: map[string]string{"gardener.cloud/deletion-protected": "true"}},
			kube.WebhookRule("apiextensions.k8s.io", "v1", deletion, "customresourcedefinitions")),
		hook(CRDeletionProtectionWebhook, deletionPath, &metav1.LabelSelector{},
			kube.WebhookRule("druid.gardener.cloud", "v1alpha1", deletion, "etcds"),
			kube.WebhookRule("extensions.gardener.cloud", "v1alpha1", deletion, plurals...)),
		hook("validation.extensions.etcds.resources.gardener.cloud", "/validate-druid-gardener-cloud-v1alpha1-etcd", &metav1.LabelSelector{},
			kube.WebhookRule("druid.gardener.cloud", "v1alpha1", createOrUpdate, "etcds")),
	}
	for _, k := range extensionKinds {
		out = append(out, hook("validation.extensions."+k.plural+".resources.gardener.cloud",
			"/validate-extensions-gardener-cloud-v1alpha1-"+k.kind, &metav1.LabelSelector{},
			kube.WebhookRule("extensions.gardener.cloud", "v1alpha1", createOrUpdate, k.plural)))
	}
	return out
}

// clientConfig points a webhook at the GRM Service's port 443 (Gardener's
// docs/concepts/resource-manager.md). caBundle is set afterwards, see setCABundles.
func clientConfig(v Values, path string) admissionregistrationv1.WebhookClientConfig {
	return admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
		Namespace: v.Namespace, Name: Name, Path: ptr.To(path), Port: ptr.To[int32](443),
	}}
}

// webhookConfigurations renders the Mutating- and ValidatingWebhookConfiguration, both named
// gardener-resource-manager.
func webhookConfigurations(v Values) ([]*unstructured.Unstructured, error) {
	meta := metav1.ObjectMeta{Name: Name, Labels: labels(v)}
	objs, err := kube.All(
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: meta, Webhooks: mutatingWebhooks(v)},
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: meta, Webhooks: validatingWebhooks(v)},
	)
	if err != nil {
		return nil, err
	}
	if v.CABundle == "" {
		return objs, nil
	}
	bundle := caBundle(v.CABundle)
	for _, o := range objs {
		if err := setCABundles(o, bundle); err != nil {
			return nil, err
		}
	}
	return objs, nil
}

// caBundle turns Values.CABundle into the base64 text caBundle fields hold. Engine markers are
// kept as they are, so that the engine can find and replace them: a marker for a generated
// certificate is switched to its base64 form, an unknown value stays unknown.
func caBundle(bundle string) string {
	if strings.HasPrefix(bundle, "${generated:") && strings.HasSuffix(bundle, ":pem}") {
		return strings.TrimSuffix(bundle, ":pem}") + ":base64}"
	}
	if strings.Contains(bundle, "${") {
		return bundle
	}
	return base64.StdEncoding.EncodeToString([]byte(bundle))
}

// setCABundles sets .webhooks[*].clientConfig.caBundle on an unstructured webhook configuration;
// done on the unstructured form because the typed field is bytes, which would base64-encode an
// engine marker and hide it.
func setCABundles(u *unstructured.Unstructured, bundle string) error {
	hooks, _, err := unstructured.NestedSlice(u.Object, "webhooks")
	if err != nil {
		return fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
	}
	for i, h := range hooks {
		m, ok := h.(map[string]any)
		if !ok {
			return fmt.Errorf("%s %s: webhook %d is not an object", u.GetKind(), u.GetName(), i)
		}
		if err := unstructured.SetNestedField(m, bundle, "clientConfig", "caBundle"); err != nil {
			return fmt.Errorf("%s %s: webhook %d: %w", u.GetKind(), u.GetName(), i, err)
		}
	}
	return unstructured.SetNestedSlice(u.Object, hooks, "webhooks")
}
