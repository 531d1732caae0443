package gardenercontrolplane

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Place converts typed objects and places them in a cluster like kube.Typed, dropping the status
// the typed structs of HorizontalPodAutoscalers and PodDisruptionBudgets carry as zero counts: a
// status is the cluster's to report, never part of the desired state.
func Place(cluster string, objs ...runtime.Object) ([]render.Object, error) {
	out, err := kube.Typed(cluster, objs...)
	if err != nil {
		return nil, err
	}
	for _, o := range out {
		delete(o.Object.Object, "status")
	}
	return out, nil
}
