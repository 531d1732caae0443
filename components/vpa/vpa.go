// Package vpa renders the vpa component: the Vertical Pod Autoscaler (vpa-admission-controller,
// vpa-recommender, vpa-updater) that gardenlet deploys into a seed's garden namespace and
// gardener-operator into the runtime cluster's, both with the objects of
// pkg/component/autoscaling/vpa (cluster type seed, gardener/gardener v1.120.0), which this package
// renders field for field. Gardener relies on a VPA being there either way (Gardener's "Gardener
// Operator" docs/concepts/operator.md, SettingVerticalPodAutoscaler in docs/api-reference/operator.md);
// composites omit the component where the landscape brings its own VPA.
package vpa

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/crds"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Names of the three VPA components: Deployments, ServiceAccounts and app labels.
const (
	AdmissionController = "vpa-admission-controller"
	Recommender         = "vpa-recommender"
	Updater             = "vpa-updater"
)

// Names of the admission controller's webhook objects: the Service, and the configuration, whose
// zzz- prefix makes the API server call it after every other mutating webhook, so that the
// containers those inject are under the VPA's control too.
const (
	WebhookServiceName       = "vpa-webhook"
	WebhookConfigurationName = "zzz-vpa-webhook-config-source"
)

// The schema's defaults (schema.go).
const (
	DefaultNamespace     = "garden"
	DefaultTLSSecretName = "vpa-admission-controller-server"
)

// CRDs are the custom resources the VPA components serve, embedded in components/crds.
var CRDs = []string{
	"verticalpodautoscalers.autoscaling.k8s.io",
	"verticalpodautoscalercheckpoints.autoscaling.k8s.io",
}

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	// Cluster is the runtime cluster the VPA runs in and acts on.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace of the components.
	Namespace string `json:"namespace"`
	// Images overrides entries of the image vector by image name.
	Images map[string]string `json:"images"`
	// HighAvailability runs every component with 2 replicas spread over nodes and zones instead
	// of the 1 Gardener renders (in a seed gardener-resource-manager's high-availability-config
	// webhook sets the replicas).
	HighAvailability bool `json:"high_availability"`
	// AdmissionWebhooks registers the MutatingWebhookConfiguration. Turn it off only where
	// nothing can serve the webhook, such as the local control plane.
	AdmissionWebhooks bool `json:"admission_webhooks"`
	// CABundle is the CA that signed the admission controller's serving certificate, for the
	// webhook's caBundle: PEM (it is base64-encoded here), or text already fit for caBundle
	// (base64, a render.GeneratedRef marker with base64 set, render.UnknownString), which is
	// used as it is. Empty leaves caBundle unset.
	CABundle string `json:"ca_bundle"`
	// TLSSecretName names the Secret with the admission controller's serving certificate
	// (tls.crt, tls.key and the CA's ca.crt, as the engine's server-cert class writes it).
	TLSSecretName string `json:"tls_secret_name"`
	// CASecretName names the CA Secret (ca.crt) the admission controller verifies clients with;
	// empty takes the CA from TLSSecretName's ca.crt.
	CASecretName string `json:"ca_secret_name"`
	// PriorityClasses are the pods' classes by component; nil means PriorityClass, the classes
	// in the garden runtime cluster. A seed's VPA uses SeedPriorityClass. Set from Go only.
	PriorityClasses map[string]string `json:"-"`
	// OmitCRDs leaves the CRDs out, for a composite that installs them earlier with CRDObjects,
	// as gardenlet does before gardener-resource-manager. Set from Go only.
	OmitCRDs bool `json:"-"`
	// GardenRuntime is set for the garden runtime cluster's VPA, whose metrics the garden's
	// Prometheus scrapes instead of the seed's. Set from Go only.
	GardenRuntime bool `json:"-"`
}

// Type is the vpa component type as the catalog registers it: its schema (schema.go) and its render
// function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders the CRDs and, per component and in common, the objects of Gardener's VPA
// component: ServiceAccounts, ClusterRoles and Roles with their bindings, the Services,
// Deployments, PodDisruptionBudgets, the VerticalPodAutoscalers of the admission controller and
// the updater (the recommender cannot scale itself) and the webhook configuration.
func Objects(v Values) ([]render.Object, error) {
	if v.Cluster.Name == "" {
		return nil, fmt.Errorf("cluster is not set")
	}
	vector, err := images.Default().Override(v.Images)
	if err != nil {
		return nil, fmt.Errorf("images: %w", err)
	}
	var typed []runtime.Object
	if !v.OmitCRDs {
		if typed, err = crdObjects(); err != nil {
			return nil, err
		}
	}
	typed = append(typed, rbac(v.Namespace)...)
	deployments, err := deployments(v, vector)
	if err != nil {
		return nil, err
	}
	typed = append(typed, services(v)...)
	typed = append(typed, deployments...)
	typed = append(typed, disruptionBudgets(v.Namespace)...)
	objs, err := kube.Typed(v.Cluster.Name, typed...)
	if err != nil {
		return nil, err
	}
	objs = append(objs, kube.On(v.Cluster.Name, "", verticalAutoscalers(v.Namespace)...)...)
	if v.AdmissionWebhooks {
		wh, err := webhookConfiguration(v)
		if err != nil {
			return nil, err
		}
		objs = append(objs, kube.On(v.Cluster.Name, "", wh)...)
	}
	return objs, nil
}

// CRDObjects are the VPA's CRDs on the cluster: gardenlet deploys them with the seed's other CRDs,
// before gardener-resource-manager, whose VerticalPodAutoscalers need them.
func CRDObjects(cluster string) ([]render.Object, error) {
	typed, err := crdObjects()
	if err != nil {
		return nil, err
	}
	return kube.Typed(cluster, typed...)
}

func crdObjects() ([]runtime.Object, error) {
	var out []runtime.Object
	for _, name := range CRDs {
		crd, err := crds.Object(name)
		if err != nil {
			return nil, err
		}
		out = append(out, crd)
	}
	return out, nil
}
