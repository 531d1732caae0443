package kubeapiserver

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/managedresource"
	"github.com/declarative-gardener/gardener/engine/render"
)

// ShootResourcesName is the ManagedResource with the API server's objects inside a shoot with
// workers (shoot_resources.go at Gardener v1.120.0).
const ShootResourcesName = "shoot-core-kube-apiserver"

// kubeletAPIRole is the ClusterRole, and its binding, that lets the API server's kubelet client
// certificate (KubeletClientCommonName) use the kubelet's API: logs, exec, port-forward and
// metrics, which kubelets authorize through the API server.
const kubeletAPIRole = "system:apiserver:kubelet"

// ShootResources is the ManagedResource the shoot's resource manager applies into a shoot with
// workers: the RBAC that lets the kubelets serve the API server
// (computeShootResourcesData in pkg/component/kubernetes/apiserver/shoot_resources.go at Gardener
// v1.120.0), in cluster and namespace, the shoot's control plane.
func ShootResources(cluster, namespace string) ([]render.Object, error) {
	verbs := []string{"create", "get", "update", "patch", "delete"}
	objs, err := kube.All(
		&rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: kubeletAPIRole},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"nodes/proxy", "nodes/stats", "nodes/log", "nodes/spec", "nodes/metrics"}, Verbs: verbs},
				{NonResourceURLs: []string{"*"}, Verbs: verbs},
			},
		},
		&rbacv1.ClusterRoleBinding{
			// The resource manager recreates the binding if its role reference ever changes.
			ObjectMeta: metav1.ObjectMeta{Name: kubeletAPIRole, Annotations: map[string]string{"resources.gardener.cloud/delete-on-invalid-update": "true"}},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: kubeletAPIRole},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: KubeletClientCommonName}},
		},
	)
	if err != nil {
		return nil, err
	}
	// origin=gardener, objects not kept, and the shoot deletion's clean-up leaves them to the
	// resource manager (CreateForShoot in apiserver.go and pkg/utils/managedresources at Gardener
	// v1.120.0).
	return managedresource.Pack(managedresource.ForShoot(cluster, namespace, ShootResourcesName, false, objs))
}
