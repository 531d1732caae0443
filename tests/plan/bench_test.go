package plan_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// BenchmarkNoOpPlan plans a landscape that matches the cluster, at 1,000 and 5,000 objects, and
// in the same run measures `kubectl diff --server-side` on exactly the same objects and one LIST
// of each kind (the floor). Run it with
//
//	go test ./tests/plan -run '^$' -bench NoOpPlan -benchtime 5x
//
// The kubectl and LIST figures are reported as metrics of the gardener benchmark (ns per run)
// so that the ratios come from one run on one machine.
func BenchmarkNoOpPlan(b *testing.B) {
	c := localcluster.Shared(b)
	cfg := c.Plane(localcluster.RuntimePlane).RESTConfig()
	for _, objects := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("objects=%d", objects), func(b *testing.B) {
			name := fmt.Sprintf("bench-%d", objects)
			dir := scaleLandscape(b, name, objects, 10)
			first := runPlan(b, options(dir, liveConnector(cfg, cluster.Options{})))
			applyDesired(b, first)

			// The same objects as kubectl reads them: one multi-document YAML file.
			var docs []string
			for _, d := range first.Result.Desired {
				y, err := yaml.Marshal(d.Object.Object)
				require.NoError(b, err)
				docs = append(docs, string(y))
			}
			manifest := filepath.Join(b.TempDir(), "objects.yaml")
			require.NoError(b, os.WriteFile(manifest, []byte(strings.Join(docs, "---\n")), 0o644))

			kubectlDiff := timeKubectl(b, c, "diff", "--server-side", "--field-manager=gardener", "--force-conflicts", "-f", manifest)
			listFloor := timeLists(b, first)

			opts := options(dir, liveConnector(cfg, cluster.Options{}))
			opts.Differs = planner.LocalDiffers(b.TempDir())
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out := runPlan(b, opts)
				if out.Result.Plan.HasChanges() {
					b.Fatalf("the plan of an applied landscape has changes: %+v", out.Result.Plan.Summary)
				}
			}
			b.StopTimer()
			perPlan := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(float64(kubectlDiff.Nanoseconds()), "kubectl-diff-ns")
			b.ReportMetric(float64(listFloor.Nanoseconds()), "list-floor-ns")
			b.ReportMetric(float64(kubectlDiff.Nanoseconds())/perPlan, "x-faster-than-kubectl")
			b.ReportMetric(perPlan/float64(listFloor.Nanoseconds()), "x-list-floor")
		})
	}
}

// timeKubectl runs bin/kubectl against the runtime plane once and returns its wall time. kubectl
// diff exits 1 when it finds differences; only other failures fail the benchmark.
func timeKubectl(b *testing.B, c *localcluster.Cluster, args ...string) time.Duration {
	bin, err := localcluster.FindBinDir()
	require.NoError(b, err)
	cmd := exec.Command(filepath.Join(bin, "kubectl"), append([]string{"--kubeconfig", c.Kubeconfig(), "--context", localcluster.RuntimePlane}, args...)...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	elapsed := time.Since(start)
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1 && args[0] == "diff") {
		b.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if args[0] == "diff" && len(out) > 0 {
		b.Logf("kubectl diff reports differences:\n%.2000s", out)
	}
	return elapsed
}

// timeLists lists every kind of the landscape once with the inventory selector: the floor under
// any plan that reads live state.
func timeLists(b *testing.B, out *planner.Outcome) time.Duration {
	ctx := context.Background()
	obs := out.Result.Observed["runtime"]
	client := out.Clusters["runtime"].(*cluster.Client)
	start := time.Now()
	for _, r := range obs.Resources {
		_, err := client.List(ctx, r.GVR(), "", "declarative-gardener.io/landscape="+out.Result.Plan.Landscape)
		require.NoError(b, err)
	}
	return time.Since(start)
}
