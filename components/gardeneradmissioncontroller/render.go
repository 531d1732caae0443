package gardeneradmissioncontroller

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/render"
	"k8s.io/utils/ptr"
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
	c, err := gardenercontrolplane.ResolveComponent(v, Name, validate)
	if err != nil {
		return nil, err
	}
	r := resolved(c)
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

// deployment runs the admission controller with its configuration, like the controllers
// (gardenercontrolplane.Controller), and serves the webhooks with its certificate.
func (r resolved) deployment(checksum string) (*appsv1.Deployment, error) {
	return r.Deployment(images.GardenerAdmissionController, ptr.To(int32(Replicas)),
		priorityclasses.GardenSystem400, // Gardener's docs/development/priority-classes.md
		map[string]string{gardenercontrolplane.ConfigChecksumAnnotation: checksum},
		corev1.Container{
			Args: []string{"--config=" + gardenercontrolplane.ConfigDir + "/" + gardenercontrolplane.ConfigKey},
			Ports: []corev1.ContainerPort{
				{Name: "https", ContainerPort: WebhookPort, Protocol: corev1.ProtocolTCP},
				{Name: "healthz", ContainerPort: HealthProbePort, Protocol: corev1.ProtocolTCP},
				{Name: "metrics", ContainerPort: MetricsPort, Protocol: corev1.ProtocolTCP},
			},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("100m"),
				corev1.ResourceMemory: resource.MustParse("128Mi"),
			}},
			LivenessProbe:  gardenercontrolplane.HealthProbe("/healthz", HealthProbePort),
			ReadinessProbe: gardenercontrolplane.HealthProbe("/readyz", HealthProbePort),
			VolumeMounts: []corev1.VolumeMount{
				gardenercontrolplane.ConfigMount(),
				r.Access().Mount(),
				{Name: "tls", MountPath: certDir, ReadOnly: true},
			},
		},
		r.ConfigVolume(),
		r.Access().Volume(),
		corev1.Volume{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: r.Values.TLSSecretName}}},
	)
}
