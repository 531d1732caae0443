package shootsystem

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
)

// toKubelet is the label of pods that call kubelets (Gardener's "Network Policies"
// docs/operations/network_policies.md).
const toKubelet = "networking.gardener.cloud/to-kubelet"

// meta is the metadata of an object in kube-system.
func meta(name string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: Namespace, Name: name, Labels: labels}
}

// generatedSecret is a Secret in kube-system whose data keys take keys of generated Secrets
// (data key to GeneratedRef marker). It is built unstructured: the markers stand for
// base64-encoded data already, which a typed Secret would encode again.
func generatedSecret(name string, labels map[string]string, data map[string]string) *unstructured.Unstructured {
	return kube.Custom("v1", "Secret", Namespace, name, labels, map[string]any{"type": string(corev1.SecretTypeOpaque), "data": kube.AnyMap(data)})
}

// merge returns a new map with the entries of all maps, later ones winning.
func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// serviceAccount is a component's ServiceAccount; token mounting stays off unless the
// component talks to the API server.
func serviceAccount(name string, labels map[string]string, automount bool) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: meta(name, labels), AutomountServiceAccountToken: ptr.To(automount)}
}

// clusterRoleBinding binds a ClusterRole to a ServiceAccount of kube-system.
func clusterRoleBinding(name, role, sa string, labels map[string]string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: Namespace}},
	}
}

// nodeCriticalTolerations let node-critical DaemonSets run everywhere, including nodes that
// still carry the critical-components-not-ready taint (Gardener's "Readiness of Shoot Worker Nodes"
// docs/usage/advanced/node-readiness.md); tolerating every taint covers it, as upstream's
// kube-proxy and node-local-dns do.
func nodeCriticalTolerations() []corev1.Toleration {
	return []corev1.Toleration{
		{Key: criticalComponentsTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Operator: corev1.TolerationOpExists},
	}
}

// hostPath is a hostPath volume.
func hostPath(name, path string, t corev1.HostPathType) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path, Type: ptr.To(t)}}}
}

// restricted is the container security context of components that need no privileges:
// kube.UnprivilegedReadOnly run as the nobody user.
func restricted() *corev1.SecurityContext {
	s := kube.UnprivilegedReadOnly()
	s.RunAsNonRoot = ptr.To(true)
	s.RunAsUser = ptr.To[int64](65534)
	return s
}

// checksum is a short kube.Checksum of configuration data, as the shoot system's pod template
// annotations carry it.
func checksum(data map[string]string) string { return kube.Checksum(data)[:16] }

// hostnameSpread spreads pods over nodes without ever making them unschedulable.
func hostnameSpread(labels map[string]string) []corev1.TopologySpreadConstraint {
	return []corev1.TopologySpreadConstraint{{
		MaxSkew:           1,
		TopologyKey:       corev1.LabelHostname,
		WhenUnsatisfiable: corev1.ScheduleAnyway,
		LabelSelector:     &metav1.LabelSelector{MatchLabels: labels},
	}}
}

// uniqueSecret names s after its data as Gardener names the Secrets of the shoot's system
// components (MakeUnique in pkg/utils/kubernetes/object.go at gardener/gardener v1.120.0), and makes
// it immutable unless it holds generated secrets: those the engine renews under the same rendering,
// hence the same name, so the Secret must change in place.
func uniqueSecret(s *corev1.Secret) {
	unique.Secret(s)
	data := map[string]any{}
	for k, v := range s.StringData {
		data[k] = v
	}
	if render.HasGenerated(data) {
		s.Immutable = nil
	}
}

// annotated returns m with annotations set.
func annotated(m metav1.ObjectMeta, annotations map[string]string) metav1.ObjectMeta {
	m.Annotations = annotations
	return m
}
