package apply

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/graph"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
	"github.com/declarative-gardener/gardener/engine/report"
)

// A plan targeted at some instances (a shoot's, a daemon shard's) renders others too (every
// block that is not a shoot) without planning or observing them: their reports are left alone,
// not judged from objects the plan never read. A plan without a graph covers what it rendered.
func TestSyncReportsCoverThePlannedInstancesOnly(t *testing.T) {
	const planned, renderedOnly = "seed.planned", "seed.rendered_only"
	seedsGVR := schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "seeds"}
	seed := func(name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Seed",
			"metadata": map[string]any{"name": name, "resourceVersion": "1", "generation": int64(1)}}}
	}
	block := &config.Block{Addr: "seed.planned"}
	ev := &config.Evaluated{
		Landscape: &config.Landscape{Blocks: map[config.Address]*config.Block{block.Addr: block}},
		Instances: map[config.InstanceAddress]*config.Instance{planned: {Addr: planned, Block: block}},
	}
	g, diags := graph.Build(ev, nil)
	require.False(t, diags.HasErrors(), diags.Error())
	rendered := func(name string) *rendering.Rendered {
		return &rendering.Rendered{Reports: []render.Report{{Cluster: "virtual", APIVersion: "core.gardener.cloud/v1beta1", Kind: "Seed", Name: name}}}
	}
	for name, tt := range map[string]struct {
		graph   *graph.Graph
		written []string
	}{
		"a targeted plan":    {graph: g, written: []string{"planned"}},
		"no graph, no scope": {written: []string{"planned", "rendered-only"}},
	} {
		t.Run(name, func(t *testing.T) {
			garden := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
				map[schema.GroupVersionResource]string{seedsGVR: "SeedList"}, seed("planned"), seed("rendered-only"))
			out := &planner.Outcome{
				Graph:    tt.graph,
				Rendered: map[config.InstanceAddress]*rendering.Rendered{planned: rendered("planned"), renderedOnly: rendered("rendered-only")},
				Result:   &plan.Result{Plan: &plan.Plan{Landscape: "local"}},
			}
			w := &report.Writer{Clients: map[string]dynamic.Interface{"virtual": garden}}
			SyncReports(context.Background(), out, w, nil, func(err error) { t.Error(err) })
			written := map[string]bool{}
			for _, a := range garden.Actions() {
				if a.GetVerb() == "patch" && a.GetSubresource() == "status" {
					if p, ok := a.(k8stesting.PatchAction); ok {
						written[p.GetName()] = true
					}
				}
			}
			assert.Equal(t, tt.written, slices.Sorted(maps.Keys(written)), "the Seeds whose status was written")
		})
	}
}
