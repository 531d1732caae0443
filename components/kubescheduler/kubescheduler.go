// Package kubescheduler renders the kube_scheduler component: a shoot control plane's
// kube-scheduler in the shoot namespace of the seed, as gardenlet deploys it
// (pkg/component/kubernetes/scheduler/scheduler.go in gardener/gardener v1.120.0). It reaches the
// shoot's kube-apiserver through the generic token kubeconfig and the token of the shoot's
// ServiceAccount kube-system/kube-scheduler, which the shoot's gardener-resource-manager writes
// into the token-requestor Secret, and is bound to the scheduler's ClusterRoles in the shoot.
package kubescheduler

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/version"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Names of the rendered objects (pkg/component/kubernetes/scheduler/scheduler.go in
// gardener/gardener v1.120.0).
const (
	// Name is the Deployment's, container's, Service's and PodDisruptionBudget's name (Gardener's
	// docs/extensions/controlplane-webhooks.md).
	Name = "kube-scheduler"
	// DefaultAccessSecretName is the token-requestor Secret whose token the scheduler reads next
	// to the generic kubeconfig (shoot-access-<component>).
	DefaultAccessSecretName = "shoot-access-kube-scheduler"
	// ConfigMapPrefix starts the name of the ConfigMap with the KubeSchedulerConfiguration;
	// the checksum of its data ends it, as Gardener makes such ConfigMaps unique and immutable.
	ConfigMapPrefix = "kube-scheduler-config"
	// DefaultServerTLSSecretName is the serving certificate of the secure port, signed by the
	// cluster CA, named as Gardener names it.
	DefaultServerTLSSecretName = "kube-scheduler-server"
	// DefaultClientCASecretName is the client CA whose certificate verifies client certificates
	// on the secure port.
	DefaultClientCASecretName = "ca-client"
	// VPAName is the VerticalPodAutoscaler's name.
	VPAName = "kube-scheduler-vpa"
	// ShootRBACName is the ManagedResource with the scheduler's ClusterRoleBindings in the shoot.
	ShootRBACName = "shoot-core-kube-scheduler"
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
	// KubeMaxPDVols, when set, is the KUBE_MAX_PD_VOLS environment variable: the most volumes
	// the scheduler places on one node (Gardener's KubeSchedulerConfig in docs/api-reference/core.md).
	KubeMaxPDVols string `json:"kube_max_pd_vols"`
	// GenericKubeconfigSecretName holds the shoot's generic token kubeconfig (key kubeconfig) and
	// AccessSecretName the token-requestor Secret whose token it reads; both are projected into
	// the directory gardenlet mounts them in (InjectGenericKubeconfig of
	// pkg/utils/gardener/shoot.go in gardener/gardener v1.120.0).
	GenericKubeconfigSecretName string `json:"generic_kubeconfig_secret_name"`
	AccessSecretName            string `json:"access_secret_name"`
	// ClientCASecretName holds the client CA (ca.crt) that the secure port trusts.
	ClientCASecretName string `json:"client_ca_secret_name"`
	// ServerTLSSecretName holds the serving certificate (tls.crt, tls.key) of the secure port.
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

// Objects renders what gardenlet deploys for a shoot's kube-scheduler (Deploy in
// pkg/component/kubernetes/scheduler/scheduler.go, gardener/gardener v1.120.0): the unique
// configuration ConfigMap, the metrics Service, the token-requestor Secret, the Deployment, its
// PodDisruptionBudget and VerticalPodAutoscaler, and the ManagedResource with the scheduler's
// ClusterRoleBindings in the shoot.
func Objects(v Values) ([]render.Object, error) {
	if err := validate(&v); err != nil {
		return nil, err
	}
	cm, err := configMap(v)
	if err != nil {
		return nil, err
	}
	d, err := deployment(v, cm.Name)
	if err != nil {
		return nil, err
	}
	access := shootaccess.Access{Namespace: v.Namespace, Component: Name, AccessSecretName: v.AccessSecretName}
	typed := []runtime.Object{cm, service(v), access.Secret(), d, disruption.Budget(v.Namespace, Name, SelectorLabels())}
	objs, err := kube.Typed(v.Cluster.Name, typed...)
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
	objs = append(objs, kube.On(v.Cluster.Name, "", verticalPodAutoscaler(v.Namespace))...)
	shoot, err := shootRBAC(v)
	if err != nil {
		return nil, err
	}
	return append(objs, shoot...), nil
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
