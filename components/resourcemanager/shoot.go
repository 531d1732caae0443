package resourcemanager

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
)

// ShootTarget makes the GRM a shoot's own resource manager
// (pkg/gardenlet/operation/botanist/namespaces.go, Gardener's "Gardener Resource Manager"
// docs/concepts/resource-manager.md, "Topology Aware Routing"
// docs/operations/topology_aware_routing.md): it runs in the shoot's control-plane namespace of the
// seed, watches only that namespace for ManagedResources without a class, applies them into the
// shoot, and requests tokens for the shoot-access Secrets there.
type ShootTarget struct {
	// KubeconfigSecretName is the Secret in Namespace with a kubeconfig (key "kubeconfig") for
	// the shoot's API server, mounted as the GRM's target client connection.
	KubeconfigSecretName string
}

// Where a shoot's GRM finds the kubeconfig of its target cluster, the shoot.
const (
	targetKubeconfigDir    = "/etc/gardener-resource-manager-target"
	targetKubeconfigKey    = "kubeconfig"
	targetKubeconfigVolume = "target-kubeconfig"
)

// TargetKubeconfigPath is the file the shoot GRM's targetClientConnection points at: the key
// "kubeconfig" of ShootTarget.KubeconfigSecretName, mounted read-only.
const TargetKubeconfigPath = targetKubeconfigDir + "/" + targetKubeconfigKey

func (s *ShootTarget) validate(namespace string) error {
	if namespace == "" {
		return fmt.Errorf("namespace is required for a shoot's resource manager: the shoot's control-plane namespace")
	}
	if s.KubeconfigSecretName == "" {
		return fmt.Errorf("shoot target: kubeconfig secret name is required")
	}
	if errs := validation.IsDNS1123Subdomain(s.KubeconfigSecretName); len(errs) > 0 {
		return fmt.Errorf("shoot target: kubeconfig secret name %q is invalid: %s", s.KubeconfigSecretName, strings.Join(errs, "; "))
	}
	return nil
}

// defaultPriorityClass is gardener-garden-system-critical for the runtime GRM (Gardener's "Priority
// Classes" docs/development/priority-classes.md) and gardener-system-400 for a shoot's (Gardener's
// docs/development/priority-classes.md, docs/operations/topology_aware_routing.md).
func defaultPriorityClass(shoot bool) string {
	if shoot {
		return priorityclasses.System400
	}
	return priorityclasses.GardenSystemCritical
}

// shootRBAC is the ServiceAccount of a shoot's GRM and its permissions in the seed, all in its
// own namespace: a shoot's GRM watches only that namespace (Gardener's
// docs/concepts/resource-manager.md) and applies its ManagedResources into the shoot with the
// target kubeconfig, whose user carries the rights there. In the seed it reads and updates
// ManagedResources and their status, reads the Secrets with their manifests and writes the tokens
// of the shoot-access Secrets (TokenRequestor, Gardener's docs/concepts/resource-manager.md), and
// keeps its leader election lease and events. ConfigMaps are readable for the manager's namespaced
// cache; Gardener's documentation names no finer rule.
func shootRBAC(v Values) []runtime.Object {
	meta := metav1.ObjectMeta{Name: Name, Namespace: v.Namespace, Labels: labels()}
	read := []string{"get", "list", "watch"}
	readWrite := []string{"get", "list", "watch", "update", "patch"}
	return []runtime.Object{
		&corev1.ServiceAccount{ObjectMeta: meta},
		&rbacv1.Role{
			ObjectMeta: meta,
			Rules: append([]rbacv1.PolicyRule{
				{APIGroups: []string{"resources.gardener.cloud"}, Resources: []string{"managedresources"}, Verbs: readWrite},
				{APIGroups: []string{"resources.gardener.cloud"}, Resources: []string{"managedresources/status"}, Verbs: []string{"get", "update", "patch"}},
				{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: readWrite},
				{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: read},
			}, leaderElectionRules()...),
		},
		&rbacv1.RoleBinding{
			ObjectMeta: meta,
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: v.Namespace}},
		},
	}
}

// shootPodLabels open the paths a shoot's GRM needs beyond DNS and the seed's API server: the
// shoot's kube-apiserver Service in the same namespace (Gardener's
// docs/concepts/resource-manager.md), and the control-plane role so that dependency-watchdog's
// weeder restarts it once kube-apiserver is back (Gardener's "Seed Bootstrapping"
// docs/operations/seed_bootstrapping.md).
func shootPodLabels() map[string]string {
	return map[string]string{
		"gardener.cloud/role": "controlplane",
		kubeapiserver.ToServiceLabel(kubeapiserver.ServiceName(""), kubeapiserver.Port): "allowed",
	}
}

// targetKubeconfig is the volume and mount of the shoot's kubeconfig.
func targetKubeconfig(s *ShootTarget) (corev1.Volume, corev1.VolumeMount) {
	return corev1.Volume{Name: targetKubeconfigVolume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName:  s.KubeconfigSecretName,
			DefaultMode: ptr.To[int32](0o640),
		}}},
		corev1.VolumeMount{Name: targetKubeconfigVolume, MountPath: targetKubeconfigDir, ReadOnly: true}
}
