package apply_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// buildGardener builds the CLI for tests that need a real process (to kill it).
func buildGardener(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gardener")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/declarative-gardener/gardener/cmd/gardener")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// startApplyUntilSlow starts `gardener apply` of dir and returns once it has written the
// Deployment "slow" in namespace, whose rollout never completes, with its combined output.
func startApplyUntilSlow(t *testing.T, bin string, c *localcluster.Cluster, dir, namespace string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(bin, "apply", "--auto-approve", "--timeout", "2m", dir)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig(), "NO_COLOR=1")
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	cs, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	err = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := cs.AppsV1().Deployments(namespace).Get(ctx, "slow", metav1.GetOptions{})
		return err == nil, nil
	})
	require.NoError(t, err, "the apply never wrote the slow component:\n%s", out.String())
	return cmd, out
}

// TestAnApplyKilledMidwayIsResumed kills `gardener apply` with SIGKILL while a component waits
// for readiness, then applies again: the dead process's lock is broken with force-unlock, the
// second apply converges, and every object carrying the landscape's label is in the state.
func TestAnApplyKilledMidwayIsResumed(t *testing.T) {
	c := localcluster.Shared(t)
	cfg := c.Plane(localcluster.RuntimePlane).RESTConfig()
	bin := buildGardener(t)
	stuck := landscape("apply-kill",
		configMaps("first", "apply-kill", "", "one", "two"),
		deployment("slow", "apply-kill", "slow", `nodeSelector = { "no-such-label" = "x" },`),
		configMaps("after", "apply-kill", "depends_on = [component.manifests.slow]", "three"),
	)
	dir := landscapetest.Dir(t, stuck)
	env := append(os.Environ(), "KUBECONFIG="+c.Kubeconfig(), "NO_COLOR=1")

	// Kill it once the slow component has written its Deployment and waits for the rollout.
	cmd, _ := startApplyUntilSlow(t, bin, c, dir, "apply-kill")
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()

	backend := state.NewLocal(filepath.Join(dir, state.DefaultLocalPath))
	st, err := backend.Read(context.Background())
	require.NoError(t, err)
	require.Contains(t, st.Components, "component.manifests.slow")
	assert.NotEmpty(t, st.Components["component.manifests.slow"].Pending, "the intent was recorded before the Deployment was written")

	// The killed process still holds the lock; the next apply names it.
	second := exec.Command(bin, "apply", "--auto-approve", dir)
	second.Env = env
	msg, err := second.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(msg), "locked")
	_, err = backend.Lock(context.Background(), state.LockInfo{Holder: "probe"})
	var locked *state.LockedError
	require.True(t, errors.As(err, &locked), "%v", err)
	unlock := exec.Command(bin, "force-unlock", "--force", dir, locked.ID)
	unlock.Env = env
	msg, err = unlock.CombinedOutput()
	require.NoError(t, err, "%s", msg)

	// The operator fixes the landscape and applies again.
	landscapetest.Write(t, dir, landscape("apply-kill",
		configMaps("first", "apply-kill", "", "one", "two"),
		deployment("slow", "apply-kill", "slow", ""),
		configMaps("after", "apply-kill", "depends_on = [component.manifests.slow]", "three"),
	))
	third := exec.Command(bin, "apply", "--auto-approve", dir)
	third.Env = env
	msg, err = third.CombinedOutput()
	require.NoError(t, err, "%s", msg)

	// Converged: no changes, and everything labelled is recorded, nothing pending.
	assert.False(t, planOf(t, cfg, dir).HasChanges())
	st, err = backend.Read(context.Background())
	require.NoError(t, err)
	var recorded []string
	for _, comp := range st.Components {
		assert.Empty(t, comp.Pending, comp.Address)
		for _, o := range comp.Objects {
			recorded = append(recorded, o.Kind+" "+strings.TrimPrefix(o.Namespace+"/", "/")+o.Name)
		}
	}
	sort.Strings(recorded)
	assert.Equal(t, owned(t, cfg, "apply-kill"), recorded, "no orphans: the objects carrying the label are exactly those in the state")
}

// TestCtrlCStopsCleanly interrupts `gardener apply` (SIGINT) while a component waits for
// readiness: the process exits non-zero, releases the lock, and the state holds what it wrote.
func TestCtrlCStopsCleanly(t *testing.T) {
	c := localcluster.Shared(t)
	bin := buildGardener(t)
	dir := landscapetest.Dir(t, landscape("apply-interrupt",
		configMaps("first", "apply-interrupt", "", "one"),
		deployment("slow", "apply-interrupt", "slow", `nodeSelector = { "no-such-label" = "x" },`),
		configMaps("after", "apply-interrupt", "depends_on = [component.manifests.slow]", "two"),
	))
	cmd, out := startApplyUntilSlow(t, bin, c, dir, "apply-interrupt")
	time.Sleep(300 * time.Millisecond) // let it reach the readiness wait
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err := cmd.Wait()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "the apply ends with an error exit: %v\n%s", err, out.String())
	assert.Equal(t, 1, exit.ExitCode())
	assert.Contains(t, out.String(), "component.manifests.after", "the blocked component is reported")

	backend := state.NewLocal(filepath.Join(dir, state.DefaultLocalPath))
	lock, err := backend.Lock(context.Background(), state.LockInfo{Holder: "probe"})
	require.NoError(t, err, "the interrupted apply released its lock")
	require.NoError(t, lock.Unlock(context.Background()))
	st, err := backend.Read(context.Background())
	require.NoError(t, err)
	require.Contains(t, st.Components, "component.manifests.first")
	assert.NotEmpty(t, st.Components["component.manifests.first"].Objects)
	assert.NotEmpty(t, st.Components["component.manifests.slow"].Pending, "what the interrupted component wrote is recorded")
	assert.NotContains(t, st.Components, "component.manifests.after", "nothing new started after the interrupt")
}
