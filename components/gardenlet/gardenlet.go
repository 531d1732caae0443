// Package gardenlet renders the gardenlet component: gardenlet as deployed into a seed cluster's
// garden namespace, the objects the gardenlet Helm chart creates (Gardener's "Deploy Gardenlet
// Manually" docs/deployment/deploy_gardenlet_manually.md): its ServiceAccount and RBAC, the
// bootstrap kubeconfig Secret, its GardenletConfiguration with the seed's spec (Gardener's
// "gardenlet" docs/concepts/gardenlet.md) and the Deployment. On start gardenlet bootstraps a
// client certificate for the garden with the bootstrap kubeconfig, stores its own kubeconfig in the
// Secret gardenlet-kubeconfig and deletes the bootstrap Secret (Gardener's
// docs/concepts/gardenlet.md), then registers the Seed.
package gardenlet

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Names of the rendered and referenced objects.
const (
	// Name is the Deployment's, ServiceAccount's and Service's name (Gardener's
	// docs/deployment/deploy_gardenlet_manually.md).
	Name             = "gardenlet"
	DefaultNamespace = "garden"
	// BootstrapKubeconfigSecretName holds the bootstrap kubeconfig, the name gardener-operator and
	// the ManagedSeed controller give it (GardenletDefaultKubeconfigBootstrapSecretName in
	// pkg/controller/gardenletdeployer/actuator.go of gardener/gardener v1.120.0).
	BootstrapKubeconfigSecretName = "gardenlet-kubeconfig-bootstrap"
	// KubeconfigSecretName is where gardenlet stores the kubeconfig with its client certificate
	// (Gardener's docs/deployment/deploy_gardenlet_manually.md); gardenlet creates and rotates it.
	KubeconfigSecretName = "gardenlet-kubeconfig"
	// ConfigMapName is the stem of the name of the ConfigMap with the GardenletConfiguration,
	// gardenlet-configmap-<checksum>.
	ConfigMapName = "gardenlet-configmap"
	// ClusterRoleName is gardenlet's cluster-wide role in the seed.
	ClusterRoleName = "gardener.cloud:system:gardenlet"
	// LeaderElectionName is the leader-election Lease and the Role that allows using it.
	LeaderElectionName = "gardenlet-leader-election"
)

// Log levels gardenlet accepts; the first is the default.
var logLevels = []string{"info", "debug", "error"}

// Values are the component's typed inputs; zero values mean the documented defaults.
type Values struct {
	// Cluster is the seed cluster gardenlet runs in.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace of gardenlet (Gardener's docs/deployment/deploy_gardenlet_manually.md).
	Namespace string `json:"namespace"`
	// Images overrides image vector entries by name (gardenlet).
	Images map[string]string `json:"images"`
	// Replicas is the chart's replicaCount, 2 by default as gardener-operator and the ManagedSeed
	// controller deploy gardenlet (SetDefaults_GardenletDeployment in
	// pkg/apis/seedmanagement/v1alpha1/defaults_managedseed.go). More than one replica are spread
	// over nodes and, on a seed with several zones, over zones, with a PodDisruptionBudget.
	Replicas int32 `json:"replicas"`
	// SeedName is the name of the Seed gardenlet registers (seedConfig.metadata.name); required.
	SeedName string `json:"seed_name"`
	// SeedLabels are the Seed's labels; gardenlet adds gardener.cloud/role=seed (Gardener's
	// docs/deployment/deploy_gardenlet_manually.md).
	SeedLabels map[string]string `json:"seed_labels"`
	// SeedSpec is the Seed's spec as the Seed API spells it (camelCase keys), passed through as
	// seedConfig.spec (Gardener's docs/concepts/gardenlet.md); required.
	SeedSpec map[string]any `json:"seed_spec"`
	// GardenClusterAddress is the garden API's external address gardenlet (and what it deploys)
	// uses; "" leaves it to the kubeconfig's server.
	GardenClusterAddress string `json:"garden_cluster_address"`
	// GardenCABundle is the garden API's CA (gardenClientConnection.gardenClusterCACert,
	// Gardener's docs/deployment/deploy_gardenlet_manually.md): PEM (base64-encoded here), or text
	// already base64-encoded (a render.GeneratedRef marker with base64 set, render.UnknownString). ""
	// leaves it unset.
	GardenCABundle string `json:"garden_ca_bundle"`
	// BootstrapKubeconfig is a kubeconfig for the garden with a bootstrap token that may create
	// CertificateSigningRequests (Gardener's docs/concepts/gardenlet.md,
	// docs/deployment/deploy_gardenlet_manually.md). "" renders no bootstrap Secret: gardenlet then
	// needs its gardenlet-kubeconfig Secret to exist already.
	BootstrapKubeconfig string `json:"bootstrap_kubeconfig"`
	// FeatureGates switch gardenlet's feature gates on or off (Gardener's "Feature Gates"
	// docs/deployment/feature_gates.md).
	FeatureGates map[string]bool `json:"feature_gates"`
	// LogLevel is info, debug or error.
	LogLevel string `json:"log_level"`
	// Controllers is the GardenletConfiguration's controllers section as gardenlet spells it
	// (shoot.syncPeriod, shootCare.syncPeriod, backupEntry.deletionGracePeriodHours, ...);
	// nil keeps gardenlet's defaults (Gardener's docs/concepts/gardenlet.md).
	Controllers map[string]any `json:"controllers"`
	// ExposureClassHandlers is the GardenletConfiguration's exposureClassHandlers list as
	// gardenlet spells it ({name, loadBalancerService.annotations, sni.ingress{namespace,
	// labels}}, Gardener's "ExposureClasses" docs/usage/networking/exposureclasses.md): how the seed
	// realises the handler of an ExposureClass. The seed composite fills it from its
	// exposure_class_handler blocks.
	ExposureClassHandlers []any `json:"-"`
}

