// Package machinecontrollermanager renders the machine_controller_manager component: the
// controller in a shoot's control-plane namespace of the seed that turns MachineDeployments,
// MachineSets and Machines (machine.sapcloud.io/v1alpha1) into virtual machines backing the
// shoot's nodes (Gardener's "Worker" docs/extensions/resources/worker.md, "Architecture"
// docs/concepts/architecture.md). gardenlet deploys the Deployment; the provider extension injects
// its provider-specific sidecar into it (Gardener's docs/extensions/resources/worker.md) and writes
// the MachineClasses and MachineDeployments from the Worker resource.
package machinecontrollermanager

import (
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Name is the name of the Deployment, Service, ServiceAccount and RBAC objects (Gardener's
// docs/concepts/architecture.md, docs/extensions/resources/worker.md).
const Name = "machine-controller-manager"

// Port serves the controller's metrics and health endpoint. Gardener's documentation gives no
// number; 10258 is the one Gardener uses.
const Port = 10258

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	// Cluster is the seed.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace is the shoot's control-plane namespace shoot--<project>--<shoot>; required.
	Namespace string `json:"namespace"`
	// Images overrides image vector entries by name (machine-controller-manager).
	Images map[string]string `json:"images"`
	// Replicas of the controller; 0 stops it.
	Replicas int32 `json:"replicas"`
	// GenericKubeconfigSecretName names the Secret (key kubeconfig) with the shoot's generic
	// token kubeconfig (Gardener's "Conventions" docs/extensions/conventions.md).
	GenericKubeconfigSecretName string `json:"generic_kubeconfig_secret_name"`
	// AccessSecretName names the token-requestor Secret rendered for the controller's shoot
	// ServiceAccount.
	AccessSecretName string `json:"access_secret_name"`
	// PriorityClassName of the pods (Gardener's "Priority Classes"
	// docs/development/priority-classes.md).
	PriorityClassName string `json:"priority_class_name"`
	// Hibernated scales the component to zero replicas: Gardener scales every control-plane
	// component in the shoot namespace to zero when a shoot hibernates, keeping etcd's volumes
	// (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component Checklist"
	// docs/development/component-checklist.md). It wins over Replicas.
	Hibernated bool `json:"-"`
}

// SelectorLabels select the controller's pods.
func SelectorLabels() map[string]string {
	return map[string]string{"app": "kubernetes", "role": Name}
}

// Type is the machine_controller_manager component type as the catalog registers it: its schema
// (schema.go) and its render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders the seed-side RBAC, the shoot access Secret, the Deployment, its metrics
// Service and the ManagedResource with the controller's permissions in the shoot.
func Objects(v Values) ([]render.Object, error) {
	if v.Namespace == "" {
		return nil, fmt.Errorf("namespace is required: the shoot's control-plane namespace")
	}
	if v.Replicas < 0 {
		return nil, fmt.Errorf("replicas %d: must not be negative", v.Replicas)
	}
	c := ShootController{
		Name: Name, Cluster: v.Cluster.Name, Namespace: v.Namespace, Labels: SelectorLabels(), Port: Port,
		Access:    shootaccess.Access{Namespace: v.Namespace, Component: Name, GenericKubeconfigSecretName: v.GenericKubeconfigSecretName, AccessSecretName: v.AccessSecretName},
		SeedRules: seedRules(), ShootRules: shootRules(), ShootRBACName: ShootRBACName,
	}
	d, err := deployment(v, c)
	if err != nil {
		return nil, err
	}
	return c.Objects(d)
}

func args(namespace string) []string {
	return []string{
		// The controller reads the machine objects of its own namespace in the seed ...
		"--control-kubeconfig=inClusterConfig",
		"--namespace=" + namespace,
		// ... and manages Nodes in the shoot.
		"--target-kubeconfig=" + shootaccess.KubeconfigPath,
		"--port=" + strconv.Itoa(Port),
		// Safety limits on machines beyond a MachineDeployment's replicas, the values an operator
		// expects; Gardener's documentation gives none.
		"--safety-up=2",
		"--safety-down=1",
		"--machine-safety-overshooting-period=1m",
		"--v=3",
	}
}

func deployment(v Values, c ShootController) (*appsv1.Deployment, error) {
	image, err := images.Of(v.Images, images.MachineControllerManager, "")
	if err != nil {
		return nil, fmt.Errorf("machine-controller-manager images: %w", err)
	}
	probe := corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(Port), Scheme: corev1.URISchemeHTTP}}
	d := c.Deployment(replicas.UnlessHibernated(v.Replicas, v.Hibernated), v.PriorityClassName,
		// The provider's API (Gardener's docs/operations/network_policies.md).
		map[string]string{"networking.gardener.cloud/to-public-networks": "allowed"},
		corev1.Container{
			Image:   image,
			Command: []string{"./machine-controller-manager"},
			Args:    args(v.Namespace),
			Ports:   []corev1.ContainerPort{{Name: "metrics", ContainerPort: Port, Protocol: corev1.ProtocolTCP}},
			LivenessProbe: &corev1.Probe{
				ProbeHandler: probe, InitialDelaySeconds: 30, PeriodSeconds: 10, TimeoutSeconds: 5, FailureThreshold: 3,
			},
			// Requests an operator would start from; Gardener's documentation gives none.
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("5m"),
				corev1.ResourceMemory: resource.MustParse("20Mi"),
			}},
		})
	// One controller at a time: two would both act on the same machines.
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	return d, nil
}
