package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// Result holds the figures of one size of landscapes/scale on live planes. A figure of a part
// that did not run is zero.
type Result struct {
	Shoots int `json:"shoots"`
	// Objects is what gardener render writes after the apply: what kubectl and the write floor
	// apply. ObjectsRenderedEmpty is what it writes against empty planes, fewer: the parts that
	// follow what Gardener's controllers create are rendered during apply.
	Objects              int `json:"objects"`
	ObjectsRenderedEmpty int `json:"objects_rendered_empty,omitempty"`
	// Seconds of wall time by measurement.
	GardenerPlanEmpty  float64 `json:"gardener_plan_empty_s"`
	GardenerApply      float64 `json:"gardener_apply_s"`
	GardenerNoOpPlan   float64 `json:"gardener_noop_plan_s"`
	GardenerChangePlan float64 `json:"gardener_change_plan_s"`
	// GardenerRenderEmpty is gardener render against the empty planes kubectl then applies to:
	// what producing kubectl's input costs (generating every key and certificate).
	GardenerRenderEmpty float64 `json:"gardener_render_empty_s"`
	KubectlApply        float64 `json:"kubectl_apply_s"`
	KubectlDiff         float64 `json:"kubectl_diff_s"`
	ListFloor           float64 `json:"list_floor_s"`
	// WriteFloor is every rendered object applied by parallel server-side apply on fresh planes,
	// without readiness waits; WriteFloorPasses is how many passes that took (a pass applies
	// what the one before could not: kinds not served yet, namespaces not there yet).
	WriteFloor       float64 `json:"write_floor_s"`
	WriteFloorPasses int     `json:"write_floor_passes,omitempty"`
	// CriticalPath is the longest dependency chain of gardener's apply, by its components' times
	// (each from its start to ready: its writes and its readiness wait), and its components.
	CriticalPath           float64  `json:"critical_path_s"`
	CriticalPathComponents []string `json:"critical_path_components,omitempty"`
	// Peak resident memory of each gardener run, in MiB.
	RSS map[string]float64 `json:"peak_rss_mib"`
}

// Ratios are the comparisons the targets are stated in. kubectl applies objects rendered
// beforehand; renderedApplyVsApply counts the rendering too, as gardener apply does.
func (r Result) Ratios() (noopVsList, noopVsKubectlDiff, applyVsKubectl, renderedApplyVsApply float64) {
	return ratio(r.GardenerNoOpPlan, r.ListFloor), ratio(r.KubectlDiff, r.GardenerNoOpPlan), ratio(r.KubectlApply, r.GardenerApply),
		ratio(r.GardenerRenderEmpty+r.KubectlApply, r.GardenerApply)
}

// FloorRatios compare gardener's apply from empty with the write floor alone, and with the write
// floor plus the critical path (the target: apply within 2x of it).
func (r Result) FloorRatios() (applyVsWriteFloor, applyVsWriteFloorAndCriticalPath float64) {
	if r.CriticalPath == 0 {
		return ratio(r.GardenerApply, r.WriteFloor), 0
	}
	return ratio(r.GardenerApply, r.WriteFloor), ratio(r.GardenerApply, r.WriteFloor+r.CriticalPath)
}

// ratio is a/b, or zero (not measured) when either is.
func ratio(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return a / b
}

