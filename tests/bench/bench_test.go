// Package bench holds the Go benchmarks of the engine's hot paths at landscape scale, and the
// `make bench` driver (cmd/bench) that measures whole runs against kubectl.
package bench

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sort"
	"testing"
	"time"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/views"
)

var scale = filepath.Join("..", "..", "landscapes", "scale")

// BenchmarkLoadScale loads and evaluates landscapes/scale (HCL, variables, for_each, references),
// without rendering: the cost before any component renders.
func BenchmarkLoadScale(b *testing.B) {
	reg := catalog.Schemas()
	for _, shoots := range []int{10, 100, 300} {
		b.Run(fmt.Sprintf("shoots=%d", shoots), func(b *testing.B) {
			inputs := config.InputSources{Vars: []string{fmt.Sprintf("shoot_count=%d", shoots)}}
			b.ReportAllocs()
			for b.Loop() {
				res, diags := config.Load(scale, reg, inputs)
				if diags.HasErrors() || res.Evaluated == nil {
					b.Fatal(diags.Error())
				}
			}
		})
	}
}

// BenchmarkRenderScale loads, evaluates and renders every component of landscapes/scale and
// builds its graph, without clusters: the local work a plan does before it reads anything.
// Reported per object rendered, so that sizes compare (linear cost keeps it flat).
func BenchmarkRenderScale(b *testing.B) {
	for _, shoots := range []int{10, 100, 300} {
		b.Run(fmt.Sprintf("shoots=%d", shoots), func(b *testing.B) {
			opts := planner.Options{
				Dir: scale, Schemas: catalog.Schemas(), Renderers: catalog.Renderers(),
				Inputs: config.InputSources{Vars: []string{fmt.Sprintf("shoot_count=%d", shoots)}},
			}
			objects := 0
			b.ReportAllocs()
			for b.Loop() {
				out, diags := planner.Prepare(opts)
				if diags.HasErrors() {
					b.Fatal(diags.Error())
				}
				objects = 0
				for _, rd := range out.Rendered {
					objects += len(rd.Objects)
				}
			}
			b.ReportMetric(float64(objects), "objects")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(objects), "ns/object")
		})
	}
}

// BenchmarkPlanView prints the plan of a landscape where every object is new (the largest plan
// text): the cost of the view.
func BenchmarkPlanView(b *testing.B) {
	pl := creationPlan(b, 100)
	b.ReportAllocs()
	for b.Loop() {
		var buf bytes.Buffer
		if err := views.Plan(&buf, pl, views.PlanOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanJSON writes the same plan as JSON.
func BenchmarkPlanJSON(b *testing.B) {
	pl := creationPlan(b, 100)
	b.ReportAllocs()
	for b.Loop() {
		var buf bytes.Buffer
		if err := views.PlanJSON(&buf, pl); err != nil {
			b.Fatal(err)
		}
	}
}

// creationPlan is the plan of creating landscapes/scale with the given shoots in empty clusters:
// every rendered object created, every field listed, as a plan against empty clusters shows it.
func creationPlan(b *testing.B, shoots int) *plan.Plan {
	b.Helper()
	out, diags := planner.Prepare(planner.Options{
		Dir: scale, Schemas: catalog.Schemas(), Renderers: catalog.Renderers(),
		Inputs: config.InputSources{Vars: []string{fmt.Sprintf("shoot_count=%d", shoots)}},
	})
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	pl := &plan.Plan{FormatVersion: plan.FormatVersion, Landscape: "scale"}
	for _, addr := range out.Graph.Order() {
		rd := out.Rendered[addr]
		if rd == nil {
			continue
		}
		c := &plan.Component{Address: string(addr), Type: rd.Type, Action: plan.Create}
		for _, o := range rd.Objects {
			ch := &plan.ObjectChange{Cluster: o.Cluster, APIVersion: o.Object.GetAPIVersion(), Ref: object.RefOf(o.Object), Action: plan.Create, Reason: plan.Reason{Kind: plan.ReasonMissing}}
			fields(o.Object.Object, "", func(path string, v any) {
				ch.Changes = append(ch.Changes, plan.FieldChange{Path: path, After: v, HasAfter: true})
			})
			sort.Slice(ch.Changes, func(i, j int) bool { return ch.Changes[i].Path < ch.Changes[j].Path })
			c.Objects = append(c.Objects, ch)
			pl.Summary.Add++
		}
		pl.Components = append(pl.Components, c)
	}
	return pl
}

// fields calls fn for every leaf of an object with its path (.metadata.name, .data[key]).
func fields(v any, path string, fn func(string, any)) {
	switch t := v.(type) {
	case map[string]any:
		for k, sub := range t {
			fields(sub, path+"."+k, fn)
		}
	case []any:
		for i, sub := range t {
			fields(sub, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	default:
		fn(path, v)
	}
}

// BenchmarkOfflinePlan plans landscapes/scale against empty clusters, as `gardener plan
// --offline` does (load, render, graph, diff, plan; no view), at 100 and 300 shoots (below 100 the
// garden and the seeds weigh more than the shoots). Reported per shoot, so that the sizes
// compare: a linear full plan keeps ns/shoot flat (a little lower at 300, where the garden's
// share is smaller). live-B/shoot is
// the heap the finished plan holds (live after a garbage collection, the heap before the plan
// subtracted), divided by the shoots: what a full plan must hold at once grows with it.
func BenchmarkOfflinePlan(b *testing.B) {
	connect, err := planner.OfflineConnector()
	if err != nil {
		b.Fatal(err)
	}
	now, observedAt := planner.RecordedTimes(time.Time{}, time.Time{})
	for _, shoots := range []int{100, 300} {
		b.Run(fmt.Sprintf("shoots=%d", shoots), func(b *testing.B) {
			opts := planner.Options{
				Dir: scale, Schemas: catalog.Schemas(), Renderers: catalog.Renderers(),
				Inputs:  config.InputSources{Vars: []string{fmt.Sprintf("shoot_count=%d", shoots)}},
				Differs: planner.LocalDiffers(""), Connect: connect, DeferSecrets: true, Recorded: true,
				Now: now, ObservedAt: observedAt,
			}
			var live uint64
			b.ReportAllocs()
			for b.Loop() {
				before := liveHeap()
				out, diags, err := planner.Plan(context.Background(), opts)
				if err != nil || diags.HasErrors() {
					b.Fatal(err, diags.Error())
				}
				if out.Result.Plan.Summary.Add == 0 {
					b.Fatal("the offline plan creates nothing")
				}
				b.StopTimer()
				if after := liveHeap(); after > before {
					live = after - before
				}
				runtime.KeepAlive(out)
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(shoots), "ns/shoot")
			b.ReportMetric(float64(live)/float64(shoots), "live-B/shoot")
		})
	}
}

// liveHeap is the heap live after a full garbage collection.
func liveHeap() uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}
