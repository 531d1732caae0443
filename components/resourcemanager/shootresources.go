package resourcemanager

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/managedresource"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Names of the GRM's objects in the shoot (ensureShootResources in
// pkg/component/gardener/resourcemanager/resource_manager.go at gardener/gardener v1.120.0).
const (
	// ShootWebhookConfigurationName is the MutatingWebhookConfiguration the shoot's API server calls
	// the GRM's webhooks through.
	ShootWebhookConfigurationName = Name + "-shoot"
	// ShootClusterRoleBindingName binds the GRM's ServiceAccount kube-system/gardener-resource-manager
	// to cluster-admin in the shoot: it applies whatever its ManagedResources hold.
	ShootClusterRoleBindingName = "gardener.cloud:target:resource-manager"
)

// Webhook names and paths served by a shoot's GRM (resource_manager.go and the webhook packages of
// pkg/resourcemanager/webhook at v1.120.0).
const (
	KubernetesServiceHostWebhook  = "kubernetes-service-host.resources.gardener.cloud"
	SystemComponentsConfigWebhook = "system-components-config.resources.gardener.cloud"
	PodSchedulerNameWebhook       = "pod-scheduler-name.resources.gardener.cloud"

	pathProjectedTokenMount    = "/webhooks/mount-projected-service-account-token"
	pathHighAvailabilityConfig = "/webhooks/high-availability-config"
	pathPodSchedulerName       = "/webhooks/default-pod-scheduler-name"
	pathSeccompProfile         = "/webhooks/seccomp-profile"
	pathKubernetesServiceHost  = "/webhooks/kubernetes-service-host"
	pathSystemComponentsConfig = "/webhooks/system-components-config"
	pathPodTopologySpread      = "/webhooks/pod-topology-spread-constraints"
)

// labelKubernetesServiceHostInject opts a namespace or pod out of the kubernetes-service-host
// webhook with the value "disable".
const labelKubernetesServiceHostInject = "apiserver-proxy.networking.gardener.cloud/inject"

// shootManagedResource is the ManagedResource ShootManagedResourceName, which the GRM applies into
// the shoot itself: the ClusterRoleBinding that gives its ServiceAccount its rights (kept when the
// ManagedResource goes, so that the GRM never locks itself out while it deletes), and the webhook
// configuration through which the shoot's API server calls its webhooks at its Service in the seed
// (CreateForShootWithLabels in ensureShootResources, resource_manager.go at v1.120.0).
func shootManagedResource(v Values) ([]render.Object, error) {
	crb, err := kube.ToUnstructured(&rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{
			Name:        ShootClusterRoleBindingName,
			Annotations: map[string]string{"resources.gardener.cloud/keep-object": "true"},
		},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: metav1.NamespaceSystem}},
	})
	if err != nil {
		return nil, err
	}
	mwc, err := kube.ToUnstructured(&admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: ShootWebhookConfigurationName, Labels: appLabel()},
		Webhooks:   shootWebhooks(v),
	})
	if err != nil {
		return nil, err
	}
	if err := setCABundles(mwc, render.GeneratedRef(v.Namespace, v.Shoot.CASecretName, render.DataKeyCACert, true)); err != nil {
		return nil, err
	}
	objs, err := managedresource.Pack(managedresource.ForShoot(v.Cluster.Name, v.Namespace, ShootManagedResourceName, false, []*unstructured.Unstructured{mwc, crb}))
	if err != nil {
		return nil, fmt.Errorf("gardener-resource-manager shoot resources: %w", err)
	}
	return objs, nil
}

