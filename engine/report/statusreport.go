package report

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// WriteConditions writes the conditions of a status the engine reports for an object another
// controller owns (render.StatusReport): gardenlet's conditions of a ControllerInstallation whose
// extension the engine deploys on a seed it manages. The object is gardener-controller-manager's,
// and gardenlet's ControllerInstallation controllers (controllerinstallation, care, required in
// pkg/gardenlet/controller/controllerinstallation at Gardener v1.120.0) patch only its
// status.conditions: so this write carries no lastOperation, observedGeneration or
// status.gardener, and no finalizer (gardenlet's core.gardener.cloud/controllerinstallation holds
// an installation until gardenlet removed its deployment; the engine removes the deployment by
// its plan once the installation is gone, so that nothing is left to hold it for). conds are
// merged with the condition builder's rules, conditions of other types stay as they are, and
// nothing is written when nothing changes. A missing object is ErrNotFound:
// gardener-controller-manager deleted the installation, and there is nothing to report on.
func (w *Writer) WriteConditions(ctx context.Context, r render.StatusReport, conds []Condition) error {
	if len(conds) == 0 {
		return nil
	}
	t := target{r.Cluster, r.APIVersion, r.Kind, r.Namespace, r.Name}
	return w.updateStatus(ctx, t, false, func(live *unstructured.Unstructured, status map[string]any) {
		setConditions(live, status, conds, w.now())
	})
}

// FromRender are the conditions a component derived (render.StatusReport.Conditions) as the
// writer takes them.
func FromRender(conds []render.Condition) []Condition {
	out := make([]Condition, 0, len(conds))
	for _, c := range conds {
		out = append(out, Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message})
	}
	return out
}
