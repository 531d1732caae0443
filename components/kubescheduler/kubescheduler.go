// Package kubescheduler renders the kube_scheduler component: a shoot control plane's
// kube-scheduler, a Deployment named kube-scheduler with a container of that name in the shoot
// namespace of the seed (Gardener's "ControlPlane Webhooks"
// docs/extensions/controlplane-webhooks.md), and the token-requestor access Secret through which it
// reaches the shoot's kube-apiserver.
package kubescheduler

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/version"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Names of the rendered objects.
const (
	// Name is the Deployment's, container's and Service's name (Gardener's
	// docs/extensions/controlplane-webhooks.md).
	Name = "kube-scheduler"
	// DefaultAccessSecretName is the token-requestor Secret with the scheduler's kubeconfig, as
	// Gardener names shoot access Secrets (shoot-access-<component>).
	DefaultAccessSecretName = "shoot-access-kube-scheduler"
	// ConfigMapName holds the KubeSchedulerConfiguration.
	ConfigMapName = "kube-scheduler-config"
	// DefaultCASecretName is the Secret with the shoot's cluster CA (ca.crt).
	DefaultCASecretName = "ca"
	// Port is the secure port, which serves /healthz and /metrics.
	Port = 10259
)

// The scheduling profiles (Gardener's "Shoot Scheduling Profiles"
// docs/usage/shoot/shoot_scheduling_profiles.md).
const (
	ProfileBalanced   = "balanced"
	ProfileBinPacking = "bin-packing"
)

// minVersion is the oldest Kubernetes version with kubescheduler.config.k8s.io/v1.
var minVersion = version.MustParseGeneric("1.25.0")

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	// Cluster is the seed cluster the control plane runs in.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace is the shoot namespace in the seed, shoot--<project>--<name>; required.
	Namespace string `json:"namespace"`
	// Images overrides image vector entries by name (kube-scheduler).
	Images map[string]string `json:"images"`
	// KubernetesVersion (MAJOR.MINOR.PATCH) of the shoot tags the image; required.
	KubernetesVersion string `json:"kubernetes_version"`
	// HighAvailability runs 2 leader-electing replicas spread over nodes and zones instead of 1:
	// the control plane's controllers with failure tolerance node or zone (Gardener's "High
	// Availability Of Components" docs/development/high-availability-of-components.md).
	HighAvailability bool `json:"high_availability"`
	// Profile is balanced or bin-packing (Gardener's KubeSchedulerConfig in
	// docs/api-reference/core.md).
	Profile string `json:"profile"`
	// FeatureGates switch Kubernetes feature gates on or off.
	FeatureGates map[string]bool `json:"feature_gates"`
	// AccessSecretName names the token-requestor Secret rendered with the kubeconfig.
	AccessSecretName string `json:"access_secret_name"`
	// CASecretName names the Secret in Namespace with the shoot's cluster CA (ca.crt), which the
	// kubeconfig trusts. Ignored when CABundle is set.
	CASecretName string `json:"ca_secret_name"`
	// CABundle is the shoot's cluster CA instead: PEM (base64-encoded here), or text already fit
	// for certificate-authority-data (base64, a render.GeneratedRef marker with base64 set,
	// render.UnknownString).
	CABundle string `json:"ca_bundle"`
	// ServerTLSSecretName names a kubernetes.io/tls Secret (tls.crt, tls.key) the secure port
	// serves with; "" lets kube-scheduler serve with a self-signed certificate.
	ServerTLSSecretName string `json:"server_tls_secret_name"`
	// PriorityClassName of the pods; "" means gardener-system-300, the class of kube-scheduler in
	// a shoot control plane (Gardener's "Priority Classes" docs/development/priority-classes.md). Set
	// from Go only, for composites that run it elsewhere.
	PriorityClassName string `json:"-"`
	// Hibernated scales the component to zero replicas: Gardener scales every control-plane
	// component in the shoot namespace to zero when a shoot hibernates, keeping etcd's volumes
	// (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component Checklist"
	// docs/development/component-checklist.md).
	Hibernated bool `json:"-"`
}

// Type is the kube_scheduler component type as the catalog registers it: its schema (schema.go) and
// its render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders the access Secret, the configuration ConfigMap, the metrics Service, the
// Deployment and, with high availability, a PodDisruptionBudget.
func Objects(v Values) ([]render.Object, error) {
	if err := validate(&v); err != nil {
		return nil, err
	}
	access, err := accessSecret(v)
	if err != nil {
		return nil, err
	}
	cm, err := configMap(v)
	if err != nil {
		return nil, err
	}
	d, err := deployment(v, cm.Data[configKey])
	if err != nil {
		return nil, err
	}
	typed := []runtime.Object{access, cm, service(v), d}
	if v.HighAvailability {
		typed = append(typed, disruption.Budget(v.Namespace, Name, SelectorLabels()))
	}
	return kube.Typed(v.Cluster.Name, typed...)
}

// validate checks the values and fills in the priority class, which only Go sets.
func validate(v *Values) error {
	if v.Namespace == "" {
		return fmt.Errorf("kube-scheduler namespace is required")
	}
	if errs := validation.IsDNS1123Label(v.Namespace); len(errs) > 0 {
		return fmt.Errorf("kube-scheduler namespace %q: %s", v.Namespace, errs[0])
	}
	if v.KubernetesVersion == "" {
		return fmt.Errorf("kube-scheduler kubernetes version is required")
	}
	kv, err := version.ParseGeneric(v.KubernetesVersion)
	if err != nil {
		return fmt.Errorf("kube-scheduler kubernetes version %q: %w", v.KubernetesVersion, err)
	}
	if kv.LessThan(minVersion) {
		return fmt.Errorf("kube-scheduler kubernetes version %q: older than %s, the first with kubescheduler.config.k8s.io/v1", v.KubernetesVersion, minVersion)
	}
	if !slices.Contains([]string{ProfileBalanced, ProfileBinPacking}, v.Profile) {
		return fmt.Errorf("kube-scheduler profile %q is not one of balanced, bin-packing", v.Profile)
	}
	if v.PriorityClassName == "" {
		// Gardener's docs/development/priority-classes.md: gardener-system-300 for kube-scheduler.
		v.PriorityClassName = priorityclasses.System300
	}
	return nil
}
