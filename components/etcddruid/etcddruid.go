// Package etcddruid renders the etcd_druid component: etcd-druid, the operator that turns
// druid.gardener.cloud/v1alpha1 Etcd resources into etcd clusters (StatefulSets, Services, ...)
// and cleans them up again (Gardener's "etcd" docs/concepts/etcd.md). gardenlet deploys it into a
// seed's garden namespace and gardener-operator into the runtime cluster's, both with the objects
// of pkg/component/etcd/etcd/bootstrap.go (gardener/gardener v1.120.0), which this package renders
// field for field: the ServiceAccount, RBAC, the Deployment with its webhook server, the Service,
// the ValidatingWebhookConfiguration that protects the objects druid manages, the
// PodDisruptionBudget and the VerticalPodAutoscaler.
package etcddruid

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/crds"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Name is the name of the Deployment, ServiceAccount, Service, PodDisruptionBudget and
// ValidatingWebhookConfiguration.
const Name = "etcd-druid"

// The schema's defaults (schema.go).
const (
	DefaultNamespace = "garden"
	// DefaultWorkers is the number of concurrent Etcd reconciles gardenlet and gardener-operator
	// configure by default (SetDefaults_ETCDController in
	// pkg/gardenlet/apis/config/v1alpha1/defaults.go).
	DefaultWorkers = 50
	// DefaultWebhookTLSSecretName names the Secret with the webhook server's certificate, the
	// name gardenlet's secrets manager gives the certificate config.
	DefaultWebhookTLSSecretName = "etcd-druid-webhook"
)

// CRD is the custom resource etcd-druid serves, embedded in components/crds.
const CRD = "etcds.druid.gardener.cloud"

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	// Cluster is the runtime cluster etcd-druid runs in and manages Etcds of.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace of etcd-druid.
	Namespace string `json:"namespace"`
	// Images overrides entries of the image vector by image name: etcd-druid for the operator,
	// etcd-wrapper and etcd-backup-restore for the etcd pods it creates (handed to druid as an image
	// vector overwrite).
	Images map[string]string `json:"images"`
	// HighAvailability runs 2 replicas spread over nodes and zones instead of the 1 gardenlet
	// renders (in a seed gardener-resource-manager's high-availability-config webhook sets them).
	HighAvailability bool `json:"high_availability"`
	// Workers is the number of Etcds reconciled concurrently.
	Workers int `json:"workers"`
	// FeatureGates switches etcd-druid's feature gates on (true) or off (false) by name.
	FeatureGates map[string]bool `json:"feature_gates"`
	// AdmissionWebhooks registers the ValidatingWebhookConfiguration. Turn it off only where
	// nothing can serve the webhook, such as the local control plane, whose pods never run.
	AdmissionWebhooks bool `json:"admission_webhooks"`
	// CABundle is the CA that signed the webhook server's certificate, for the webhook's caBundle:
	// PEM (it is base64-encoded here), or text already fit for caBundle (base64, an engine marker),
	// used as it is. Empty leaves caBundle unset.
	CABundle string `json:"ca_bundle"`
	// WebhookTLSSecretName names the Secret with the webhook server's certificate (tls.crt and
	// tls.key), for etcd-druid.<namespace>.svc.
	WebhookTLSSecretName string `json:"webhook_tls_secret_name"`
	// PriorityClassName of the pod; "" means gardener-garden-system-300, its class in the garden
	// runtime cluster. A seed's etcd-druid runs at gardener-system-800. Set from Go only.
	PriorityClassName string `json:"-"`
}

// Type is the etcd_druid component type as the catalog registers it: its schema (schema.go) and its
// render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders the Etcd CRD and the objects of gardenlet's etcd-druid bootstrapper: the
// ServiceAccount, ClusterRole and binding, the VerticalPodAutoscaler, the
// ValidatingWebhookConfiguration, the PodDisruptionBudget, the Service, the image vector overwrite
// where the landscape overrides an etcd image, and the Deployment.
func Objects(v Values) ([]render.Object, error) {
	if v.Cluster.Name == "" {
		return nil, fmt.Errorf("cluster is not set")
	}
	if v.Workers <= 0 {
		return nil, fmt.Errorf("workers %d: must be positive", v.Workers)
	}
	if v.WebhookTLSSecretName == "" {
		return nil, fmt.Errorf("webhook_tls_secret_name is not set")
	}
	vector, err := images.Default().Override(v.Images)
	if err != nil {
		return nil, fmt.Errorf("images: %w", err)
	}
	crd, err := crds.Object(CRD)
	if err != nil {
		return nil, err
	}
	overwrite, err := imageVectorOverwrite(v.Namespace, vector, v.Images)
	if err != nil {
		return nil, err
	}
	deploy, err := deployment(v, vector, overwrite)
	if err != nil {
		return nil, err
	}
	typed := []runtime.Object{crd}
	typed = append(typed, rbac(v.Namespace)...)
	typed = append(typed, disruptionBudget(v.Namespace), service(v.Namespace))
	if overwrite != nil {
		typed = append(typed, overwrite)
	}
	typed = append(typed, deploy)
	objs, err := kube.Typed(v.Cluster.Name, typed...)
	if err != nil {
		return nil, err
	}
	objs = append(objs, kube.On(v.Cluster.Name, "", verticalAutoscaler(v.Namespace))...)
	if v.AdmissionWebhooks {
		wh, err := webhookConfiguration(v)
		if err != nil {
			return nil, err
		}
		objs = append(objs, kube.On(v.Cluster.Name, "", wh)...)
	}
	unique.MarkVersions(objs, "ConfigMap", ImageVectorConfigMapBaseName)
	return objs, nil
}
