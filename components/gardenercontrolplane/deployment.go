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
)

// Controller describes the Deployment of a component that reads one component configuration
// file and talks only to the virtual garden: gardener-controller-manager and gardener-scheduler.
type Controller struct {
	// Image is the image vector name.
	Image string
	// PriorityClass is the pods' PriorityClass.
	PriorityClass string
	// Replicas is the replica count.
	Replicas int32
	// HealthPort serves /healthz and /readyz over HTTP, MetricsPort /metrics.
	HealthPort, MetricsPort int32
	// CPU and Memory are the container's requests.
	CPU, Memory string
	// Checksum is the configuration's checksum from ComponentConfig.
	Checksum string
}

// ControllerDeployment builds the Deployment of a Controller: one container running with
// --config, the configuration and the virtual garden kubeconfig mounted, no runtime cluster token.
func (r Resolved) ControllerDeployment(c Controller) (*appsv1.Deployment, error) {
	image, err := images.Of(r.Images, c.Image, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Component, err)
	}
	labels := Labels(Role(r.Component))
	no := false
	history := int32(2)
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: path, Port: intstr.FromInt32(c.HealthPort), Scheme: corev1.URISchemeHTTP,
		}}, PeriodSeconds: 10, FailureThreshold: 3}
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: r.Component, Namespace: r.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas:             &c.Replicas,
			RevisionHistoryLimit: &history,
			Selector:             &metav1.LabelSelector{MatchLabels: labels},
			Strategy:             RollingUpdate(),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{ConfigChecksumAnnotation: c.Checksum}},
				Spec: corev1.PodSpec{
					AutomountServiceAccountToken: &no,
					PriorityClassName:            c.PriorityClass,
					TopologySpreadConstraints:    r.TopologySpread(),
					Containers: []corev1.Container{{
						Name:  r.Component,
						Image: image,
						Args:  []string{"--config=" + ConfigDir + "/" + ConfigKey},
						Ports: []corev1.ContainerPort{
							{Name: "healthz", ContainerPort: c.HealthPort, Protocol: corev1.ProtocolTCP},
							{Name: "metrics", ContainerPort: c.MetricsPort, Protocol: corev1.ProtocolTCP},
						},
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse(c.CPU),
							corev1.ResourceMemory: resource.MustParse(c.Memory),
						}},
						LivenessProbe:   probe("/healthz"),
						ReadinessProbe:  probe("/readyz"),
						SecurityContext: kube.Unprivileged(),
						VolumeMounts:    []corev1.VolumeMount{ConfigMount(), r.Access().Mount()},
					}},
					Volumes: []corev1.Volume{r.ConfigVolume(), r.Access().Volume()},
				},
			},
		},
	}, nil
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
