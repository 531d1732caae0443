package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// runState runs the CLI with stdin, with the state commands registered even before root.go
// lists them.
func runState(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	root := newRootCommand(&stdout, &stderr)
	if cmd, _, err := root.Find([]string{"state"}); err != nil || cmd == root {
		reg := catalog.Schemas()
		root.AddCommand(newStateCommand(reg), newForceUnlockCommand(reg))
	}
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err := root.Execute()
	return stdout.String(), stderr.String(), err
}

const stateLandscape = `landscape "land" {}
cluster "runtime" {}
`

// sampleState is a state with two components.
func sampleState() *state.State {
	s := state.Empty("land")
	s.Components["component.helm_release.cert_manager"] = &state.Component{
		Address: "component.helm_release.cert_manager", Type: "helm_release", ConfigHash: "sha256:abc",
		Outputs: map[string]any{"namespace": "cert-manager", "replicas": float64(2)},
		Objects: []state.Object{
			{Cluster: "runtime", Version: "v1", Kind: "Namespace", Name: "cert-manager", UID: "u-2"},
			{Cluster: "runtime", Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "cert-manager", Name: "cert-manager", UID: "u-1"},
		},
		Pending: []state.Object{{Cluster: "runtime", Version: "v1", Kind: "Service", Namespace: "cert-manager", Name: "webhook"}},
	}
	s.Components[`shoot.dev["a"]`] = &state.Component{
		Address: `shoot.dev["a"]`, Type: "shoot",
		Objects: []state.Object{{Cluster: "garden", Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Shoot", Namespace: "garden-dev", Name: "a"}},
	}
	return s
}

// retiredState is sampleState with the record of a shoot whose lifetime ended.
func retiredState() *state.State {
	s := sampleState()
	s.Retired = map[string]*state.Retirement{"shoot.trial": {Ended: "2026-11-20T08:00:00Z", Reason: "the cluster lifetime of Quota garden-dev/trial, 7 days"}}
	return s
}

// stateDir writes a landscape with the given files and, unless s is nil, its local state, and
// changes into it.
func stateDir(t *testing.T, files map[string]string, path string, s *state.State) {
	t.Helper()
	landscapeDir(t, files)
	if s != nil {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, state.NewLocal(path).Write(context.Background(), s))
	}
}

func readState(t *testing.T, path string) *state.State {
	t.Helper()
	s, err := state.NewLocal(path).Read(context.Background())
	require.NoError(t, err)
	return s
}

func TestStateList(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		path    string
		state   *state.State
		out     string
		errOut  string
		wantErr error
	}{
		{
			name: "components with object counts", files: map[string]string{"main.hcl": stateLandscape},
			path: state.DefaultLocalPath, state: sampleState(),
			out: "component.helm_release.cert_manager  2 objects, 1 pending\n" +
				"shoot.dev[\"a\"]                       1 object\n",
		},
		{
			name: "empty", files: map[string]string{"main.hcl": stateLandscape},
			errOut: "The state is empty.\n",
		},
		{
			name: "retired instances", files: map[string]string{"main.hcl": stateLandscape},
			path: state.DefaultLocalPath, state: retiredState(),
			out: "component.helm_release.cert_manager  2 objects, 1 pending\n" +
				"shoot.dev[\"a\"]                       1 object\n" +
				"shoot.trial                          lifetime ended at 2026-11-20T08:00:00Z\n",
		},
		{
			name: "path from the state block",
			files: map[string]string{"main.hcl": `landscape "land" {
  state {
    backend = "local"
    path    = "states/land.json"
  }
}
`},
			path: "states/land.json", state: sampleState(),
			out: "component.helm_release.cert_manager  2 objects, 1 pending\n" +
				"shoot.dev[\"a\"]                       1 object\n",
		},
		{
			name: "errors outside the landscape block only warn",
			files: map[string]string{"main.hcl": stateLandscape + `component "no_such_type" "x" {}
`},
			path: state.DefaultLocalPath, state: sampleState(),
			out: "component.helm_release.cert_manager  2 objects, 1 pending\n" +
				"shoot.dev[\"a\"]                       1 object\n",
			errOut: "Warning: the landscape has errors (\"gardener validate\" shows them); this command only needs its landscape and state blocks.\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stateDir(t, tt.files, tt.path, tt.state)
			out, errOut, err := runState(t, "", "state", "list", ".")
			assert.Equal(t, tt.wantErr, err)
			assert.Equal(t, tt.out, out)
			assert.Equal(t, tt.errOut, errOut)
		})
	}
}

