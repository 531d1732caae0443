// Command bench measures gardener against kubectl and against the floor of one LIST per kind, on
// landscapes/scale at a series of sizes, on fresh local control planes (runtime, virtual garden
// and three seeds). It is what `make bench` runs; docs/performance.md explains the figures.
//
//	go run ./tests/bench/cmd/bench --gardener bin/gardener --sizes 10,50,100 --out bench-results
//
// Per size it starts fresh planes and runs, with the gardener binary: a plan against the empty
// clusters, apply --auto-approve from empty, a no-op plan (the median of three), a plan after one
// field of one shoot changed (--var changed_shoot), and render --output-dir; it then times one
// LIST per kind and cluster with the inventory selector (the floor under any plan). On new fresh
// planes it applies the rendered files with kubectl apply --server-side (repeating a cluster's
// files while kinds from CRDs of the same files are not served yet) and times a no-op kubectl diff
// --server-side. It prints a table, and writes results.json, results.md and plot.svg to --out.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// Result holds the figures of one size.
type Result struct {
	Shoots  int `json:"shoots"`
	Objects int `json:"objects"`
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
	// Peak resident memory of each gardener run, in MiB.
	RSS map[string]float64 `json:"peak_rss_mib"`
}

// Ratios are the comparisons the targets are stated in. kubectl applies objects rendered
// beforehand; renderedApplyVsApply counts the rendering too, as gardener apply does.
func (r Result) Ratios() (noopVsList, noopVsKubectlDiff, applyVsKubectl, renderedApplyVsApply float64) {
	return r.GardenerNoOpPlan / r.ListFloor, r.KubectlDiff / r.GardenerNoOpPlan, r.KubectlApply / r.GardenerApply,
		(r.GardenerRenderEmpty + r.KubectlApply) / r.GardenerApply
}

func main() {
	gardener := flag.String("gardener", "bin/gardener", "the gardener binary")
	kubectl := flag.String("kubectl", "", "the kubectl binary (default: the local control plane's)")
	sizes := flag.String("sizes", "10,50,100", "shoot counts to measure")
	out := flag.String("out", "bench-results", "directory for results.json, results.md and plot.svg")
	landscape := flag.String("landscape", "landscapes/scale", "the landscape (it must take var.shoot_count and var.changed_shoot)")
	flag.Parse()
	if err := run(*gardener, *kubectl, *sizes, *out, *landscape); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

func run(gardener, kubectl, sizes, out, landscape string) error {
	var err error
	if gardener, err = filepath.Abs(gardener); err != nil {
		return err
	}
	if kubectl == "" {
		bin, err := localcluster.FindBinDir()
		if err != nil {
			return err
		}
		kubectl = filepath.Join(bin, "kubectl")
	}
	logDir = filepath.Join(out, "logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	var results []Result
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("size %q: %w", s, err)
		}
		r, err := measure(gardener, kubectl, landscape, n)
		if err != nil {
			return fmt.Errorf("%d shoots: %w", n, err)
		}
		results = append(results, r)
		fmt.Println(table(results))
	}
	data, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "results.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "results.md"), []byte(table(results)), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "plot.svg"), []byte(plot(results)), 0o644)
}

