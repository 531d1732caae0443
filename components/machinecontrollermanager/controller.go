package machinecontrollermanager

import (
	"encoding/json"
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/components/managedresource"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Labels gardenlet puts on the control-plane workloads it deploys (pkg/apis/core/v1beta1/constants
// and pkg/apis/resources/v1alpha1 in gardener/gardener v1.120.0).
const (
	// LabelHAType tells the high-availability-config webhook of the seed's resource manager what
	// the workload is; a controller runs one replica, two when the shoot has a failure tolerance.
	LabelHAType = "high-availability-config.resources.gardener.cloud/type"
	// LabelMutatedByWebhook lets the provider extension's control-plane webhook mutate the object
	// (for machine-controller-manager: add its provider sidecar).
	LabelMutatedByWebhook = "provider.extensions.gardener.cloud/mutated-by-controlplane-webhook"
	// LabelMaintenanceRestart has the pods restarted in the shoot's maintenance window.
	LabelMaintenanceRestart = "maintenance.gardener.cloud/restart"
)

// ShootController is a controller of a shoot's machines that runs in the shoot's control-plane
// namespace of the seed as gardenlet deploys it: machine-controller-manager, and
// cluster-autoscaler, which follows the same shape (pkg/component/nodemanagement/machinecontrollermanager
// and pkg/component/autoscaling/clusterautoscaler in gardener/gardener v1.120.0). It acts on the
// machine objects of its namespace through a ServiceAccount there, bound to a ClusterRole the seed
// holds for all shoots (SeedBootstrap), and on the shoot through a ServiceAccount in the shoot's
// kube-system, whose permissions reach the shoot in a ManagedResource.
type ShootController struct {
	// Name names the ServiceAccount, the Deployment, its container, the Service and the
	// PodDisruptionBudget; the seed ClusterRoleBinding is <Name>-<Namespace>.
	Name      string
	Cluster   string
	Namespace string
	// Labels select the pods.
	Labels map[string]string
	// SeedClusterRole is the seed's ClusterRole the controller's ServiceAccount is bound to.
	SeedClusterRole string
	// MetricsPorts are the Service's ports, open to the shoot Prometheus's scrape targets.
	MetricsPorts []corev1.ServicePort
	// RevisionHistoryLimit of the Deployment.
	RevisionHistoryLimit int32
	// PodLabels are the network labels of the pods beyond DNS and the seed's and the shoot's
	// API servers.
	PodLabels map[string]string
	Access    shootaccess.Access
	// VPAContainer is the container policy's container name ("*" for all); VPALabels the VPA's
	// labels.
	VPAContainer string
	VPALabels    map[string]string
	// ShootRBACName names the ManagedResource with ShootObjects, the controller's permissions in
	// the shoot.
	ShootRBACName string
	ShootObjects  []runtime.Object
}

// Objects are what gardenlet deploys, in its order: the ServiceAccount, the seed
// ClusterRoleBinding, the headless metrics Service, the token-requestor Secret, the Deployment,
// its PodDisruptionBudget and VerticalPodAutoscaler, and the ManagedResource for the shoot.
func (c ShootController) Objects(d *appsv1.Deployment) ([]render.Object, error) {
	// The seed resource manager's projected-token-mount webhook mounts a token for the pods.
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: c.Name, Namespace: c.Namespace}, AutomountServiceAccountToken: ptr.To(false)}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: c.Name + "-" + c.Namespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: c.SeedClusterRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: c.Name, Namespace: c.Namespace}},
	}
	svc, err := c.service()
	if err != nil {
		return nil, err
	}
	objs, err := kube.Typed(c.Cluster, sa, binding, svc, c.Access.Secret(), d, disruption.Budget(c.Namespace, c.Name, c.Labels))
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		// Gardener leaves the rollout strategy to the API server's default; the typed struct
		// would send an empty one.
		if o.Object.GetKind() == "Deployment" {
			unstructured.RemoveNestedField(o.Object.Object, "spec", "strategy")
		}
	}
	objs = append(objs, kube.On(c.Cluster, "", c.verticalPodAutoscaler())...)
	shoot, err := c.shootRBAC()
	if err != nil {
		return nil, err
	}
	return append(objs, shoot...), nil
}

// service is headless: the Prometheus scrapes the pods behind it. Its annotation opens the ports
// to the scrape targets policy, as gardenlet marshals them (protocol before port).
func (c ShootController) service() (*corev1.Service, error) {
	var open []networkingv1.NetworkPolicyPort
	ports := make([]corev1.ServicePort, len(c.MetricsPorts))
	for i, p := range c.MetricsPorts {
		open = append(open, networkingv1.NetworkPolicyPort{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(p.Port))})
		// The API server defaults the target port to the port; rendered, so that plans compare
		// with the live object.
		ports[i] = corev1.ServicePort{Name: p.Name, Protocol: corev1.ProtocolTCP, Port: p.Port, TargetPort: intstr.FromInt32(p.Port)}
	}
	raw, err := json.Marshal(open)
	if err != nil {
		return nil, fmt.Errorf("%s service: %w", c.Name, err)
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name: c.Name, Namespace: c.Namespace, Labels: maps.Clone(c.Labels),
			Annotations: map[string]string{"networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports": string(raw)},
		},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeClusterIP, ClusterIP: corev1.ClusterIPNone,
			Selector: maps.Clone(c.Labels), Ports: ports,
		},
	}, nil
}

