package gardenercontrolplane

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/engine/render"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// Controller describes a component that reads one component configuration file and talks only to
// the virtual garden: gardener-controller-manager and gardener-scheduler. Both are controllers,
// which run 1 replica, 2 with high availability (replicas.HighAvailability).
type Controller struct {
	// Image is the image vector name.
	Image string
	// PriorityClass is the pods' PriorityClass.
	PriorityClass string
	// HealthPort serves /healthz and /readyz over HTTP, MetricsPort /metrics.
	HealthPort, MetricsPort int32
	// CPU and Memory are the container's requests.
	CPU, Memory string
}

// ControllerObjects renders a Controller with its configuration config and the rules it needs in
// the virtual garden: in the runtime cluster its access Secret, the ConfigMap with the
// configuration (ComponentConfig), its Deployment, its metrics Service and its
// PodDisruptionBudget; in the virtual garden its ClusterRole with rules, bound to its
// ServiceAccount, followed by virtual.
func (r Resolved) ControllerObjects(c Controller, config map[string]any, rules []rbacv1.PolicyRule, virtual ...runtime.Object) ([]render.Object, error) {
	configMap, checksum, err := r.ComponentConfig(config)
	if err != nil {
		return nil, err
	}
	deployment, err := r.controllerDeployment(c, checksum)
	if err != nil {
		return nil, err
	}
	objs, err := Place(r.Cluster.Name, r.Access().Secret(), configMap, deployment, r.MetricsService(c.MetricsPort), r.PodDisruptionBudget())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Component, err)
	}
	role, binding := r.ClusterRole(rules)
	virtualObjs, err := Place(r.VirtualCluster.Name, append([]runtime.Object{role, binding}, virtual...)...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Component, err)
	}
	return append(objs, virtualObjs...), nil
}

// controllerDeployment is the Deployment of a Controller: one container running with --config,
// the configuration (its checksum on the pods) and the virtual garden kubeconfig mounted.
func (r Resolved) controllerDeployment(c Controller, checksum string) (*appsv1.Deployment, error) {
	return r.Deployment(c.Image, ptr.To(replicas.HighAvailability(r.HighAvailability)), c.PriorityClass,
		map[string]string{ConfigChecksumAnnotation: checksum},
		corev1.Container{
			Args: []string{"--config=" + ConfigDir + "/" + ConfigKey},
			Ports: []corev1.ContainerPort{
				{Name: "healthz", ContainerPort: c.HealthPort, Protocol: corev1.ProtocolTCP},
				{Name: "metrics", ContainerPort: c.MetricsPort, Protocol: corev1.ProtocolTCP},
			},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse(c.CPU),
				corev1.ResourceMemory: resource.MustParse(c.Memory),
			}},
			LivenessProbe:  HealthProbe("/healthz", c.HealthPort),
			ReadinessProbe: HealthProbe("/readyz", c.HealthPort),
			VolumeMounts:   []corev1.VolumeMount{ConfigMount(), r.Access().Mount()},
		},
		r.ConfigVolume(), r.Access().Volume())
}

// Deployment is the component's Deployment: replicas pods (nil leaves the count to an
// autoscaler) with the component's labels, replaced one at a time, the new one first
// (RollingUpdate), keeping two old ReplicaSets, spread like TopologySpread, without a token for
// the runtime cluster (the components work in the virtual garden), running container with the
// image vector's image, named after the component and unprivileged, and volumes; podAnnotations
// go on the pod template.
func (r Resolved) Deployment(image string, replicas *int32, priorityClass string, podAnnotations map[string]string, container corev1.Container, volumes ...corev1.Volume) (*appsv1.Deployment, error) {
	ref, err := images.Of(r.Images, image, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Component, err)
	}
	container.Name, container.Image, container.SecurityContext = r.Component, ref, kube.Unprivileged()
	labels := Labels(Role(r.Component))
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: r.Component, Namespace: r.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas:             replicas,
			RevisionHistoryLimit: ptr.To(int32(2)),
			Selector:             &metav1.LabelSelector{MatchLabels: labels},
			Strategy:             RollingUpdate(),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: podAnnotations},
				Spec: corev1.PodSpec{
					AutomountServiceAccountToken: ptr.To(false),
					PriorityClassName:            priorityClass,
					TopologySpreadConstraints:    r.TopologySpread(),
					Containers:                   []corev1.Container{container},
					Volumes:                      volumes,
				},
			},
		},
	}, nil
}

// HealthProbe probes a component's health endpoint path over HTTP on port, every 10 seconds,
// failing after 3 probes in a row.
func HealthProbe(path string, port int32) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
		Path: path, Port: intstr.FromInt32(port), Scheme: corev1.URISchemeHTTP,
	}}, PeriodSeconds: 10, FailureThreshold: 3}
}

// MetricsService is the Service of a Controller, exposing its metrics port.
func (r Resolved) MetricsService(port int32) *corev1.Service {
	return r.Service(corev1.ServicePort{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: port, TargetPort: intstr.FromInt32(port)})
}

// ControllerConfig is what the component configurations of gardener-controller-manager and
// gardener-scheduler share (ControllerManagerConfiguration in
// pkg/controllermanager/apis/config/v1alpha1/types.go, SchedulerConfiguration in
// pkg/scheduler/apis/config/v1alpha1/types.go in gardener/gardener at v1.120.0): the
// configuration's apiVersion and kind, the client connection to the virtual garden under
// clientConnectionKey (gardenClientConnection in the controller manager's, clientConnection in the
// scheduler's), leader election, JSON logs at the component's log level, the health probe and
// metrics servers and the feature gates. The caller adds its controllers.
func (r Resolved) ControllerConfig(apiVersion, kind, clientConnectionKey string, healthPort, metricsPort int) map[string]any {
	out := map[string]any{
		"apiVersion":        apiVersion,
		"kind":              kind,
		clientConnectionKey: ClientConnection(),
		"leaderElection":    LeaderElection(),
		"logLevel":          r.LogLevel,
		"logFormat":         "json",
		"server": map[string]any{
			"healthProbes": map[string]any{"port": healthPort},
			"metrics":      map[string]any{"port": metricsPort},
		},
	}
	if gates := FeatureGatesConfig(r.FeatureGates); gates != nil {
		out["featureGates"] = gates
	}
	return out
}

// ClientConnection is the client connection section of a component configuration for the
// virtual garden.
func ClientConnection() map[string]any {
	return map[string]any{"kubeconfig": KubeconfigPath, "qps": 100, "burst": 130}
}

// LeaderElection is the leader election section of a component configuration: the Lease lives
// in the virtual garden's garden namespace.
func LeaderElection() map[string]any {
	return map[string]any{"leaderElect": true, "resourceNamespace": DefaultNamespace}
}

// RollingUpdate replaces pods one at a time, starting the new one before stopping the old.
func RollingUpdate() appsv1.DeploymentStrategy {
	one := intstr.FromInt32(1)
	zero := intstr.FromInt32(0)
	return appsv1.DeploymentStrategy{
		Type:          appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &one, MaxUnavailable: &zero},
	}
}
