package plan_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
)

var (
	options       = landscapetest.Options
	liveConnector = landscapetest.Connector
	runPlan       = landscapetest.Plan
)

// applyDesired server-side applies every object a plan wants, in apply order, as the engine's
// field manager: a stand-in for `gardener apply` (a later issue) that brings a cluster into the
// state a landscape describes.
func applyDesired(t testing.TB, out *planner.Outcome) {
	t.Helper()
	ctx := context.Background()
	desired := append([]*plan.Desired(nil), out.Result.Desired...)
	sort.SliceStable(desired, func(i, j int) bool {
		return kinds.ApplyRank(desired[i].Object.GroupVersionKind().GroupKind()) < kinds.ApplyRank(desired[j].Object.GroupVersionKind().GroupKind())
	})
	// Objects of one kind rank go in parallel (8 at a time); ranks go in order.
	for start := 0; start < len(desired); {
		rank := kinds.ApplyRank(desired[start].Object.GroupVersionKind().GroupKind())
		end := start
		for end < len(desired) && kinds.ApplyRank(desired[end].Object.GroupVersionKind().GroupKind()) == rank {
			end++
		}
		var g errgroup.Group
		g.SetLimit(8)
		for _, d := range desired[start:end] {
			g.Go(func() error {
				c := out.Clusters[d.Cluster].(*cluster.Client)
				_, err := c.Dynamic().Resource(d.Resource.GVR()).Namespace(d.Object.GetNamespace()).
					Apply(ctx, d.Object.GetName(), d.Object, metav1.ApplyOptions{FieldManager: inventory.FieldManager, Force: true})
				if err != nil {
					return fmt.Errorf("apply %s: %w", object.RefOf(d.Object), err)
				}
				return nil
			})
		}
		require.NoError(t, g.Wait())
		start = end
	}
}
