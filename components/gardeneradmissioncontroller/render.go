package gardeneradmissioncontroller

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Replicas: the admission controller is a server, which Gardener runs with 2 replicas whatever
// the failure tolerance (Gardener's "Gardener Resource Manager" docs/concepts/resource-manager.md,
// "High Availability Of Components" docs/development/high-availability-of-components.md).
const Replicas = 2

// Type is the gardener_admission_controller component type as the catalog registers it: its schema
// (schema.go) and its render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// resolved are the admission controller's values with their Common resolved.
type resolved gardenercontrolplane.Component[Values]

func resolve(v Values) (resolved, error) {
	c, err := gardenercontrolplane.ResolveComponent(v, Name, validate)
	return resolved(c), err
}

// validate checks the admission controller's own values.
func validate(v *Values) error {
	if v.ResourceSizeMode != "block" && v.ResourceSizeMode != "log" {
		return fmt.Errorf("resource size mode %q is not one of block, log", v.ResourceSizeMode)
	}
	if err := validateLimits(v.ResourceSizeLimits); err != nil {
		return err
	}
	return validateSubjects(v.UnrestrictedSubjects)
}

// Objects renders the runtime cluster objects followed by the virtual garden objects.
func Objects(v Values) ([]render.Object, error) {
	r, err := resolve(v)
	if err != nil {
		return nil, err
	}
	configMap, checksum, err := r.ComponentConfig(r.config())
	if err != nil {
		return nil, err
	}
	deployment, err := r.deployment(checksum)
	if err != nil {
		return nil, err
	}
	objs, err := gardenercontrolplane.Place(r.Cluster.Name,
		r.Access().Secret(),
		configMap,
		deployment,
		r.Service(
			corev1.ServicePort{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromInt32(WebhookPort)},
			corev1.ServicePort{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: MetricsPort, TargetPort: intstr.FromInt32(MetricsPort)},
		),
		r.PodDisruptionBudget(),
	)
	if err != nil {
		return nil, fmt.Errorf("gardener-admission-controller: %w", err)
	}
	role, binding := r.ClusterRole(rules())
	virtual := []runtime.Object{role, binding}
	var webhookConfig runtime.Object
	if r.Values.AdmissionWebhooks {
		cfg := r.webhookConfiguration()
		webhookConfig = cfg
		virtual = append(virtual, cfg)
	}
	vobjs, err := gardenercontrolplane.Place(r.VirtualCluster.Name, virtual...)
	if err != nil {
		return nil, fmt.Errorf("gardener-admission-controller: %w", err)
	}
	if webhookConfig != nil {
		if err := setCABundle(vobjs[len(vobjs)-1].Object, r.Values.CABundle); err != nil {
			return nil, fmt.Errorf("gardener-admission-controller: ca bundle: %w", err)
		}
	}
	return append(objs, vobjs...), nil
}

// rules let the handlers and the SeedAuthorizer's resource graph read what they decide on: the
// Gardener API groups and the Kubernetes kinds of Gardener's "Scoped API Access for gardenlets and
// Extensions" docs/deployment/gardenlet_api_access.md.
func rules() []rbacv1.PolicyRule {
	read := []string{"get", "list", "watch"}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps", "namespaces", "secrets", "serviceaccounts"}, Verbs: read},
		{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"certificatesigningrequests"}, Verbs: read},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: read},
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterrolebindings"}, Verbs: read},
		{APIGroups: []string{
			"core.gardener.cloud", "operations.gardener.cloud", "security.gardener.cloud", "seedmanagement.gardener.cloud", "settings.gardener.cloud",
		}, Resources: []string{"*"}, Verbs: read},
	}
}

func (r resolved) deployment(checksum string) (*appsv1.Deployment, error) {
	image, err := images.Of(r.Images, images.GardenerAdmissionController, "")
	if err != nil {
		return nil, fmt.Errorf("gardener-admission-controller: %w", err)
	}
	labels := gardenercontrolplane.Labels(gardenercontrolplane.Role(Name))
	no := false
	replicas := int32(Replicas)
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: path, Port: intstr.FromInt32(HealthProbePort), Scheme: corev1.URISchemeHTTP,
		}}, PeriodSeconds: 10, FailureThreshold: 3}
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: r.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas:             &replicas,
			RevisionHistoryLimit: &[]int32{2}[0],
			Selector:             &metav1.LabelSelector{MatchLabels: labels},
			Strategy:             gardenercontrolplane.RollingUpdate(),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{gardenercontrolplane.ConfigChecksumAnnotation: checksum}},
				Spec: corev1.PodSpec{
					AutomountServiceAccountToken: &no,
					PriorityClassName:            priorityclasses.GardenSystem400, // Gardener's docs/development/priority-classes.md
					TopologySpreadConstraints:    r.TopologySpread(),
					Containers: []corev1.Container{{
						Name:  Name,
						Image: image,
						Args:  []string{"--config=" + gardenercontrolplane.ConfigDir + "/" + gardenercontrolplane.ConfigKey},
						Ports: []corev1.ContainerPort{
							{Name: "https", ContainerPort: WebhookPort, Protocol: corev1.ProtocolTCP},
							{Name: "healthz", ContainerPort: HealthProbePort, Protocol: corev1.ProtocolTCP},
							{Name: "metrics", ContainerPort: MetricsPort, Protocol: corev1.ProtocolTCP},
						},
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("100m"),
							corev1.ResourceMemory: resource.MustParse("128Mi"),
						}},
						LivenessProbe:   probe("/healthz"),
						ReadinessProbe:  probe("/readyz"),
						SecurityContext: kube.Unprivileged(),
						VolumeMounts: []corev1.VolumeMount{
							gardenercontrolplane.ConfigMount(),
							r.Access().Mount(),
							{Name: "tls", MountPath: certDir, ReadOnly: true},
						},
					}},
					Volumes: []corev1.Volume{
						r.ConfigVolume(),
						r.Access().Volume(),
						{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: r.Values.TLSSecretName}}},
					},
				},
			},
		},
	}, nil
}
