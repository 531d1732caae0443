// Command bench measures gardener against kubectl, against the floor of one LIST per kind and
// against the floor of parallel server-side apply, on fresh local control planes, and measures
// offline plans of landscapes/scale up to fleet size. It is what `make bench` runs;
// docs/performance.md explains the figures.
//
//	go run ./tests/bench/cmd/bench --gardener bin/gardener --sizes 10,50,100 --offline-sizes 10,100,1000,10000 --out bench-results
//
// It runs up to four parts (--parts, all by default), in this order:
//
//   - offline: `gardener plan landscapes/scale --offline` at each of --offline-sizes shoots, the
//     full plan and a plan targeted at one shoot, with their wall time and peak memory. No plane
//     runs meanwhile. A size whose peak memory would not fit the machine is not run (or stopped
//     when it outgrows the memory available), and the results say so.
//   - local: on fresh planes (runtime and virtual garden, as make demo), gardener apply of
//     landscapes/local, then a no-op plan and kubectl diff --server-side on the objects of
//     gardener render, three times each.
//   - scale: per size of --sizes, on fresh planes (runtime, virtual garden and three seeds): a plan
//     against the empty clusters, apply --auto-approve from empty, a no-op plan (median of three),
//     a plan after one field of one shoot changed (--var changed_shoot), render --output-dir and
//     one LIST per kind and cluster with the inventory selector (the floor under any plan); on
//     new fresh planes gardener render and kubectl apply --server-side of the rendered files
//     (repeated while kinds from CRDs of the same files are not served yet) and a no-op kubectl
//     diff --server-side.
//   - writefloor: per size of --sizes, on new fresh planes, every rendered object applied by
//     parallel server-side apply (--write-parallelism requests in flight per cluster, no
//     readiness waits): the floor under any apply from empty. The critical path of gardener's
//     apply (its components' times along the longest dependency chain) is read from the apply's
//     summary when the scale part ran.
//
// It prints a table per part, and writes results.json, results.md, plot.svg (live sizes) and
// offline.svg (offline series) to --out, after every part.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// The parts a run can measure, in the order they run.
const (
	partOffline    = "offline"
	partLocal      = "local"
	partScale      = "scale"
	partWriteFloor = "writefloor"
)

var allParts = []string{partOffline, partLocal, partScale, partWriteFloor}

// Results are everything one run measured; results.json holds them.
type Results struct {
	// Scale holds one Result per size of landscapes/scale on live planes.
	Scale []Result `json:"scale,omitempty"`
	// Local is landscapes/local's no-op plan against kubectl diff.
	Local *LocalResult `json:"local,omitempty"`
	// Offline holds one OfflineResult per size of the offline series, skipped sizes included.
	Offline []OfflineResult `json:"offline,omitempty"`
}

// config is what the flags select.
type config struct {
	gardener, kubectl, out         string
	scaleLandscape, localLandscape string
	sizes, offlineSizes            []int
	parts                          map[string]bool
	writeParallelism               int
	offlineMemoryBudgetMiB         float64
	offlineTarget                  string
	offlineTimeout                 time.Duration
	localRuns                      int
}

