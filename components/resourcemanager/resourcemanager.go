// Package resourcemanager renders the gardener_resource_manager component: the garden runtime
// cluster's gardener-resource-manager (GRM), which gardener-operator deploys first because its
// ManagedResource controller brings up the remaining garden system components (Gardener's "Gardener
// Operator" docs/concepts/operator.md). It comprises the ManagedResource CRD, RBAC, the component
// configuration, the Deployment with its Service and PodDisruptionBudget, and the GRM's admission
// webhooks (Gardener's "Gardener Resource Manager" docs/concepts/resource-manager.md).
//
// With Values.Shoot it renders a shoot's own GRM instead, as gardenlet deploys it
// (pkg/component/gardener/resourcemanager and pkg/component/shared/resourcemanager.go at
// gardener/gardener v1.120.0): namespaced objects only, in the shoot's control-plane namespace of
// the seed, applying ManagedResources into the shoot with an identity of its own there (see
// ShootTarget).
package resourcemanager

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/crds"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/autoscaler"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Name is the name of the Deployment, Service, ServiceAccount, RBAC objects and webhook
// configurations; the Service name follows Gardener's docs/concepts/resource-manager.md.
const Name = "gardener-resource-manager"

// The schema's defaults (schema.go).
const (
	DefaultNamespace           = "garden"
	DefaultServerTLSSecretName = "gardener-resource-manager-server"
	// DefaultClass is the ManagedResource class of the runtime GRM: gardener-operator's care
	// reconciler counts ManagedResources with .spec.class=seed as runtime components
	// (Gardener's docs/concepts/operator.md).
	DefaultClass           = "seed"
	DefaultConcurrentSyncs = 5
	DefaultLogLevel        = "info"
	DefaultLogFormat       = "json"
)

// The allowed log levels and formats of Gardener components.
var (
	LogLevels  = []string{"info", "debug", "error"}
	LogFormats = []string{"json", "text"}
)

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	// Cluster is the garden runtime cluster.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace the GRM runs in. Its ManagedResources may live anywhere.
	Namespace string `json:"namespace"`
	// Images overrides image vector entries by name (images.GardenerResourceManager).
	Images map[string]string `json:"images"`
	// HighAvailability spreads the replicas over zones as well as nodes, for runtime clusters
	// with several zones. The replica count does not depend on it: GRM is a (webhook) server,
	// and servers run with 2 replicas in every setting (Gardener's docs/concepts/resource-manager.md,
	// "High Availability Of Components" docs/development/high-availability-of-components.md).
	HighAvailability bool `json:"high_availability"`
	// AdmissionWebhooks registers the webhook configurations. Turn off only where nothing can
	// serve them, such as the local control plane, whose pods never run. A shoot's GRM registers
	// none in the seed, whatever this says, and has no use for CABundle.
	AdmissionWebhooks bool `json:"admission_webhooks"`
	// CABundle is the PEM bundle of the CA that signed the webhook server's certificate, or an
	// engine marker (render.UnknownString, render.GeneratedRef) standing in for it. Empty leaves
	// caBundle unset.
	CABundle string `json:"ca_bundle"`
	// ServerTLSSecretName names the kubernetes.io/tls Secret (tls.crt, tls.key) the webhook
	// server serves with. Its certificate must be valid for the Service's DNS names
	// (ServiceDNSNames).
	ServerTLSSecretName string `json:"server_tls_secret_name"`
	// Class is the ManagedResource .spec.class the GRM reconciles; "" is the GRM's own default
	// class, that of ManagedResources without a class, which a shoot's GRM reconciles: the
	// ManagedResources of shoot system components carry no .spec.class (Gardener's
	// docs/concepts/resource-manager.md).
	Class string `json:"class"`
	// ConcurrentSyncs is the number of workers of each controller.
	ConcurrentSyncs int `json:"concurrent_syncs"`
	// LogLevel is one of LogLevels, LogFormat one of LogFormats.
	LogLevel  string `json:"log_level"`
	LogFormat string `json:"log_format"`
	// DefaultSeccompProfile enables the seccomp-profile webhook that defaults pods to the
	// RuntimeDefault profile, as gardener-operator's DefaultSeccompProfile feature gate does
	// (Gardener's "Feature Gates" docs/deployment/feature_gates.md, "Default Seccomp Profile"
	// docs/usage/security/default_seccomp_profile.md).
	DefaultSeccompProfile bool `json:"default_seccomp_profile"`
	// PriorityClassName of the pods; "" means gardener-garden-system-critical (Gardener's "Priority
	// Classes" docs/development/priority-classes.md), or gardener-system-400 for a shoot's GRM
	// (Gardener's docs/development/priority-classes.md, "Topology Aware Routing"
	// docs/operations/topology_aware_routing.md). Set from Go only.
	PriorityClassName string `json:"-"`
	// Hibernated scales the component to zero replicas: Gardener scales every control-plane
	// component in the shoot namespace to zero when a shoot hibernates, keeping etcd's volumes
	// (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component Checklist"
	// docs/development/component-checklist.md). The high-availability-config webhook leaves a replica
	// count of 0 alone (Gardener's docs/concepts/resource-manager.md), so no other GRM scales it up
	// again.
	Hibernated bool `json:"-"`
	// Shoot, when set, makes this the shoot's own GRM (see ShootTarget); nil renders the runtime
	// (garden or seed) GRM. Set from Go only, by the shoot composite.
	Shoot *ShootTarget `json:"-"`
}

// Type is the gardener_resource_manager component type as the catalog registers it: its schema
// (schema.go) and its render function.
var Type = component.Define(typeSchema, renderValues)

