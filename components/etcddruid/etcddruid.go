// Package etcddruid renders the etcd_druid component: etcd-druid, the operator that turns
// druid.gardener.cloud/v1alpha1 Etcd resources into etcd clusters (StatefulSets, Services,
// ...) and cleans them up again (Gardener's "etcd" docs/concepts/etcd.md). gardener-operator
// deploys it among the garden system components before the virtual garden's two Etcds (Gardener's
// "Gardener Operator" docs/concepts/operator.md).
package etcddruid

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

// Name is the name of the Deployment, ServiceAccount and Service.
const Name = "etcd-druid"

// The schema's defaults (schema.go).
const (
	DefaultNamespace = "garden"
	// DefaultWorkers is etcd-druid's own default number of concurrent Etcd reconciles.
	DefaultWorkers = 3
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
	// etcd-wrapper and etcd-backup-restore for the etcd pods it creates.
	Images map[string]string `json:"images"`
	// HighAvailability runs 2 leader-electing replicas with a PodDisruptionBudget instead of 1.
	HighAvailability bool `json:"high_availability"`
	// Workers is the number of Etcds reconciled concurrently.
	Workers int `json:"workers"`
	// FeatureGates switches etcd-druid's feature gates on (true) or off (false) by name.
	FeatureGates map[string]bool `json:"feature_gates"`
	// PriorityClassName of the pod; "" means gardener-garden-system-300, its class in the garden
	// runtime cluster (Gardener's "Priority Classes" docs/development/priority-classes.md). A seed's
	// etcd-druid runs at gardener-system-800 (Gardener's docs/development/priority-classes.md). Set
	// from Go only.
	PriorityClassName string `json:"-"`
}

// Type is the etcd_druid component type as the catalog registers it: its schema (schema.go) and its
// render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders the Etcd CRD, RBAC, image vector overwrite, Deployment, Service and, with two
// replicas, the PodDisruptionBudget of etcd-druid.
func Objects(v Values) ([]render.Object, error) {
	if v.Cluster.Name == "" {
		return nil, fmt.Errorf("cluster is not set")
	}
	if v.Workers <= 0 {
		return nil, fmt.Errorf("workers %d: must be positive", v.Workers)
	}
	vector, err := images.Default().Override(v.Images)
	if err != nil {
		return nil, fmt.Errorf("images: %w", err)
	}
	crd, err := crds.Get(CRD)
	if err != nil {
		return nil, err
	}
	overwrite, err := imageVectorOverwrite(v.Namespace, vector)
	if err != nil {
		return nil, err
	}
	deploy, err := deployment(v, vector, overwrite)
	if err != nil {
		return nil, err
	}
	typed := []runtime.Object{crd}
	typed = append(typed, rbac(v.Namespace)...)
	typed = append(typed, overwrite, service(v.Namespace), deploy)
	if pdb := disruptionBudget(v); pdb != nil {
		typed = append(typed, pdb)
	}
	return kube.Typed(v.Cluster.Name, typed...)
}