// Deployment is the controller's Deployment of replicas pods with one container, run as the
// controller's ServiceAccount with its access to the shoot mounted as gardenlet injects it. The
// pods may resolve names and reach the seed's API server, for the machine objects, and the
// shoot's, plus what PodLabels add; the maintenance restarts them.
func (c ShootController) Deployment(replicas int32, priorityClass string, container corev1.Container) *appsv1.Deployment {
	labels := map[string]string{
		"gardener.cloud/role": "controlplane",
		LabelHAType:           "controller",
		LabelMutatedByWebhook: "true",
	}
	maps.Copy(labels, c.Labels)
	podLabels := map[string]string{
		"gardener.cloud/role":                            "controlplane",
		LabelMaintenanceRestart:                          "true",
		"networking.gardener.cloud/to-dns":               "allowed",
		"networking.gardener.cloud/to-runtime-apiserver": "allowed",
		kubeapiserver.ToServiceLabel(kubeapiserver.ServiceName(""), kubeapiserver.Port): "allowed",
	}
	maps.Copy(podLabels, c.PodLabels)
	maps.Copy(podLabels, c.Labels)
	container.Name = c.Name
	container.ImagePullPolicy = corev1.PullIfNotPresent
	container.SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)}
	container.VolumeMounts = append(container.VolumeMounts, c.Access.Mount())
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: c.Name, Namespace: c.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(replicas),
			RevisionHistoryLimit: ptr.To(c.RevisionHistoryLimit),
			Selector:             &metav1.LabelSelector{MatchLabels: maps.Clone(c.Labels)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					Containers:                    []corev1.Container{container},
					PriorityClassName:             priorityClass,
					ServiceAccountName:            c.Name,
					TerminationGracePeriodSeconds: ptr.To(int64(5)),
					Volumes:                       []corev1.Volume{c.Access.GenericKubeconfigVolume()},
				},
			},
		},
	}
}

// verticalPodAutoscaler scales the requests, never the limits, of the Deployment's containers.
func (c ShootController) verticalPodAutoscaler() *unstructured.Unstructured {
	return kube.Custom("autoscaling.k8s.io/v1", "VerticalPodAutoscaler", c.Namespace, c.Name+"-vpa", c.VPALabels, map[string]any{"spec": map[string]any{
		"targetRef":    map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": c.Name},
		"updatePolicy": map[string]any{"updateMode": "Auto"},
		"resourcePolicy": map[string]any{"containerPolicies": []any{
			map[string]any{"containerName": c.VPAContainer, "controlledValues": "RequestsOnly"},
		}},
	}})
}

// shootRBAC is the ManagedResource with the controller's objects in the shoot, applied by the
// shoot's gardener-resource-manager (class unset), whose clean-up at the shoot's deletion leaves
// them alone (managedresources.CreateForShoot in gardener/gardener v1.120.0).
func (c ShootController) shootRBAC() ([]render.Object, error) {
	us, err := kube.All(c.ShootObjects...)
	if err != nil {
		return nil, err
	}
	// origin=gardener, objects not kept, left alone by the shoot deletion's clean-up
	// (CreateForShoot in machine_controller_manager.go and cluster_autoscaler.go at Gardener v1.120.0).
	return managedresource.Pack(managedresource.ForShoot(c.Cluster, c.Namespace, c.ShootRBACName, false, us))
}

// TargetRBAC are a controller's ClusterRole, Role in kube-system and their bindings in the shoot,
// all named gardener.cloud:target:<component>, for subject; roleSubject is the Role's subject.
func TargetRBAC(component string, subject, roleSubject rbacv1.Subject, clusterRules, roleRules []rbacv1.PolicyRule) []runtime.Object {
	name := "gardener.cloud:target:" + component
	return []runtime.Object{
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: clusterRules},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
			Subjects:   []rbacv1.Subject{subject},
		},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceSystem}, Rules: roleRules},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceSystem},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
			Subjects:   []rbacv1.Subject{roleSubject},
		},
	}
}

// SeedBootstrapObjects pack a seed-wide ClusterRole of a shoot controller into the ManagedResource
// name in the seed's garden namespace, which the seed's resource manager (class seed) applies
// (the bootstrappers of pkg/component/nodemanagement/machinecontrollermanager/bootstrap.go and
// pkg/component/autoscaling/clusterautoscaler/bootstrap.go, gardener/gardener v1.120.0).
func SeedBootstrapObjects(cluster, namespace, name string, role *rbacv1.ClusterRole) ([]render.Object, error) {
	us, err := kube.All(role)
	if err != nil {
		return nil, err
	}
	return managedresource.Pack(managedresource.Spec{Cluster: cluster, Namespace: namespace, Name: name, Class: "seed", Objects: us})
}