// measure runs every measurement of one size.
func measure(gardener, kubectl, landscape string, shoots int) (Result, error) {
	r := Result{Shoots: shoots, RSS: map[string]float64{}}
	vars := []string{"--var", "shoot_count=" + strconv.Itoa(shoots)}
	work, err := os.MkdirTemp("", "bench-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(work)
	rendered := filepath.Join(work, "rendered")

	err = withPlanes(func(c *localcluster.Cluster) error {
		g := func(name string, args ...string) (float64, error) {
			return timeGardener(gardener, c.Kubeconfig(), name, &r, append(args, vars...)...)
		}
		var err error
		if r.GardenerPlanEmpty, err = g("plan-empty", "plan", landscape); err != nil {
			return err
		}
		if r.GardenerApply, err = g("apply", "apply", "--auto-approve", "--timeout", "10m", landscape); err != nil {
			return err
		}
		var noop []float64
		for range 3 {
			t, err := g("plan-noop", "plan", "--detailed-exitcode", landscape)
			if err != nil {
				return fmt.Errorf("the plan after apply must have no changes: %w", err)
			}
			noop = append(noop, t)
		}
		sort.Float64s(noop)
		r.GardenerNoOpPlan = noop[1]
		if r.GardenerChangePlan, err = g("plan-change", "plan", landscape, "--var", "changed_shoot=shoot-000"); err != nil {
			return err
		}
		if _, err := g("render", "render", landscape, "--output-dir", rendered); err != nil {
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
	// Rendering the landscape against empty planes, as gardener apply did, costs what producing
	// kubectl's input costs: every key is generated afresh. kubectl applies the rendering made
	// after gardener's apply, though: against empty clusters, values only the clusters know
	// (load balancer addresses a DNSRecord points to) are still unknown.
	fresh := filepath.Join(work, "rendered-empty")
	err = withPlanes(func(c *localcluster.Cluster) error {
		var err error
		if r.GardenerRenderEmpty, err = timeGardener(gardener, c.Kubeconfig(), "render-empty", &r, append([]string{"render", landscape, "--output-dir", fresh}, vars...)...); err != nil {
			return err
		}
		if _, objects, err := renderedKinds(fresh); err != nil || objects != r.Objects {
			return fmt.Errorf("rendering against empty planes gave %d objects, not %d: %w", objects, r.Objects, err)
		}
		if r.KubectlApply, err = kubectlAll(kubectl, c.Kubeconfig(), rendered, "apply"); err != nil {
			return err
		}
		r.KubectlDiff, err = kubectlAll(kubectl, c.Kubeconfig(), rendered, "diff")
		return err
	})
	return r, err
}

// withPlanes runs fn on fresh local control planes: runtime, virtual garden and three seeds. The
// virtual garden's gardener-controller-manager creates the project's namespace and the seeds'
// ControllerInstallations; it runs with Gardener's defaults but for the loops that act at the
// wall-clock time (localcluster.SteadyControllerManagerOverlay), not with landscapes/local's
// project quota, which would cap the shoots of landscapes/scale's project.
func withPlanes(fn func(*localcluster.Cluster) error) error {
	planes := localcluster.Topology(3)
	for i := range planes {
		if planes[i].GardenerControllers != nil {
			planes[i].GardenerControllers = &localcluster.GardenerControllers{ControllerManagerOverlay: localcluster.SteadyControllerManagerOverlay}
		}
	}
	c, err := localcluster.Launch(context.Background(), localcluster.Options{Planes: planes})
	if err != nil {
		return err
	}
	return errors.Join(fn(c), c.Stop())
}

// logDir holds the output of every gardener run.
var logDir string

// timeGardener runs the gardener binary once and records its peak memory under name.
// --detailed-exitcode's 2 (changes) is a failure: only no-op plans use it.
func timeGardener(bin, kubeconfig, name string, r *Result, args ...string) (float64, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "NO_COLOR=1")
	// The output goes to a log file beside the results, to follow a long run and to debug one.
	logPath := filepath.Join(logDir, fmt.Sprintf("%d-shoots-%s.log", r.Shoots, name))
	logFile, err := os.Create(logPath)
	if err != nil {
		return 0, err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	start := time.Now()
	err = cmd.Run()
	elapsed := time.Since(start).Seconds()
	if err != nil {
		output, _ := os.ReadFile(logPath)
		return 0, fmt.Errorf("gardener %s: %w\n%s", strings.Join(args, " "), err, tail(string(output), 3000))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.RSS[name] = max(r.RSS[name], float64(ru.Maxrss)/1024) // Linux reports KiB
	}
	fmt.Fprintf(os.Stderr, "bench: %d shoots: gardener %s: %.2fs\n", r.Shoots, name, elapsed)
	return elapsed, nil
}

// contextOf is the kubeconfig context of a cluster block of landscapes/scale (seed_1 -> seed-1).
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
		files, err := filepath.Glob(filepath.Join(rendered, cl.Name(), "*.yaml"))
		if err != nil {
			return nil, 0, err
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, 0, err
			}
			for _, doc := range strings.Split(string(data), "---\n") {
				if strings.TrimSpace(doc) == "" {
					continue
				}
				var head struct {
					APIVersion string `json:"apiVersion"`
					Kind       string `json:"kind"`
				}
				if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
					return nil, 0, fmt.Errorf("%s: %w", f, err)
				}
				objects++
				gv, err := schema.ParseGroupVersion(head.APIVersion)
				if err != nil {
					return nil, 0, fmt.Errorf("%s: %w", f, err)
				}
				gk := schema.GroupKind{Group: gv.Group, Kind: head.Kind}
				if !seen[gk] {
					seen[gk] = true
					kinds[cl.Name()] = append(kinds[cl.Name()], gk)
				}
			}
		}
	}
	return kinds, objects, nil
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

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// table is the results as a Markdown table, with the ratios the targets are stated in.
func table(results []Result) string {
	var b strings.Builder
	b.WriteString("| shoots | objects | gardener plan (empty) | gardener apply | gardener render (empty) | kubectl apply --server-side | gardener no-op plan | kubectl diff --server-side | LIST floor | plan after one change | no-op plan / LIST floor | kubectl diff / no-op plan | kubectl apply / gardener apply | (render + kubectl apply) / gardener apply | peak RSS (MiB) |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		noopList, diffNoop, applyApply, renderedApply := r.Ratios()
		peak := 0.0
		for _, v := range r.RSS {
			peak = max(peak, v)
		}
		fmt.Fprintf(&b, "| %d | %d | %.2fs | %.2fs | %.2fs | %.2fs | %.2fs | %.2fs | %.2fs | %.2fs | %.1fx | %.1fx | %.1fx | %.1fx | %.0f |\n",
			r.Shoots, r.Objects, r.GardenerPlanEmpty, r.GardenerApply, r.GardenerRenderEmpty, r.KubectlApply, r.GardenerNoOpPlan, r.KubectlDiff, r.ListFloor,
			r.GardenerChangePlan, noopList, diffNoop, applyApply, renderedApply, peak)
	}
	return b.String()
}

// plot draws wall time against object count for the measurements as an SVG line chart.
func plot(results []Result) string {
	series := []struct {
		name, color string
		value       func(Result) float64
	}{
		{"render + kubectl apply", "#9467bd", func(r Result) float64 { return r.GardenerRenderEmpty + r.KubectlApply }},
		{"kubectl apply --server-side", "#d62728", func(r Result) float64 { return r.KubectlApply }},
		{"gardener apply", "#2ca02c", func(r Result) float64 { return r.GardenerApply }},
		{"kubectl diff --server-side", "#ff7f0e", func(r Result) float64 { return r.KubectlDiff }},
		{"gardener no-op plan", "#1f77b4", func(r Result) float64 { return r.GardenerNoOpPlan }},
		{"LIST floor", "#7f7f7f", func(r Result) float64 { return r.ListFloor }},
	}
	const w, h, left, bottom, top, right = 720.0, 420.0, 60.0, 40.0, 20.0, 220.0
	maxX, maxY := 1.0, 1.0
	for _, r := range results {
		maxX = max(maxX, float64(r.Objects))
		for _, s := range series {
			maxY = max(maxY, s.value(r))
		}
	}
	x := func(v float64) float64 { return left + v/maxX*(w-left-right) }
	y := func(v float64) float64 { return h - bottom - v/maxY*(h-bottom-top) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/>`+"\n", left, h-bottom, w-right, h-bottom)
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/>`+"\n", left, h-bottom, left, top)
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">objects (max %.0f)</text>`+"\n", (left+w-right)/2, h-8, maxX)
	fmt.Fprintf(&b, `<text x="14" y="%.0f" transform="rotate(-90 14 %.0f)" text-anchor="middle">seconds (max %.1f)</text>`+"\n", (h-bottom+top)/2, (h-bottom+top)/2, maxY)
	for i, s := range series {
		var points []string
		for _, r := range results {
			points = append(points, fmt.Sprintf("%.1f,%.1f", x(float64(r.Objects)), y(s.value(r))))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", s.color, strings.Join(points, " "))
		for _, p := range points {
			xy := strings.Split(p, ",")
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", xy[0], xy[1], s.color)
		}
		ly := top + 10 + float64(i)*18
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="2"/>`+"\n", w-right+10, ly, w-right+30, ly, s.color)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">%s</text>`+"\n", w-right+36, ly+4, s.name)
	}
	b.WriteString("</svg>\n")
	return b.String()
}
