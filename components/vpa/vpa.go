// Package vpa renders the vpa component: the Vertical Pod Autoscaler (vpa-admission-controller,
// vpa-recommender, vpa-updater) that gardener-operator deploys into the garden namespace of the
// runtime cluster unless the Garden disables it; Gardener relies on a VPA being there either way
// (Gardener's "Gardener Operator" docs/concepts/operator.md, SettingVerticalPodAutoscaler in
// docs/api-reference/operator.md). The garden composite omits the component where the landscape
// brings its own VPA.
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

// Names of the three VPA components: Deployments, ServiceAccounts and app labels (Gardener's
// docs/concepts/operator.md).
const (
	AdmissionController = "vpa-admission-controller"
	Recommender         = "vpa-recommender"
	Updater             = "vpa-updater"
)

// Names of the admission controller's webhook objects. The Service name is the one Gardener
// lists among the topology-aware Services (Gardener's SeedSettingTopologyAwareRouting in
// docs/api-reference/core.md); the configuration name is upstream VPA's.
const (
	WebhookServiceName       = "vpa-webhook"
	WebhookConfigurationName = "vpa-webhook-config"
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
	// Namespace of the components (Gardener's docs/concepts/operator.md).
	Namespace string `json:"namespace"`
	// Images overrides entries of the image vector by image name.
	Images map[string]string `json:"images"`
	// HighAvailability runs every component with 2 replicas instead of 1, spread over nodes and
	// zones; all three are controllers or (webhook) servers (Gardener's "High Availability Of
	// Components" docs/development/high-availability-of-components.md).
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
	// PriorityClasses are the pods' classes by component; nil means PriorityClass, the classes
	// in the garden runtime cluster. A seed's VPA uses SeedPriorityClass. Set from Go only.
	PriorityClasses map[string]string `json:"-"`
}

// Type is the vpa component type as the catalog registers it: its schema (schema.go) and its render
// function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders the CRDs, RBAC, Deployments and webhook objects of the VPA.
func Objects(v Values) ([]render.Object, error) {
	if v.Cluster.Name == "" {
		return nil, fmt.Errorf("cluster is not set")
	}
	vector, err := images.Default().Override(v.Images)
	if err != nil {
		return nil, fmt.Errorf("images: %w", err)
	}
	var typed []runtime.Object
	for _, name := range CRDs {
		crd, err := crds.Get(name)
		if err != nil {
			return nil, err
		}
		typed = append(typed, crd)
	}
	typed = append(typed, rbac(v.Namespace)...)
	deployments, err := deployments(v, vector)
	if err != nil {
		return nil, err
	}
	typed = append(typed, webhookService(v.Namespace))
	typed = append(typed, deployments...)
	typed = append(typed, disruptionBudgets(v)...)
	objs, err := kube.Typed(v.Cluster.Name, typed...)
	if err != nil {
		return nil, err
	}
	if v.AdmissionWebhooks {
		wh, err := webhookConfiguration(v)
		if err != nil {
			return nil, err
		}
		objs = append(objs, kube.On(v.Cluster.Name, "", wh)...)
	}
	return objs, nil
}
