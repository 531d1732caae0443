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

// Name is the name of the Deployment, its container, the Service, the ServiceAccounts and the
// PodDisruptionBudget (pkg/component/nodemanagement/machinecontrollermanager in gardener/gardener
// v1.120.0).
const Name = "machine-controller-manager"

// Port serves the controller's metrics and health endpoint; ProviderPort the provider sidecar's,
// which the provider extension injects (provider.go in the same package).
const (
	Port         = 10258
	ProviderPort = 10259
)

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

// Objects renders what gardenlet deploys for a shoot's machine-controller-manager (Deploy in
// pkg/component/nodemanagement/machinecontrollermanager/machine_controller_manager.go,
// gardener/gardener v1.120.0): see ShootController.Objects.
func Objects(v Values) ([]render.Object, error) {
	if v.Namespace == "" {
		return nil, fmt.Errorf("namespace is required: the shoot's control-plane namespace")
	}
	if v.Replicas < 0 {
		return nil, fmt.Errorf("replicas %d: must not be negative", v.Replicas)
	}
	c := ShootController{
		Name: Name, Cluster: v.Cluster.Name, Namespace: v.Namespace, Labels: SelectorLabels(),
		SeedClusterRole: SeedClusterRoleName,
		MetricsPorts: []corev1.ServicePort{
			{Name: "metrics", Port: Port},
			{Name: "providermetrics", Port: ProviderPort},
		},
		RevisionHistoryLimit: 2,
		// The machines' provider API and the machines themselves (Gardener's
		// docs/operations/network_policies.md).
		PodLabels: map[string]string{
			"networking.gardener.cloud/to-public-networks":  "allowed",
			"networking.gardener.cloud/to-private-networks": "allowed",
		},
		Access: shootaccess.Access{Namespace: v.Namespace, Component: Name, GenericKubeconfigSecretName: v.GenericKubeconfigSecretName, AccessSecretName: v.AccessSecretName},
		// The provider extension adds a policy for its sidecar.
		VPAContainer: Name, VPALabels: map[string]string{LabelMutatedByWebhook: "true"},
		ShootRBACName: ShootRBACName, ShootObjects: shootObjects(),
	}
	d, err := deployment(v, c)
	if err != nil {
		return nil, err
	}
	return c.Objects(d)
}

// command is the controller's command line, flag for flag in gardenlet's order: the machine
// objects of its own namespace in the seed through the in-cluster config, the safety limits, the
// shoot through the generic kubeconfig, the workers and the client rate limits.
func command(namespace string) []string {
	return []string{
		"./machine-controller-manager",
		"--control-kubeconfig=inClusterConfig",
		"--machine-safety-overshooting-period=1m",
		"--namespace=" + namespace,
		"--port=" + strconv.Itoa(Port),
		"--safety-up=2",
		"--safety-down=1",
		"--target-kubeconfig=" + shootaccess.KubeconfigPath,
		"--concurrent-syncs=30",
		"--kube-api-qps=150",
		"--kube-api-burst=200",
		"--v=3",
	}
}

func deployment(v Values, c ShootController) (*appsv1.Deployment, error) {
	image, err := images.Of(v.Images, images.MachineControllerManager, "")
	if err != nil {
		return nil, fmt.Errorf("machine-controller-manager images: %w", err)
	}
	return c.Deployment(replicas.UnlessHibernated(v.Replicas, v.Hibernated), v.PriorityClassName, corev1.Container{
		Image:   image,
		Command: command(v.Namespace),
		LivenessProbe: &corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(Port), Scheme: corev1.URISchemeHTTP}},
			FailureThreshold: 3, InitialDelaySeconds: 30, PeriodSeconds: 10, SuccessThreshold: 1, TimeoutSeconds: 5,
		},
		Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: Port, Protocol: corev1.ProtocolTCP}},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("10m"),
			corev1.ResourceMemory: resource.MustParse("20M"),
		}},
	}), nil
}