func TestStateCommandsNeedAValidStateBlock(t *testing.T) {
	stateDir(t, map[string]string{"main.hcl": `landscape "land" {
  state {
    backend = "s3"
  }
}
`}, "", nil)
	out, errOut, err := runState(t, "", "state", "list", ".")
	assert.Equal(t, exitCode(1), err)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "Unsupported state backend")
}

func TestStateShow(t *testing.T) {
	stateDir(t, map[string]string{"main.hcl": stateLandscape}, state.DefaultLocalPath, sampleState())
	out, errOut, err := runState(t, "", "state", "show", ".", "component.helm_release.cert_manager")
	require.NoError(t, err, errOut)
	assert.Equal(t, `address:      component.helm_release.cert_manager
type:         helm_release
config hash:  sha256:abc

outputs:
  namespace  = "cert-manager"
  replicas   = 2

objects (2):
  runtime  Namespace cert-manager                     v1       uid u-2
  runtime  Deployment.apps cert-manager/cert-manager  apps/v1  uid u-1

pending (1):
  runtime  Service cert-manager/webhook  v1
`, out)

	out, _, err = runState(t, "", "state", "show", "--json", ".", `shoot.dev["a"]`)
	require.NoError(t, err)
	var c state.Component
	require.NoError(t, json.Unmarshal([]byte(out), &c))
	assert.Equal(t, sampleState().Components[`shoot.dev["a"]`], &c)

	_, errOut, err = runState(t, "", "state", "show", ".", "component.x.y")
	assert.Equal(t, exitCode(1), err)
	assert.Equal(t, "Error: component.x.y is not in the state; \"gardener state list .\" lists what is\n", errOut)
}

func TestStateRm(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		out    string
		errOut string
		left   []string
		serial int64
	}{
		{
			name: "removes", args: []string{"component.helm_release.cert_manager"},
			out: "Removed component.helm_release.cert_manager (2 objects, 1 pending)\n" +
				"Removed 1 component from the state (serial 2); their objects stay in the clusters.\n",
			left: []string{`shoot.dev["a"]`}, serial: 2,
		},
		{
			name: "removes several once", args: []string{`shoot.dev["a"]`, "component.helm_release.cert_manager", `shoot.dev["a"]`},
			out: "Removed shoot.dev[\"a\"] (1 object)\n" +
				"Removed component.helm_release.cert_manager (2 objects, 1 pending)\n" +
				"Removed 2 components from the state (serial 2); their objects stay in the clusters.\n",
			left: []string{}, serial: 2,
		},
		{
			name: "dry run", args: []string{"--dry-run", `shoot.dev["a"]`},
			out:  "Would remove shoot.dev[\"a\"] (1 object)\n",
			left: []string{"component.helm_release.cert_manager", `shoot.dev["a"]`}, serial: 1,
		},
		{
			name: "unknown address removes nothing", args: []string{`shoot.dev["a"]`, "component.x.y", "component.x.z"},
			errOut: "Error: not in the state, so nothing was removed: component.x.y, component.x.z\n",
			left:   []string{"component.helm_release.cert_manager", `shoot.dev["a"]`}, serial: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stateDir(t, map[string]string{"main.hcl": stateLandscape}, state.DefaultLocalPath, sampleState())
			out, errOut, err := runState(t, "", append([]string{"state", "rm", "."}, tt.args...)...)
			if tt.errOut != "" {
				assert.Equal(t, exitCode(1), err)
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, tt.out, out)
			assert.Equal(t, tt.errOut, errOut)
			s := readState(t, state.DefaultLocalPath)
			assert.Equal(t, tt.left, s.Addresses())
			assert.Equal(t, tt.serial, s.Serial)
			assert.NoFileExists(t, state.DefaultLocalPath+".lock", "the lock is released")
		})
	}
}

