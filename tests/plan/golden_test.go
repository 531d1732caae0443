package plan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

var update = flag.Bool("update", false, "record the golden scenarios' snapshots against a local control plane and rewrite their golden plans")

// The secret every golden landscape holds; no plan may show it.
const goldenSecret = "s3cr3t-pa55w0rd"

// terminalEscapes is what the escapes scenario writes into live objects.
const terminalEscapes = "\x1b[2J\x1b[H\x1b]0;owned\a\rApply complete!\u202e\u009b31m\x7f"

// A golden scenario is a directory under testdata/golden with the landscape after the change
// (after/), optionally the landscape the cluster was brought to before (before/), the snapshot
// of the cluster recorded with -update, and the expected plans.
func goldenScenarios(t *testing.T) []string {
	entries, err := os.ReadDir("testdata/golden")
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	require.GreaterOrEqual(t, len(names), 5)
	return names
}

// outOfBand edits the cluster the way someone with kubectl would, after the before landscape was
// applied, for the scenarios that need it.
var outOfBand = map[string]func(t *testing.T, cs kubernetes.Interface){
	"drift": func(t *testing.T, cs kubernetes.Interface) {
		// kubectl patch --type json: a data key the landscape sets is removed out of band.
		_, err := cs.CoreV1().ConfigMaps("golden-drift").Patch(context.Background(), "app-config", types.JSONPatchType,
			[]byte(`[{"op":"remove","path":"/data/mode"}]`), metav1.PatchOptions{FieldManager: "kubectl-patch"})
		require.NoError(t, err)
	},
	"escapes": func(t *testing.T, cs kubernetes.Interface) {
		// Someone who may edit the ConfigMap writes terminal escapes into the fields the plan
		// shows: clear the screen, retitle the window, overwrite the line, reverse the text, a
		// C1 CSI. The API server takes them in values (not in names or field managers). The
		// plan must show them, escaped.
		patch, err := json.Marshal(map[string]any{
			"metadata": map[string]any{"annotations": map[string]string{"note": terminalEscapes}},
			"data":     map[string]string{"mode": terminalEscapes},
		})
		require.NoError(t, err)
		_, err = cs.CoreV1().ConfigMaps("golden-escapes").Patch(context.Background(), "app-config", types.MergePatchType,
			patch, metav1.PatchOptions{FieldManager: "kubectl-edit"})
		require.NoError(t, err)
	},
	"conflict": func(t *testing.T, cs kubernetes.Interface) {
		// Another operator (a controller, not a person) changes a field the landscape sets: a
		// conflict. A person's change (kubectl edit) would be drift, as in the escapes scenario.
		_, err := cs.CoreV1().ConfigMaps("golden-conflict").Patch(context.Background(), "app-config", types.MergePatchType,
			[]byte(`{"data":{"mode":"slow"}}`), metav1.PatchOptions{FieldManager: "config-operator"})
		require.NoError(t, err)
	},
}

// record brings the shared local cluster into a scenario's before state and records what the
// plan of its after landscape reads.
func record(t *testing.T, name string) {
	c := localcluster.Shared(t)
	cfg := c.Plane(localcluster.RuntimePlane).RESTConfig()
	dir := filepath.Join("testdata/golden", name)
	if _, err := os.Stat(filepath.Join(dir, "before")); err == nil {
		applyDesired(t, runPlan(t, options(filepath.Join(dir, "before"), liveConnector(cfg, cluster.Options{}))))
	}
	if edit := outOfBand[name]; edit != nil {
		cs, err := kubernetes.NewForConfig(cfg)
		require.NoError(t, err)
		edit(t, cs)
	}
	rec := planner.NewRecording(liveConnector(cfg, cluster.Options{}))
	runPlan(t, options(filepath.Join(dir, "after"), rec.Connect))
	require.NoError(t, rec.WriteFile(filepath.Join(dir, "snapshot.json")))
}

func TestGoldenPlans(t *testing.T) {
	for _, name := range goldenScenarios(t) {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata/golden", name)
			if *update {
				record(t, name)
			}
			plans := func() (text, js []byte) {
				connect, err := planner.SnapshotConnector(filepath.Join(dir, "snapshot.json"))
				require.NoError(t, err, "record the snapshot with: go test ./tests/plan -run TestGoldenPlans -update")
				opts := options(filepath.Join(dir, "after"), connect)
				// A plan from a snapshot has no state, and deletes only with --prune-without-state.
				opts.PruneWithoutState = name == "delete"
				out := runPlan(t, opts)
				var tb, jb bytes.Buffer
				require.NoError(t, views.Plan(&tb, out.Result.Plan, views.PlanOptions{Detail: views.DetailFull}))
				require.NoError(t, views.PlanJSON(&jb, out.Result.Plan))
				return tb.Bytes(), jb.Bytes()
			}
			text, js := plans()
			golden(t, filepath.Join(dir, "plan.txt"), text)
			golden(t, filepath.Join(dir, "plan.json"), js)
			again, againJSON := plans()
			assert.Equal(t, string(text), string(again), "plans from a snapshot are byte-identical")
			assert.Equal(t, string(js), string(againJSON), "plans from a snapshot are byte-identical")
			assert.NotContains(t, string(text), goldenSecret)
			assert.NotContains(t, string(js), goldenSecret)
			// What live objects hold reaches the terminal escaped: the text plan holds no
			// character a terminal obeys but its line breaks.
			for i, r := range string(text) {
				if r != '\n' && !unicode.IsGraphic(r) {
					t.Errorf("the text plan holds a raw %U at byte %d", r, i)
					break
				}
			}
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "create it with: go test ./tests/plan -run TestGoldenPlans -update")
	assert.Equal(t, string(want), string(got))
}
