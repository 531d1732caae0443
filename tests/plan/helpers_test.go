package plan_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/declarative-gardener/gardener/components/manifests"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/schemas"
)

// options are planner options as the CLI builds them, with renderers wired in.
func options(dir string, connect planner.Connector) planner.Options {
	return planner.Options{
		Dir: dir, Schemas: schemas.Registry(),
		Renderers: render.Registry{"manifests": manifests.Render},
		Inputs:    config.InputSources{},
		Connect:   connect,
		Differs:   planner.LocalDiffers(""),
	}
}

// liveConnector connects every cluster block to one rest.Config, with options such as a
// request-counting transport.
func liveConnector(cfg *rest.Config, opts cluster.Options) planner.Connector {
	return func(string, cluster.Access) (observe.Cluster, error) {
		opts.NoDiskCache = true
		return cluster.ConnectConfig(rest.CopyConfig(cfg), opts)
	}
}

// runPlan plans and fails the test on diagnostics or errors.
func runPlan(t testing.TB, opts planner.Options) *planner.Outcome {
	t.Helper()
	out, diags, err := planner.Plan(context.Background(), opts)
	requireNoDiags(t, diags, out)
	require.NoError(t, err)
	return out
}

func requireNoDiags(t testing.TB, diags hcl.Diagnostics, out *planner.Outcome) {
	t.Helper()
	if diags.HasErrors() {
		var files map[string]*hcl.File
		if out != nil && out.Load != nil {
			files = out.Load.Files
		}
		var buf stringWriter
		_ = diag.WriteText(&buf, diags, files, diag.TextOptions{})
		t.Fatalf("landscape has errors:\n%s", buf)
	}
}

type stringWriter string

func (s *stringWriter) Write(b []byte) (int, error) { *s += stringWriter(b); return len(b), nil }

// applyDesired server-side applies every object a plan wants, in apply order, as the engine's
// field manager: a stand-in for `gardener apply` (a later issue) that brings a cluster into the
// state a landscape describes.
func applyDesired(t testing.TB, out *planner.Outcome) {
	t.Helper()
	ctx := context.Background()
	desired := append([]*plan.Desired(nil), out.Result.Desired...)
	sort.SliceStable(desired, func(i, j int) bool {
		return object.ApplyRank(desired[i].Object.GroupVersionKind().GroupKind()) < object.ApplyRank(desired[j].Object.GroupVersionKind().GroupKind())
	})
	// Objects of one kind rank go in parallel (8 at a time); ranks go in order.
	for start := 0; start < len(desired); {
		rank := object.ApplyRank(desired[start].Object.GroupVersionKind().GroupKind())
		end := start
		for end < len(desired) && object.ApplyRank(desired[end].Object.GroupVersionKind().GroupKind()) == rank {
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