// rm forgets the record of an ended lifetime, so that the next plan creates the instance anew.
func TestStateRmForgetsAnEndedLifetime(t *testing.T) {
	stateDir(t, map[string]string{"main.hcl": stateLandscape}, state.DefaultLocalPath, retiredState())
	out, errOut, err := runState(t, "", "state", "rm", ".", "shoot.trial")
	require.NoError(t, err, errOut)
	assert.Equal(t, "Removed the record that the lifetime of shoot.trial ended at 2026-11-20T08:00:00Z\n"+
		"Removed 1 component from the state (serial 2); their objects stay in the clusters.\n", out)
	s := readState(t, state.DefaultLocalPath)
	assert.Empty(t, s.Retired)
	assert.Len(t, s.Components, 2, "components stay")
}

func TestStateRmTakesTheLock(t *testing.T) {
	stateDir(t, map[string]string{"main.hcl": stateLandscape}, state.DefaultLocalPath, sampleState())
	lock, err := state.NewLocal(state.DefaultLocalPath).Lock(context.Background(), state.LockInfo{Holder: "alice@host pid 1", Operation: "apply"})
	require.NoError(t, err)

	_, errOut, err := runState(t, "", "state", "rm", ".", `shoot.dev["a"]`)
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "Error: state is locked by alice@host pid 1 for apply since ")
	assert.Contains(t, errOut, "force-unlock "+lock.ID())
	assert.Len(t, readState(t, state.DefaultLocalPath).Components, 2)

	go func() {
		time.Sleep(300 * time.Millisecond)
		_ = lock.Unlock(context.Background())
	}()
	_, errOut, err = runState(t, "", "state", "rm", "--lock-timeout", "30s", ".", `shoot.dev["a"]`)
	require.NoError(t, err, errOut)
	assert.Len(t, readState(t, state.DefaultLocalPath).Components, 1)
}

func TestForceUnlock(t *testing.T) {
	tests := []struct {
		name   string
		stdin  string
		flags  []string
		wrong  bool
		out    string
		errOut string
		freed  bool
	}{
		{name: "forced", flags: []string{"--force"}, out: "Released the state lock ID.\n", freed: true},
		{name: "confirmed", stdin: "yes\n", out: "Released the state lock ID.\n", errOut: "Release the state lock ID of the landscape in .?\nOnly do this when its holder is no longer running.\nType 'yes' to confirm: ", freed: true},
		{name: "declined", stdin: "no\n", errOut: "Release the state lock ID of the landscape in .?\nOnly do this when its holder is no longer running.\nType 'yes' to confirm: Force-unlock cancelled.\n"},
		{name: "wrong ID", flags: []string{"--force"}, wrong: true, errOut: "Error: state lock gardener.state.lock: lock ID does not match: the lock is held by ID (alice), not WRONG\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stateDir(t, map[string]string{"main.hcl": stateLandscape}, "", nil)
			lock, err := state.NewLocal(state.DefaultLocalPath).Lock(context.Background(), state.LockInfo{Holder: "alice", Operation: "apply"})
			require.NoError(t, err)
			id := lock.ID()
			if tt.wrong {
				id = "WRONG"
			}
			out, errOut, err := runState(t, tt.stdin, append([]string{"force-unlock", ".", id}, tt.flags...)...)
			if tt.freed {
				assert.NoError(t, err)
				assert.NoFileExists(t, state.DefaultLocalPath+".lock")
			} else {
				assert.Equal(t, exitCode(1), err)
				assert.FileExists(t, state.DefaultLocalPath+".lock")
			}
			replace := strings.NewReplacer(lock.ID(), "ID")
			assert.Equal(t, tt.out, replace.Replace(out))
			assert.Equal(t, tt.errOut, replace.Replace(errOut))
		})
	}
}

func TestForceUnlockWithoutLock(t *testing.T) {
	stateDir(t, map[string]string{"main.hcl": stateLandscape}, "", nil)
	_, errOut, err := runState(t, "", "force-unlock", "--force", ".", "some-id")
	assert.Equal(t, exitCode(1), err)
	assert.Equal(t, "Error: state lock gardener.state.lock: state is not locked\n", errOut)
}