// renderValues renders one gardener_resource_manager instance and its outputs service_name and
// namespace.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	objs, err := Objects(v)
	if err != nil {
		return nil, err
	}
	return &render.Output{Objects: objs, Outputs: map[string]cty.Value{
		"service_name": cty.StringVal(Name),
		"namespace":    cty.StringVal(v.Namespace),
	}}, nil
}

// ServiceDNSNames are the names the webhook server's certificate must carry: the kube-apiserver
// calls the webhooks through the Service.
func ServiceDNSNames(namespace string) []string {
	return kube.ServiceDNSNames(Name, namespace)
}

// validate rejects values the GRM or the API server would refuse, so that the plan fails
// instead of the rollout.
func (v Values) validate() error {
	if v.Shoot != nil {
		if err := v.Shoot.validate(v.Namespace); err != nil {
			return err
		}
	}
	if errs := validation.IsDNS1123Label(v.Namespace); len(errs) > 0 {
		return fmt.Errorf("namespace %q is invalid: %s", v.Namespace, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(v.ServerTLSSecretName); len(errs) > 0 {
		return fmt.Errorf("server TLS secret name %q is invalid: %s", v.ServerTLSSecretName, strings.Join(errs, "; "))
	}
	if v.ConcurrentSyncs < 0 {
		return fmt.Errorf("concurrent syncs %d is negative", v.ConcurrentSyncs)
	}
	if !slices.Contains(LogLevels, v.LogLevel) {
		return fmt.Errorf("log level %q is not one of %s", v.LogLevel, strings.Join(LogLevels, ", "))
	}
	if !slices.Contains(LogFormats, v.LogFormat) {
		return fmt.Errorf("log format %q is not one of %s", v.LogFormat, strings.Join(LogFormats, ", "))
	}
	return nil
}

// Objects renders the GRM's objects: the CRD, RBAC, configuration, workload and, unless turned
// off, the webhook configurations. A shoot's GRM gets neither the CRD nor webhook configurations
// in the seed nor any other cluster-scoped object: the seed's GRM brings the CRD, and the shoot's
// GRM may only touch its own namespace of the seed. It gets its access Secret, the bootstrap
// kubeconfig while it bootstraps, and the ManagedResource with its objects in the shoot instead.
func Objects(v Values) ([]render.Object, error) {
	if v.PriorityClassName == "" {
		v.PriorityClassName = defaultPriorityClass(v.Shoot != nil)
	}
	if v.Shoot != nil {
		s := *v.Shoot
		s.resolve()
		v.Shoot = &s
	}
	if err := v.validate(); err != nil {
		return nil, err
	}
	image, err := images.Of(v.Images, images.GardenerResourceManager, "")
	if err != nil {
		return nil, err
	}
	cfg, err := configMap(v)
	if err != nil {
		return nil, err
	}
	typed := rbac(v)
	if v.Shoot != nil {
		typed = append([]runtime.Object{accessSecret(v)}, typed...)
		if v.Shoot.Bootstrap {
			bootstrap, err := bootstrapKubeconfig(v)
			if err != nil {
				return nil, err
			}
			typed = append(typed, bootstrap)
		}
	}
	typed = append(typed, cfg, service(v), deployment(v, image, cfg.Name), podDisruptionBudget(v))
	us, err := kube.All(typed...)
	if err != nil {
		return nil, err
	}
	var objs []*unstructured.Unstructured
	if v.Shoot == nil {
		crd, err := managedResourceCRD()
		if err != nil {
			return nil, err
		}
		objs = append(objs, crd)
	}
	objs = append(objs, us...)
	if v.AdmissionWebhooks && v.Shoot == nil {
		hooks, err := webhookConfigurations(v)
		if err != nil {
			return nil, err
		}
		objs = append(objs, hooks...)
	}
	for _, o := range objs {
		// Status belongs to the API server; typed objects such as PodDisruptionBudget carry
		// zero counters that would only show up in diffs.
		delete(o.Object, "status")
	}
	out := kube.On(v.Cluster.Name, "", objs...)
	for i, o := range out {
		switch {
		case o.Object.GetKind() == "ConfigMap":
			// A new configuration is a new ConfigMap; the one before it, and the one the engine
			// named gardener-resource-manager-config before the ConfigMaps were immutable, go
			// once the Deployment names the new one.
			out[i].Supersedes = configMapVersions
		case v.Shoot != nil && o.Object.GetKind() == "Secret" && o.Object.GetName() == v.Shoot.AccessSecretName:
			out[i].Supersedes = bootstrapVersions
		}
	}
	if v.Shoot != nil {
		// The VPA gardenlet gives a shoot's GRM (ensureVPA in
		// pkg/component/gardener/resourcemanager/resource_manager.go at gardener/gardener
		// v1.120.0); the seed's VPA CRDs precede every shoot.
		out = append(out, kube.On(v.Cluster.Name, "", autoscaler.Vertical(v.Namespace, Name+"-vpa", labels(v), Name,
			autoscaler.ContainerPolicy{Container: autoscaler.AllContainers, ControlledValues: autoscaler.RequestsOnly}))...)
		managed, err := shootManagedResource(v)
		if err != nil {
			return nil, err
		}
		out = append(out, managed...)
	}
	return out, nil
}

// configMapVersions matches the names the GRM's configuration ConfigMap has had.
var configMapVersions = regexp.MustCompile("^" + regexp.QuoteMeta(configMapPrefix) + "-(config|[0-9a-f]{8})$")

// managedResourceCRD is the ManagedResource CRD (Gardener's "Resources"
// docs/api-reference/resources.md).
func managedResourceCRD() (*unstructured.Unstructured, error) {
	return crds.Object("managedresources.resources.gardener.cloud")
}