// shootWebhooks are the webhooks the shoot's API server calls (getMutatingWebhookConfigurationWebhooks
// for a GRM responsible for a target cluster, resource_manager.go at v1.120.0), in Gardener's
// order. The pod and workload webhooks act in kube-system and kubernetes-dashboard only (the
// namespaces labelled gardener.cloud/purpose), on objects the GRM manages
// (resources.gardener.cloud/managed-by=gardener), never on the GRM's own pods; the
// kubernetes-service-host webhook acts on every pod not opted out.
func shootWebhooks(v Values) []admissionregistrationv1.MutatingWebhook {
	s := v.Shoot
	systemNamespaces := func() *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: "gardener.cloud/purpose", Operator: metav1.LabelSelectorOpIn, Values: []string{metav1.NamespaceSystem, "kubernetes-dashboard"},
		}}}
	}
	managedByGardener := func(expressions ...metav1.LabelSelectorRequirement) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"resources.gardener.cloud/managed-by": "gardener"}, MatchExpressions: expressions}
	}
	doesNotExist := func(key string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpDoesNotExist}
	}
	notTheGRM := metav1.LabelSelectorRequirement{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{Name}}
	notDisabled := metav1.LabelSelectorRequirement{Key: labelKubernetesServiceHostInject, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"disable"}}
	podCreate := []admissionregistrationv1.RuleWithOperations{kube.WebhookRule("", "v1", create, "pods")}
	hook := func(name, path string, rules []admissionregistrationv1.RuleWithOperations, ns, obj *metav1.LabelSelector) admissionregistrationv1.MutatingWebhook {
		return admissionregistrationv1.MutatingWebhook{
			Name:                    name,
			ClientConfig:            shootClientConfig(v, path),
			Rules:                   rules,
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			MatchPolicy:             ptr.To(admissionregistrationv1.Exact),
			NamespaceSelector:       ns,
			ObjectSelector:          obj,
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds:          ptr.To[int32](10),
			AdmissionReviewVersions: []string{"v1beta1", "v1"},
		}
	}

	highAvailability := hook(HighAvailabilityConfigWebhook, pathHighAvailabilityConfig, []admissionregistrationv1.RuleWithOperations{
		kube.WebhookRule("apps", "v1", createOrUpdate, "deployments", "statefulsets"),
		{Operations: createOrUpdate, Rule: admissionregistrationv1.Rule{APIGroups: []string{"autoscaling"}, APIVersions: []string{"v2beta1", "v2"}, Resources: []string{"horizontalpodautoscalers"}}},
	}, systemNamespaces(), managedByGardener(doesNotExist(labelHASkip)))
	highAvailability.NamespaceSelector.MatchLabels = map[string]string{"high-availability-config.resources.gardener.cloud/consider": "true"}
	highAvailability.MatchPolicy = ptr.To(admissionregistrationv1.Equivalent)

	out := []admissionregistrationv1.MutatingWebhook{
		hook(ProjectedTokenMountWebhook, pathProjectedTokenMount, podCreate, systemNamespaces(), &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			doesNotExist("projected-token-mount.resources.gardener.cloud/skip"), notTheGRM,
		}}),
		highAvailability,
	}
	if s.BinPacking {
		h := hook(PodSchedulerNameWebhook, pathPodSchedulerName, podCreate, &metav1.LabelSelector{}, &metav1.LabelSelector{})
		h.FailurePolicy = ptr.To(admissionregistrationv1.Ignore)
		out = append(out, h)
	}
	if v.DefaultSeccompProfile {
		out = append(out, hook(SeccompProfileWebhook, pathSeccompProfile, podCreate, systemNamespaces(), &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			doesNotExist("seccompprofile.resources.gardener.cloud/skip"), notTheGRM,
		}}))
	}
	if s.KubernetesServiceHost != "" {
		h := hook(KubernetesServiceHostWebhook, pathKubernetesServiceHost, podCreate,
			&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{notDisabled}},
			&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{notDisabled}})
		h.FailurePolicy, h.TimeoutSeconds = ptr.To(admissionregistrationv1.Ignore), ptr.To[int32](2)
		h.ReinvocationPolicy = ptr.To(admissionregistrationv1.NeverReinvocationPolicy)
		out = append(out, h)
	}
	out = append(out, hook(SystemComponentsConfigWebhook, pathSystemComponentsConfig, podCreate, systemNamespaces(),
		managedByGardener(doesNotExist("system-components-config.resources.gardener.cloud/skip"))))
	if s.PodTopologySpreadConstraints {
		out = append(out, hook(PodTopologySpreadWebhook, pathPodTopologySpread, podCreate, systemNamespaces(),
			managedByGardener(notTheGRM, doesNotExist("topology-spread-constraints.resources.gardener.cloud/skip"))))
	}
	return out
}

// shootClientConfig reaches the GRM by URL: the shoot's API server runs in the control-plane
// namespace of the seed and resolves the GRM's Service there by its short name
// (buildWebhookClientConfig in resource_manager.go at v1.120.0). caBundle is set afterwards.
func shootClientConfig(v Values, path string) admissionregistrationv1.WebhookClientConfig {
	return admissionregistrationv1.WebhookClientConfig{URL: ptr.To(fmt.Sprintf("https://%s.%s:443%s", Name, v.Namespace, path))}
}