// The kubernetes backend through the commands, against a control plane of its own (this
// package's tests do not share one).
func TestStateKubernetesBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local control plane")
	}
	lc := localcluster.Start(t, localcluster.PlaneOptions{Name: localcluster.RuntimePlane})
	cs, err := kubernetes.NewForConfig(lc.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	ctx := context.Background()
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "state"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, state.NewKubernetes(cs, "state", "land").Write(ctx, sampleState()))

	stateDir(t, map[string]string{"main.hcl": `landscape "land" {
  state {
    backend   = "kubernetes"
    cluster   = cluster.runtime
    namespace = "state"
  }
}
cluster "runtime" {
  kubeconfig = var.kubeconfig
  context    = "runtime"
}
variable "kubeconfig" {
  type = string
}
`}, "", nil)
	out, errOut, err := runState(t, "", "state", "rm", "--var", "kubeconfig="+lc.Kubeconfig(), ".", `shoot.dev["a"]`)
	require.NoError(t, err, errOut)
	assert.Contains(t, out, "(serial 2)")
	out, errOut, err = runState(t, "", "state", "list", "--var", "kubeconfig="+lc.Kubeconfig(), ".")
	require.NoError(t, err, errOut)
	assert.Equal(t, "component.helm_release.cert_manager  2 objects, 1 pending\n", out)

	// Without the variable the cluster cannot be reached, and the command says why.
	_, errOut, err = runState(t, "", "state", "list", ".")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "No value for required variable")
}

