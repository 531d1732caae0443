package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// LocalResult is the no-op plan of landscapes/local (the demo landscape) against kubectl diff
// --server-side on its objects.
type LocalResult struct {
	Objects int `json:"objects"`
	// GardenerApply is the apply from empty that sets the landscape up; it is not compared.
	GardenerApply float64 `json:"gardener_apply_s"`
	// The no-op plans and the kubectl diffs (three of each unless --local-runs says otherwise),
	// in the order they ran.
	GardenerNoOpPlans []float64 `json:"gardener_noop_plans_s"`
	KubectlDiffs      []float64 `json:"kubectl_diffs_s"`
	// PeakRSSMiB is the largest resident memory of the no-op plans.
	PeakRSSMiB float64 `json:"noop_plan_peak_rss_mib"`
}

// NoOpPlan is the median no-op plan.
func (l LocalResult) NoOpPlan() float64 { return median(l.GardenerNoOpPlans) }

// KubectlDiff is the median kubectl diff.
func (l LocalResult) KubectlDiff() float64 { return median(l.KubectlDiffs) }

// Ratio is how many times faster the no-op plan is than kubectl diff (the target: at least 10x).
func (l LocalResult) Ratio() float64 { return ratio(l.KubectlDiff(), l.NoOpPlan()) }

// measureLocal applies landscapes/local on fresh planes as make demo does (the runtime cluster,
// which is also the seed, and the virtual garden with Gardener's controllers configured as the
// landscape's garden declares them), then runs, cfg.localRuns times each (three by default) and
// alternating, a no-op plan and kubectl diff --server-side on the files of gardener render.
func measureLocal(cfg config) (LocalResult, error) {
	var l LocalResult
	work, err := os.MkdirTemp("", "bench-local-")
	if err != nil {
		return l, err
	}
	defer os.RemoveAll(work)
	rendered := filepath.Join(work, "rendered")
	err = withPlanes(localcluster.Topology(0), func(c *localcluster.Cluster) error {
		g := func(name string, args ...string) (runOutcome, error) {
			return runGardener(cfg.gardener, gardenerRun{args: args, kubeconfig: c.Kubeconfig(), log: "local-" + name})
		}
		apply, err := g("apply", "apply", "--auto-approve", "--timeout", "10m", cfg.localLandscape)
		if err != nil {
			return err
		}
		l.GardenerApply = apply.Seconds
		if _, err := g("render", "render", cfg.localLandscape, "--output-dir", rendered); err != nil {
			return err
		}
		if _, l.Objects, err = renderedKinds(rendered); err != nil {
			return err
		}
		for range cfg.localRuns {
			plan, err := g("plan-noop", "plan", "--detailed-exitcode", cfg.localLandscape)
			if err != nil {
				return fmt.Errorf("the plan after apply must have no changes: %w", err)
			}
			l.GardenerNoOpPlans = append(l.GardenerNoOpPlans, plan.Seconds)
			l.PeakRSSMiB = max(l.PeakRSSMiB, plan.PeakRSSMiB)
			diff, err := kubectlAll(cfg.kubectl, c.Kubeconfig(), rendered, "diff")
			if err != nil {
				return err
			}
			l.KubectlDiffs = append(l.KubectlDiffs, diff)
		}
		return nil
	})
	return l, err
}