// Type is the gardenlet component type as the catalog registers it: its schema (schema.go) and its
// render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders the objects of the gardenlet Helm chart as gardener-operator and the ManagedSeed
// controller install it (charts/gardener/gardenlet/templates of gardener/gardener v1.120.0):
// gardenlet's ServiceAccount and RBAC, the bootstrap kubeconfig Secret (when a bootstrap
// kubeconfig is given), the content-addressed configuration ConfigMap, the Deployment, the metrics
// Service, the NetworkPolicy that opens its egress and, with more than one replica, a
// PodDisruptionBudget. The chart's PriorityClass gardener-system-critical comes with the seed's
// priority classes.
func Objects(v Values) ([]render.Object, error) {
	if err := validate(&v); err != nil {
		return nil, err
	}
	config, err := configuration(v)
	if err != nil {
		return nil, err
	}
	cm := configMap(v.Namespace, config)
	var bootstrap *corev1.Secret
	checksum := ""
	if v.BootstrapKubeconfig != "" {
		bootstrap = bootstrapSecret(v)
		checksum = bootstrapChecksum(bootstrap)
	}
	d, err := deployment(v, cm.Name, checksum)
	if err != nil {
		return nil, err
	}
	typed, err := rbac(v.Namespace)
	if err != nil {
		return nil, err
	}
	if bootstrap != nil {
		typed = append(typed, bootstrap)
	}
	typed = append(typed, cm, d, service(v.Namespace), networkPolicy(v.Namespace))
	if v.Replicas > 1 {
		typed = append(typed, podDisruptionBudget(v.Namespace))
	}
	objs, err := kube.Typed(v.Cluster.Name, typed...)
	if err != nil {
		return nil, err
	}
	unique.MarkVersions(objs, "ConfigMap", ConfigMapName)
	return objs, nil
}

// podDisruptionBudget lets one of several replicas go at a time; it selects by all the chart's
// labels (poddisruptionbudget.yaml of the chart).
func podDisruptionBudget(ns string) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: meta(Name, ns, chartLabels()),
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable:             ptr.To(intstr.FromInt32(1)),
			Selector:                   &metav1.LabelSelector{MatchLabels: chartLabels()},
			UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
		},
	}
}

// bootstrapChecksum is the checksum of the bootstrap Secret's content, which rolls gardenlet's pods
// when the Secret changes (checksum/secret-gardenlet-kubeconfig-garden-bootstrap of the chart).
func bootstrapChecksum(s *corev1.Secret) string {
	return checksum(s.Name + "\n" + s.StringData["kubeconfig"])
}

func validate(v *Values) error {
	if errs := validation.IsDNS1123Label(v.Namespace); len(errs) > 0 {
		return fmt.Errorf("gardenlet namespace %q: %s", v.Namespace, errs[0])
	}
	if v.Replicas < 0 {
		return fmt.Errorf("gardenlet replicas %d is negative", v.Replicas)
	}
	if v.SeedName == "" {
		return fmt.Errorf("gardenlet seed name is required")
	}
	if errs := validation.IsDNS1123Label(v.SeedName); len(errs) > 0 {
		return fmt.Errorf("gardenlet seed name %q: %s", v.SeedName, errs[0])
	}
	if len(v.SeedSpec) == 0 {
		return fmt.Errorf("gardenlet seed spec is required")
	}
	if !slices.Contains(logLevels, v.LogLevel) {
		return fmt.Errorf("gardenlet log level %q is not one of info, debug, error", v.LogLevel)
	}
	return nil
}
