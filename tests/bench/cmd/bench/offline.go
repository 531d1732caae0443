package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// OfflineResult is one size of the offline series: `gardener plan --offline` of the whole
// landscape and of one shoot (--target). A plan that did not fit the machine is not measured and
// says why in its Skipped field.
type OfflineResult struct {
	Shoots int `json:"shoots"`
	// Full is the plan of the whole landscape.
	Full OfflinePlan `json:"full"`
	// Targeted is the plan of one shoot (--offline-target).
	Targeted OfflinePlan `json:"targeted"`
}

// OfflinePlan is one offline plan's figures.
type OfflinePlan struct {
	Seconds    float64 `json:"seconds,omitempty"`
	PeakRSSMiB float64 `json:"peak_rss_mib,omitempty"`
	// Objects is what the plan creates ("N to add").
	Objects int `json:"objects,omitempty"`
	// SecretsGeneratedAtApply counts the generated secrets (keys, certificates) the plan leaves to
	// the apply ("generated at apply" in their component's note): an offline plan draws no key
	// material.
	SecretsGeneratedAtApply int `json:"secrets_generated_at_apply,omitempty"`
	// Skipped says why the plan was not measured (it would not fit, or it was stopped).
	Skipped string `json:"skipped,omitempty"`
}

// Measured reports whether the plan ran to its end.
func (p OfflinePlan) Measured() bool { return p.Skipped == "" && p.Seconds > 0 }

// offlineSeries plans landscapes/scale offline at each size, the whole landscape and one shoot,
// smallest first. Before each plan it estimates the plan's peak memory from the sizes before
// (estimateRSS); a plan whose estimate passes the budget is skipped, and one that passes it while
// it runs is stopped, and the results say so. No plane runs meanwhile: the plans use no cluster.
func offlineSeries(cfg config) ([]OfflineResult, error) {
	budget := cfg.offlineMemoryBudgetMiB
	if budget <= 0 {
		avail, err := availableMiB()
		if err != nil {
			return nil, fmt.Errorf("the memory available: %w", err)
		}
		budget = 0.9 * avail
	}
	fmt.Fprintf(os.Stderr, "bench: offline plans may use up to %.0f MiB\n", budget)
	var results []OfflineResult
	for _, n := range cfg.offlineSizes {
		r := OfflineResult{Shoots: n}
		var full, targeted []sizedRSS
		for _, prev := range results {
			if prev.Full.Measured() {
				full = append(full, sizedRSS{prev.Shoots, prev.Full.PeakRSSMiB})
			}
			if prev.Targeted.Measured() {
				targeted = append(targeted, sizedRSS{prev.Shoots, prev.Targeted.PeakRSSMiB})
			}
		}
		var err error
		if r.Full, err = offlinePlan(cfg, n, "full", nil, full, budget); err != nil {
			return results, err
		}
		if r.Targeted, err = offlinePlan(cfg, n, "targeted", []string{"--target", cfg.offlineTarget}, targeted, budget); err != nil {
			return results, err
		}
		results = append(results, r)
	}
	return results, nil
}

// offlinePlan runs one offline plan at n shoots, unless its estimated peak memory passes budget.
func offlinePlan(cfg config, n int, name string, extra []string, before []sizedRSS, budget float64) (OfflinePlan, error) {
	if est, ok := estimateRSS(before, n); ok && est > budget {
		p := OfflinePlan{Skipped: fmt.Sprintf("not run: its peak memory would be about %.0f MiB (from %d shoots), more than the %.0f MiB available", est, before[len(before)-1].shoots, budget)}
		fmt.Fprintf(os.Stderr, "bench: offline %s plan at %d shoots %s\n", name, n, p.Skipped)
		return p, nil
	}
	log := fmt.Sprintf("offline-%d-shoots-%s", n, name)
	args := append([]string{"plan", cfg.scaleLandscape, "--offline", "--var", "shoot_count=" + strconv.Itoa(n)}, extra...)
	out, err := runGardener(cfg.gardener, gardenerRun{args: args, log: log, memoryBudgetMiB: budget, timeout: cfg.offlineTimeout})
	if errors.Is(err, errStopped) {
		return OfflinePlan{Skipped: out.Stopped}, nil
	}
	if err != nil {
		return OfflinePlan{}, err
	}
	p := OfflinePlan{Seconds: out.Seconds, PeakRSSMiB: out.PeakRSSMiB}
	f, err := os.Open(filepath.Join(logDir, log+".log"))
	if err != nil {
		return p, err
	}
	defer f.Close()
	p.Objects, p.SecretsGeneratedAtApply, err = readOfflinePlan(f)
	return p, err
}

// planSummary is the line that ends a plan: "Plan: N to add, ...".
var planSummary = regexp.MustCompile(`^Plan: (\d+) to add,`)

// readOfflinePlan reads a plan's text: the objects it adds and how many generated secrets it
// leaves to the apply (components whose note says "generated at apply").
func readOfflinePlan(r io.Reader) (objects, generated int, err error) {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	found := false
	for s.Scan() {
		line := s.Text()
		if strings.HasPrefix(line, "# ") && strings.Contains(line, "generated at apply") {
			generated++
		}
		if m := planSummary.FindStringSubmatch(line); m != nil {
			objects, _ = strconv.Atoi(m[1])
			found = true
		}
	}
	if err := s.Err(); err != nil {
		return 0, 0, err
	}
	if !found {
		return 0, 0, errors.New("the plan has no summary line (Plan: N to add, ...)")
	}
	return objects, generated, nil
}

// sizedRSS is a measured peak memory at a number of shoots.
type sizedRSS struct {
	shoots int
	rss    float64
}

// estimateRSS extrapolates the peak memory at n shoots from the measured sizes before (smallest
// first): from the largest of them, growing as shoots^k with k the exponent between the two
// largest, but never slower than in proportion to the shoots (k at least 1): part of the memory at
// small sizes is the same at every size, and an estimate must not promise a fit that is not there.
// It reports false when nothing was measured yet.
func estimateRSS(before []sizedRSS, n int) (float64, bool) {
	if len(before) == 0 {
		return 0, false
	}
	last := before[len(before)-1]
	k := 1.0
	if len(before) >= 2 {
		prev := before[len(before)-2]
		if prev.shoots != last.shoots && prev.rss > 0 {
			k = max(1, math.Log(last.rss/prev.rss)/math.Log(float64(last.shoots)/float64(prev.shoots)))
		}
	}
	return last.rss * math.Pow(float64(n)/float64(last.shoots), k), true
}
