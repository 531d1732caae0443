package machinecontrollermanager

import (
	"github.com/declarative-gardener/gardener/components/crds"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// CRDNames are the machine.sapcloud.io kinds the controller works on (Gardener's "Worker"
// docs/extensions/resources/worker.md). They are cluster-wide, so the seed installs them once for
// all its shoots rather than each shoot's component.
var CRDNames = []string{
	"machineclasses.machine.sapcloud.io",
	"machinedeployments.machine.sapcloud.io",
	"machines.machine.sapcloud.io",
	"machinesets.machine.sapcloud.io",
}

// CRDs renders the CRDs of CRDNames for a seed.
func CRDs(cluster string) ([]render.Object, error) {
	var out []render.Object
	for _, name := range CRDNames {
		crd, err := crds.Object(name)
		if err != nil {
			return nil, err
		}
		objs, err := kube.Typed(cluster, crd)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}
