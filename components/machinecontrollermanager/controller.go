package machinecontrollermanager

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/components/managedresource"
	"github.com/declarative-gardener/gardener/engine/render"
	"maps"
)

// ShootController is a controller of a shoot's machines that runs in the shoot's control-plane
// namespace of the seed: machine-controller-manager, and cluster-autoscaler, which follows the
// same shape. It acts on the machine objects of its namespace through a ServiceAccount there, and
// on the shoot through a ServiceAccount in the shoot's kube-system, whose permissions reach the
// shoot in a ManagedResource.
type ShootController struct {
	// Name names the ServiceAccounts, the seed Role, the Deployment and the metrics Service; the
	// shoot's ClusterRole is system:<Name>.
	Name      string
	Cluster   string
	Namespace string
	Labels    map[string]string
	// Port is the metrics port the shoot's Prometheus scrapes.
	Port   int32
	Access shootaccess.Access
	// SeedRules are the permissions in the control-plane namespace; ShootRules in the whole
	// shoot, KubeSystemRules in its kube-system only (none when empty).
	SeedRules, ShootRules, KubeSystemRules []rbacv1.PolicyRule
	// ShootRBACName names the ManagedResource with the shoot's permissions.
	ShootRBACName string
}

// Objects are the seed-side RBAC, the shoot access Secret, the Deployment, its metrics Service
// and the ManagedResource with the controller's permissions in the shoot.
func (c ShootController) Objects(d *appsv1.Deployment) ([]render.Object, error) {
	meta := metav1.ObjectMeta{Name: c.Name, Namespace: c.Namespace, Labels: c.Labels}
	sa := &corev1.ServiceAccount{ObjectMeta: meta, AutomountServiceAccountToken: ptr.To(true)}
	role := &rbacv1.Role{ObjectMeta: meta, Rules: c.SeedRules}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: meta,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: c.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: c.Name, Namespace: c.Namespace}},
	}
	// Exposed to the shoot's Prometheus (Gardener's docs/operations/network_policies.md).
	svc := kubeapiserver.MetricsService(c.Name, c.Namespace, c.Labels, "all-scrape-targets", c.Port)
	objs, err := kube.Typed(c.Cluster, sa, role, binding, c.Access.Secret(), d, svc)
	if err != nil {
		return nil, err
	}
	shoot, err := c.shootRBAC()
	if err != nil {
		return nil, err
	}
	return append(objs, shoot...), nil
}

// Deployment is the controller's Deployment of replicas pods with one container, the controller's
// ServiceAccount in the seed and its access to the shoot mounted (Access). The pods may resolve
// names and reach the seed's API server, for the machine objects, and the shoot's (Gardener's
// "Network Policies" docs/operations/network_policies.md); podLabels add what else they reach.
func (c ShootController) Deployment(replicas int32, priorityClass string, podLabels map[string]string, container corev1.Container) *appsv1.Deployment {
	labels := map[string]string{
		"gardener.cloud/role":                                                           "controlplane",
		"networking.gardener.cloud/to-dns":                                              "allowed",
		"networking.gardener.cloud/to-runtime-apiserver":                                "allowed",
		kubeapiserver.ToServiceLabel(kubeapiserver.ServiceName(""), kubeapiserver.Port): "allowed",
	}
	maps.Copy(labels, podLabels)
	maps.Copy(labels, c.Labels)
	container.Name = c.Name
	container.VolumeMounts = append(container.VolumeMounts, c.Access.Mount())
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: c.Name, Namespace: c.Namespace, Labels: c.Labels},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(replicas),
			RevisionHistoryLimit: ptr.To(int32(2)),
			Selector:             &metav1.LabelSelector{MatchLabels: c.Labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					ServiceAccountName: c.Name,
					PriorityClassName:  priorityClass,
					Containers:         []corev1.Container{container},
					Volumes:            []corev1.Volume{c.Access.Volume()},
				},
			},
		},
	}
}

// shootRBAC binds the rules in the shoot to the controller's ServiceAccount in its kube-system,
// in a ManagedResource the shoot's gardener-resource-manager applies (class unset, Gardener's
// "Conventions" docs/extensions/conventions.md).
func (c ShootController) shootRBAC() ([]render.Object, error) {
	name := "system:" + c.Name
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: c.Name, Namespace: metav1.NamespaceSystem}}
	typed := []runtime.Object{
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: c.ShootRules},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
			Subjects:   subjects,
		},
	}
	if len(c.KubeSystemRules) > 0 {
		meta := metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceSystem}
		typed = append(typed,
			&rbacv1.Role{ObjectMeta: meta, Rules: c.KubeSystemRules},
			&rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}, Subjects: subjects},
		)
	}
	us, err := kube.All(typed...)
	if err != nil {
		return nil, err
	}
	return managedresource.Pack(managedresource.Spec{
		Cluster: c.Cluster, Namespace: c.Namespace, Name: c.ShootRBACName,
		// The shoot deletion's clean-up leaves objects with this label alone (Gardener's "Necessary
		// Labeling for Custom CSI Components" docs/usage/advanced/csi_components.md).
		InjectLabels: map[string]string{"shoot.gardener.cloud/no-cleanup": "true"},
		Objects:      us,
	})
}