// mv moves a state's records to another address (after a block was renamed) and refuses a move
// that would lose or merge records; it changes nothing in any cluster.
func TestStateMv(t *testing.T) {
	withParts := func() *state.State {
		s := sampleState()
		s.Components[`shoot.dev["a"].etcd_main`] = &state.Component{Address: `shoot.dev["a"].etcd_main`, Type: "etcd", DependsOn: []string{`shoot.dev["a"]`}}
		s.Components["component.helm_release.cert_manager"].DependsOn = []string{`shoot.dev["a"]`}
		return s
	}
	tests := []struct {
		name   string
		args   []string
		out    string
		errOut string
		left   []string
		serial int64
	}{
		{
			name: "renames a component", args: []string{"component.helm_release.cert_manager", "component.helm_release.certs"},
			out: "Moved component.helm_release.cert_manager to component.helm_release.certs (2 objects, 1 pending)\n" +
				"Moved 1 record in the state (serial 2); nothing in the clusters changed.\n",
			left: []string{"component.helm_release.certs", `shoot.dev["a"]`, `shoot.dev["a"].etcd_main`}, serial: 2,
		},
		{
			name: "a block moves its instances and their parts", args: []string{"shoot.dev", "shoot.prod"},
			out: "Moved shoot.dev[\"a\"] to shoot.prod[\"a\"] (1 object)\n" +
				"Moved shoot.dev[\"a\"].etcd_main to shoot.prod[\"a\"].etcd_main (0 objects)\n" +
				"Moved 2 records in the state (serial 2); nothing in the clusters changed.\n",
			left: []string{"component.helm_release.cert_manager", `shoot.prod["a"]`, `shoot.prod["a"].etcd_main`}, serial: 2,
		},
		{
			name: "an instance to a block without for_each", args: []string{`shoot.dev["a"]`, "shoot.a"},
			out: "Moved shoot.dev[\"a\"] to shoot.a (1 object)\n" +
				"Moved shoot.dev[\"a\"].etcd_main to shoot.a.etcd_main (0 objects)\n" +
				"Moved 2 records in the state (serial 2); nothing in the clusters changed.\n",
			left: []string{"component.helm_release.cert_manager", "shoot.a", "shoot.a.etcd_main"}, serial: 2,
		},
		{
			name: "dry run", args: []string{"--dry-run", "component.helm_release.cert_manager", "component.helm_release.certs"},
			out:  "Would move component.helm_release.cert_manager to component.helm_release.certs (2 objects, 1 pending)\n",
			left: []string{"component.helm_release.cert_manager", `shoot.dev["a"]`, `shoot.dev["a"].etcd_main`}, serial: 1,
		},
		{
			name: "unknown from", args: []string{"component.helm_release.gone", "component.helm_release.certs"},
			errOut: "Error: nothing was moved: the state records nothing at component.helm_release.gone; \"gardener state list\" lists what it records\n",
			left:   []string{"component.helm_release.cert_manager", `shoot.dev["a"]`, `shoot.dev["a"].etcd_main`}, serial: 1,
		},
		{
			name: "a part to an instance", args: []string{`shoot.dev["a"].etcd_main`, `shoot.dev["a"]`},
			errOut: "Error: nothing was moved: a part moves to a part, an instance or block to an instance or block\n",
			left:   []string{"component.helm_release.cert_manager", `shoot.dev["a"]`, `shoot.dev["a"].etcd_main`}, serial: 1,
		},
		{
			name: "an instance without key the state does not record", args: []string{"shoot.dev", "shoot.dev[\"a\"]"},
			errOut: "Error: nothing was moved: the state records nothing at shoot.dev; \"gardener state list\" lists what it records\n",
			left:   []string{"component.helm_release.cert_manager", `shoot.dev["a"]`, `shoot.dev["a"].etcd_main`}, serial: 1,
		},
		{
			name: "another type", args: []string{"component.helm_release.cert_manager", "component.manifests.cert_manager"},
			errOut: "Error: nothing was moved: a component of type helm_release cannot become one of type manifests\n",
			left:   []string{"component.helm_release.cert_manager", `shoot.dev["a"]`, `shoot.dev["a"].etcd_main`}, serial: 1,
		},
		{
			name: "not an address", args: []string{"component.helm_release", "component.helm_release.x"},
			errOut: "Error: nothing was moved: \"component.helm_release\" is not an address: a component address names the component's type and name\n",
			left:   []string{"component.helm_release.cert_manager", `shoot.dev["a"]`, `shoot.dev["a"].etcd_main`}, serial: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stateDir(t, map[string]string{"main.hcl": stateLandscape}, state.DefaultLocalPath, withParts())
			out, errOut, err := runState(t, "", append([]string{"state", "mv", "."}, tt.args...)...)
			if tt.errOut != "" {
				assert.Equal(t, exitCode(1), err)
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, tt.out, out)
			assert.Equal(t, tt.errOut, errOut)
			s := readState(t, state.DefaultLocalPath)
			assert.Equal(t, tt.left, s.Addresses())
			assert.Equal(t, tt.serial, s.Serial)
			for _, addr := range s.Addresses() {
				assert.Equal(t, addr, s.Components[addr].Address)
			}
			assert.NoFileExists(t, state.DefaultLocalPath+".lock", "the lock is released")
		})
	}
	// Records that depend on a moved one name its new address.
	stateDir(t, map[string]string{"main.hcl": stateLandscape}, state.DefaultLocalPath, withParts())
	_, errOut, err := runState(t, "", "state", "mv", ".", "shoot.dev", "shoot.prod")
	require.NoError(t, err, errOut)
	s := readState(t, state.DefaultLocalPath)
	assert.Equal(t, []string{`shoot.prod["a"]`}, s.Components["component.helm_release.cert_manager"].DependsOn)
	assert.Equal(t, []string{`shoot.prod["a"]`}, s.Components[`shoot.prod["a"].etcd_main`].DependsOn)
}

// A move onto an address the state records already would merge two components' records.
func TestStateMvRefusesToMerge(t *testing.T) {
	s := sampleState()
	s.Components["component.helm_release.certs"] = &state.Component{Address: "component.helm_release.certs", Type: "helm_release"}
	stateDir(t, map[string]string{"main.hcl": stateLandscape}, state.DefaultLocalPath, s)
	_, errOut, err := runState(t, "", "state", "mv", ".", "component.helm_release.cert_manager", "component.helm_release.certs")
	assert.Equal(t, exitCode(1), err)
	assert.Equal(t, "Error: nothing was moved: the state records component.helm_release.certs already, so component.helm_release.cert_manager cannot move there; remove one of them from the state (gardener state rm) or move it elsewhere first\n", errOut)
	assert.Equal(t, 1, int(readState(t, state.DefaultLocalPath).Serial))
}