func main() {
	gardener := flag.String("gardener", "bin/gardener", "the gardener binary")
	kubectl := flag.String("kubectl", "", "the kubectl binary (default: the local control plane's)")
	parts := flag.String("parts", strings.Join(allParts, ","), "the parts to measure: "+strings.Join(allParts, ", "))
	sizes := flag.String("sizes", "10,50,100", "shoot counts of the live parts (scale, writefloor)")
	offlineSizes := flag.String("offline-sizes", "10,100,1000,10000", "shoot counts of the offline series")
	out := flag.String("out", "bench-results", "directory for results.json, results.md, plot.svg and offline.svg")
	landscape := flag.String("landscape", "landscapes/scale", "the landscape of the scale, writefloor and offline parts (it must take var.shoot_count and var.changed_shoot)")
	local := flag.String("local-landscape", "landscapes/local", "the landscape of the local part")
	localRuns := flag.Int("local-runs", 3, "how often the local part runs the no-op plan and kubectl diff, alternating (the medians are compared; more runs steady them on a busy machine)")
	parallelism := flag.Int("write-parallelism", 10, "server-side applies in flight per cluster for the write floor (gardener's --parallelism default)")
	budget := flag.Float64("offline-memory-mib", 0, "peak memory an offline plan may reach, in MiB (default: 90% of MemAvailable when the series starts)")
	target := flag.String("offline-target", `shoot.on_s1["shoot-000"]`, "the one shoot the targeted offline plans plan")
	timeout := flag.Duration("offline-timeout", time.Hour, "how long an offline plan may run before it is stopped and reported as not fitting")
	flag.BoolVar(&profileRuns, "cpuprofile", false, "write a CPU profile of every gardener run beside its log (logs/NAME.prof; read it with go tool pprof)")
	flag.Parse()

	cfg := config{
		gardener: *gardener, kubectl: *kubectl, out: *out, scaleLandscape: *landscape, localLandscape: *local,
		writeParallelism: *parallelism, offlineMemoryBudgetMiB: *budget, offlineTarget: *target, offlineTimeout: *timeout,
		localRuns: max(*localRuns, 1),
	}
	var err error
	if cfg.parts, err = parseParts(*parts); err == nil {
		if cfg.sizes, err = parseSizes(*sizes); err == nil {
			cfg.offlineSizes, err = parseSizes(*offlineSizes)
		}
	}
	if err == nil {
		err = run(cfg)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

// parseSizes reads a comma-separated list of shoot counts.
func parseSizes(s string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("size %q: not a positive number of shoots", f)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// parseParts reads a comma-separated list of parts.
func parseParts(s string) (map[string]bool, error) {
	parts := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		p := strings.TrimSpace(f)
		if p == "" {
			continue
		}
		if !slices.Contains(allParts, p) {
			return nil, fmt.Errorf("part %q: not one of %s", p, strings.Join(allParts, ", "))
		}
		parts[p] = true
	}
	if len(parts) == 0 {
		return nil, errors.New("no part to measure")
	}
	return parts, nil
}

func run(cfg config) error {
	var err error
	if cfg.gardener, err = filepath.Abs(cfg.gardener); err != nil {
		return err
	}
	if cfg.kubectl == "" && (cfg.parts[partLocal] || cfg.parts[partScale]) {
		bin, err := localcluster.FindBinDir()
		if err != nil {
			return err
		}
		cfg.kubectl = filepath.Join(bin, "kubectl")
	}
	logDir = filepath.Join(cfg.out, "logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	var res Results
	if cfg.parts[partOffline] {
		if res.Offline, err = offlineSeries(cfg); err != nil {
			return errors.Join(fmt.Errorf("offline: %w", err), write(cfg.out, res))
		}
		fmt.Println(offlineTable(res.Offline))
		if err := write(cfg.out, res); err != nil {
			return err
		}
	}
	if cfg.parts[partLocal] {
		local, err := measureLocal(cfg)
		if err != nil {
			return errors.Join(fmt.Errorf("local: %w", err), write(cfg.out, res))
		}
		res.Local = &local
		fmt.Println(localTable(local))
		if err := write(cfg.out, res); err != nil {
			return err
		}
	}
	if cfg.parts[partScale] || cfg.parts[partWriteFloor] {
		for _, n := range cfg.sizes {
			r, err := measure(cfg, n)
			if err != nil {
				return errors.Join(fmt.Errorf("%d shoots: %w", n, err), write(cfg.out, res))
			}
			res.Scale = append(res.Scale, r)
			fmt.Println(table(res.Scale))
			if err := write(cfg.out, res); err != nil {
				return err
			}
		}
	}
	return nil
}

// write stores what has been measured so far: results.json, results.md and the plots.
func write(out string, res Results) error {
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	files := map[string]string{
		"results.json": string(data) + "\n",
		"results.md":   markdown(res),
	}
	if len(res.Scale) > 0 {
		files["plot.svg"] = plot(res.Scale)
	}
	if len(res.Offline) > 0 {
		files["offline.svg"] = offlinePlot(res.Offline)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(out, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}
