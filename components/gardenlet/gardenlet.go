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

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Names of the rendered and referenced objects.
const (
	// Name is the Deployment's, ServiceAccount's and Service's name (Gardener's
	// docs/deployment/deploy_gardenlet_manually.md).
	Name             = "gardenlet"
	DefaultNamespace = "garden"
	// BootstrapKubeconfigSecretName holds the bootstrap kubeconfig (Gardener's
	// docs/deployment/deploy_gardenlet_manually.md).
	BootstrapKubeconfigSecretName = "gardenlet-bootstrap-kubeconfig"
	// KubeconfigSecretName is where gardenlet stores the kubeconfig with its client certificate
	// (Gardener's docs/deployment/deploy_gardenlet_manually.md); gardenlet creates and rotates it.
	KubeconfigSecretName = "gardenlet-kubeconfig"
	// ConfigMapName holds the GardenletConfiguration.
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
	// HighAvailability runs 2 replicas spread over nodes and zones, with a PodDisruptionBudget,
	// instead of 1 (replicaCount and failureToleranceType of the chart, Gardener's
	// docs/deployment/deploy_gardenlet_manually.md).
	HighAvailability bool `json:"high_availability"`
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

// Objects renders gardenlet's ServiceAccount and RBAC, the bootstrap kubeconfig Secret (when a
// bootstrap kubeconfig is given), the configuration ConfigMap, the Deployment, the metrics
// Service and, with high availability, a PodDisruptionBudget.
func Objects(v Values) ([]render.Object, error) {
	if err := validate(&v); err != nil {
		return nil, err
	}
	config, err := configuration(v)
	if err != nil {
		return nil, err
	}
	d, err := deployment(v, config)
	if err != nil {
		return nil, err
	}
	typed := rbac(v.Namespace)
	if v.BootstrapKubeconfig != "" {
		typed = append(typed, bootstrapSecret(v))
	}
	typed = append(typed, configMap(v.Namespace, config), d, service(v.Namespace))
	if v.HighAvailability {
		typed = append(typed, disruption.Budget(v.Namespace, Name, SelectorLabels()))
	}
	return kube.Typed(v.Cluster.Name, typed...)
}

func validate(v *Values) error {
	if errs := validation.IsDNS1123Label(v.Namespace); len(errs) > 0 {
		return fmt.Errorf("gardenlet namespace %q: %s", v.Namespace, errs[0])
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

// objectsOf lists typed objects, so that rbac reads as one literal.
func objectsOf(objs ...runtime.Object) []runtime.Object { return objs }