// measure runs the live measurements of one size: the scale part, the write floor part, or both.
func measure(cfg config, shoots int) (Result, error) {
	r := Result{Shoots: shoots, RSS: map[string]float64{}}
	vars := []string{"--var", "shoot_count=" + strconv.Itoa(shoots)}
	work, err := os.MkdirTemp("", "bench-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(work)
	rendered := filepath.Join(work, "rendered")
	g := func(kubeconfig, name string, args ...string) (float64, error) {
		out, err := runGardener(cfg.gardener, gardenerRun{args: append(args, vars...), kubeconfig: kubeconfig, log: fmt.Sprintf("%d-shoots-%s", shoots, name)})
		if err != nil {
			return 0, err
		}
		r.RSS[name] = max(r.RSS[name], out.PeakRSSMiB)
		return out.Seconds, nil
	}
	landscape := cfg.scaleLandscape

	if cfg.parts[partScale] {
		err = withPlanes(scalePlanes(), func(c *localcluster.Cluster) error {
			var err error
			if r.GardenerPlanEmpty, err = g(c.Kubeconfig(), "plan-empty", "plan", landscape); err != nil {
				return err
			}
			if r.GardenerApply, err = g(c.Kubeconfig(), "apply", "apply", "--auto-approve", "--timeout", "10m", landscape); err != nil {
				return err
			}
			var noop []float64
			for range 3 {
				t, err := g(c.Kubeconfig(), "plan-noop", "plan", "--detailed-exitcode", landscape)
				if err != nil {
					return fmt.Errorf("the plan after apply must have no changes: %w", err)
				}
				noop = append(noop, t)
			}
			r.GardenerNoOpPlan = median(noop)
			if r.GardenerChangePlan, err = g(c.Kubeconfig(), "plan-change", "plan", landscape, "--var", "changed_shoot=shoot-000"); err != nil {
				return err
			}
			if _, err := g(c.Kubeconfig(), "render", "render", landscape, "--output-dir", rendered); err != nil {
				return err
			}
			kinds, objects, err := renderedKinds(rendered)
			if err != nil {
				return err
			}
			r.Objects = objects
			r.ListFloor, err = listFloor(c.Kubeconfig(), kinds)
			return err
		})
		if err != nil {
			return r, err
		}
		if r.CriticalPath, r.CriticalPathComponents, err = applyCriticalPath(cfg, shoots); err != nil {
			return r, err
		}
		// Rendering the landscape against empty planes, as gardener apply did, costs what
		// producing kubectl's input costs: every key is generated afresh. kubectl applies the
		// rendering made after gardener's apply, though: against empty clusters, values only the
		// clusters know (load balancer addresses a DNSRecord points to) are still unknown.
		fresh := filepath.Join(work, "rendered-empty")
		err = withPlanes(scalePlanes(), func(c *localcluster.Cluster) error {
			var err error
			if r.GardenerRenderEmpty, err = g(c.Kubeconfig(), "render-empty", "render", landscape, "--output-dir", fresh); err != nil {
				return err
			}
			// Fewer objects than after the apply: the parts that follow what Gardener's controllers
			// create render only once the clusters hold it (rendered during apply).
			if _, r.ObjectsRenderedEmpty, err = renderedKinds(fresh); err != nil {
				return err
			}
			if r.KubectlApply, err = kubectlAll(cfg.kubectl, c.Kubeconfig(), rendered, "apply"); err != nil {
				return err
			}
			r.KubectlDiff, err = kubectlAll(cfg.kubectl, c.Kubeconfig(), rendered, "diff")
			return err
		})
		if err != nil {
			return r, err
		}
	}

	if cfg.parts[partWriteFloor] {
		err = withPlanes(scalePlanes(), func(c *localcluster.Cluster) error {
			if !cfg.parts[partScale] {
				// Without the scale part there is no rendering yet: these planes are empty, so this
				// one is what render against empty planes gives (every key generated afresh).
				var err error
				if r.GardenerRenderEmpty, err = g(c.Kubeconfig(), "render-empty", "render", landscape, "--output-dir", rendered); err != nil {
					return err
				}
			}
			_, objects, err := renderedKinds(rendered)
			if err != nil {
				return err
			}
			r.Objects = objects
			floor, err := writeFloor(context.Background(), c.Kubeconfig(), rendered, cfg.writeParallelism)
			r.WriteFloor, r.WriteFloorPasses = floor.Seconds, floor.Passes
			if err == nil {
				fmt.Fprintf(os.Stderr, "bench: %d shoots: write floor: %d objects in %.2fs (%d passes)\n", shoots, objects, floor.Seconds, floor.Passes)
			}
			return err
		})
	}
	return r, err
}

// applyCriticalPath reads the critical path of the size's gardener apply from its log and the
// landscape's graph.
func applyCriticalPath(cfg config, shoots int) (float64, []string, error) {
	logData, err := os.ReadFile(filepath.Join(logDir, fmt.Sprintf("%d-shoots-apply.log", shoots)))
	if err != nil {
		return 0, nil, err
	}
	times, err := componentTimes(string(logData))
	if err != nil {
		return 0, nil, fmt.Errorf("the apply's summary: %w", err)
	}
	graph, err := exec.Command(cfg.gardener, "graph", cfg.scaleLandscape, "--format", "json", "--var", "shoot_count="+strconv.Itoa(shoots)).Output()
	if err != nil {
		return 0, nil, fmt.Errorf("gardener graph: %w", err)
	}
	deps, err := graphDependencies(graph)
	if err != nil {
		return 0, nil, err
	}
	d, path := criticalPath(deps, times)
	return d.Seconds(), path, nil
}

// median is the middle value (the mean of the two middle ones for an even count).
func median(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// scalePlanes are the planes of landscapes/scale: runtime, virtual garden and three seeds. The
// virtual garden's gardener-controller-manager creates the project's namespace and the seeds'
// ControllerInstallations; it runs with Gardener's defaults but for the loops that act at the
// wall-clock time (localcluster.SteadyControllerManagerOverlay), not with landscapes/local's
// project quota, which would cap the shoots of landscapes/scale's project.
func scalePlanes() []localcluster.PlaneOptions {
	planes := localcluster.Topology(3)
	for i := range planes {
		if planes[i].GardenerControllers != nil {
			planes[i].GardenerControllers = &localcluster.GardenerControllers{ControllerManagerOverlay: localcluster.SteadyControllerManagerOverlay}
		}
	}
	return planes
}

// withPlanes runs fn on fresh local control planes.
func withPlanes(planes []localcluster.PlaneOptions, fn func(*localcluster.Cluster) error) error {
	c, err := localcluster.Launch(context.Background(), localcluster.Options{Planes: planes})
	if err != nil {
		return err
	}
	return errors.Join(fn(c), c.Stop())
}

// contextOf is the kubeconfig context of a cluster block (seed_1 -> seed-1).
func contextOf(block string) string { return strings.ReplaceAll(block, "_", "-") }

// kubectlAll runs kubectl apply or diff --server-side over every cluster's rendered files and
// returns the total wall time. An apply is repeated (up to ten passes) while the API server does
// not serve kinds whose CRDs the same files created; the repetitions count, as they would for a
// user. diff's exit code 1 (differences) is reported but not a failure.
func kubectlAll(bin, kubeconfig, rendered, verb string) (float64, error) {
	clusters, err := os.ReadDir(rendered)
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, cl := range clusters {
		args := []string{"--kubeconfig", kubeconfig, "--context", contextOf(cl.Name()), verb, "--server-side", "--field-manager=gardener", "--force-conflicts", "-f", filepath.Join(rendered, cl.Name())}
		for pass := 1; ; pass++ {
			cmd := exec.Command(bin, args...)
			start := time.Now()
			output, err := cmd.CombinedOutput()
			total += time.Since(start).Seconds()
			var exit *exec.ExitError
			switch {
			case err == nil:
			case verb == "diff" && errors.As(err, &exit) && exit.ExitCode() == 1:
				fmt.Fprintf(os.Stderr, "bench: kubectl diff reports differences in %s:\n%s\n", cl.Name(), tail(string(output), 2000))
			case verb == "apply" && pass < 10 && strings.Contains(string(output), "ensure CRDs are installed first"):
				continue
			default:
				return 0, fmt.Errorf("kubectl %s (pass %d): %w\n%s", strings.Join(args, " "), pass, err, tail(string(output), 3000))
			}
			fmt.Fprintf(os.Stderr, "bench: kubectl %s %s: %d pass(es), %.2fs so far\n", verb, cl.Name(), pass, total)
			break
		}
	}
	return total, nil
}

// renderedKinds reads the rendered files: the kinds per cluster and the number of objects.
func renderedKinds(rendered string) (map[string][]schema.GroupKind, int, error) {
	kinds := map[string][]schema.GroupKind{}
	objects := 0
	clusters, err := os.ReadDir(rendered)
	if err != nil {
		return nil, 0, err
	}
	for _, cl := range clusters {
		seen := map[schema.GroupKind]bool{}
		docs, err := renderedDocuments(filepath.Join(rendered, cl.Name()))
		if err != nil {
			return nil, 0, err
		}
		for _, doc := range docs {
			var head struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			if err := yaml.Unmarshal([]byte(doc.text), &head); err != nil {
				return nil, 0, fmt.Errorf("%s: %w", doc.file, err)
			}
			objects++
			gv, err := schema.ParseGroupVersion(head.APIVersion)
			if err != nil {
				return nil, 0, fmt.Errorf("%s: %w", doc.file, err)
			}
			gk := schema.GroupKind{Group: gv.Group, Kind: head.Kind}
			if !seen[gk] {
				seen[gk] = true
				kinds[cl.Name()] = append(kinds[cl.Name()], gk)
			}
		}
	}
	return kinds, objects, nil
}

// document is one YAML document of a rendered file.
type document struct {
	file, text string
}

// renderedDocuments reads the YAML documents of one cluster's rendered files, in the order of the
// files (gardener render names them in apply order) and within each file.
func renderedDocuments(dir string) ([]document, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var docs []document
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, text := range splitDocuments(string(data)) {
			docs = append(docs, document{file: f, text: text})
		}
	}
	return docs, nil
}

// splitDocuments splits a YAML stream at its document separators, leaving out empty documents.
func splitDocuments(data string) []string {
	var docs []string
	for _, doc := range strings.Split("\n"+data, "\n---\n") {
		if strings.TrimSpace(doc) != "" {
			docs = append(docs, strings.TrimPrefix(doc, "\n"))
		}
	}
	return docs
}

// listFloor lists every kind of every cluster once, one after the other, with the landscape's
// inventory selector, and returns the time the LISTs took (discovery not included).
func listFloor(kubeconfig string, kinds map[string][]schema.GroupKind) (float64, error) {
	ctx := context.Background()
	total := 0.0
	for block, gks := range kinds {
		c, err := cluster.Connect(cluster.Access{Kubeconfig: kubeconfig, Context: contextOf(block)}, cluster.Options{NoDiskCache: true})
		if err != nil {
			return 0, err
		}
		resources, err := c.Resources(ctx)
		if err != nil {
			return 0, err
		}
		byKind := map[schema.GroupKind]schema.GroupVersionResource{}
		for _, res := range resources {
			if _, ok := byKind[res.GroupKind()]; !ok {
				byKind[res.GroupKind()] = res.GVR()
			}
		}
		for _, gk := range gks {
			gvr, ok := byKind[gk]
			if !ok {
				return 0, fmt.Errorf("cluster %s does not serve %s", block, gk)
			}
			start := time.Now()
			if _, err := c.List(ctx, gvr, "", inventory.Selector("scale")); err != nil {
				return 0, err
			}
			total += time.Since(start).Seconds()
		}
	}
	return total, nil
}
