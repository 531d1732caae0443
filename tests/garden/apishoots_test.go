package garden

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// mineShoot is a Shoot as a user writes it for kubectl: no seed, no domain, gardener-apiserver's
// defaults for the rest.
const mineShoot = `apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata:
  name: mine
  namespace: garden-local
spec:
  cloudProfile:
    kind: CloudProfile
    name: local
  region: local
  credentialsBindingName: local
  purpose: evaluation
  kubernetes:
    version: 1.31.1
  networking:
    type: calico
    pods: 10.9.0.0/16
    services: 10.10.0.0/16
    nodes: 10.11.0.0/16
  provider:
    type: local
    workers:
    - name: local
      machine:
        type: local
        image:
          name: local
          version: 1.0.0
      minimum: 1
      maximum: 1
  maintenance:
    timeWindow:
      begin: 030000+0000
      end: 040000+0000
`

// apiShootLifecycle orders a cluster as an end user does, with kubectl and no HCL: gardener-
// scheduler assigns the Shoot to the local seed, the engine's next apply deploys its control plane
// as parts of the seed and reports it Create Succeeded with the care conditions, and its
// adminkubeconfig subresource returns a kubeconfig; deleting it with Gardener's confirmation
// annotation makes the next apply run its delete flow as a deletion the user requested (no
// --allow-destroy, not held), end it by removing gardenlet's finalizer, and the Shoot and its
// control-plane namespace are gone.
func apiShootLifecycle(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	vdyn := dyn(t, c.Plane(localcluster.VirtualGardenPlane))
	cs, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	shoots := vdyn.Resource(shootsGVR).Namespace("garden-local")

	kubectl(t, c, mineShoot, "create", "-f", "-")
	require.Eventually(t, func() bool {
		s, err := shoots.Get(ctx, "mine", metav1.GetOptions{})
		seed, _, _ := unstructured.NestedString(s.Object, "spec", "seedName")
		return err == nil && seed == "local"
	}, 2*time.Minute, time.Second, "gardener-scheduler assigns the local seed")

	pl := applyForcing(t, dir)
	mine := shootParts(pl)
	require.NotEmpty(t, mine, "the seed deploys the control plane of the Shoot")
	assert.Contains(t, mine, "seed.local.shoot__local__mine__kube_apiserver")
	assert.NotContains(t, mine, "seed.local.shoot__local__mine__shoot", "the Shoot is the user's")
	kapi, err := cs.AppsV1().Deployments("shoot--local--mine").Get(ctx, "kube-apiserver", metav1.GetOptions{})
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(kapi.Spec.Template.Spec.Containers[0].Image, ":v1.31.1"))
	assertShootReported(t, vdyn, "mine", true)
	s, err := shoots.Get(ctx, "mine", metav1.GetOptions{})
	require.NoError(t, err)
	op, _, _ := unstructured.NestedString(s.Object, "status", "lastOperation", "type")
	assert.Equal(t, "Create", op)
	assertAdminKubeconfig(t, vdyn, "mine")
	assert.Empty(t, shootParts(planAt(t, dir, time.Now())), "a second plan changes nothing of the Shoot's control plane")

	// The user deletes it, confirming as gardener-apiserver demands.
	kubectl(t, c, "", "annotate", "-n", "garden-local", "shoot", "mine", "confirmation.gardener.cloud/deletion=true")
	kubectl(t, c, "", "delete", "-n", "garden-local", "shoot", "mine", "--wait=false")
	deleting := planAt(t, dir, time.Now())
	require.NotEmpty(t, shootParts(deleting))
	for _, comp := range deleting.Components {
		if !strings.HasPrefix(comp.Address, "seed.local.shoot__local__mine__") {
			continue
		}
		for _, o := range comp.Objects {
			if o.Action == plan.Delete {
				assert.Equal(t, plan.ReasonRequested, o.Reason.Kind, "%s %s", comp.Address, o.Ref)
			}
		}
	}
	assert.Positive(t, deleting.Summary.Requested)
	applyForcing(t, dir)
	require.Eventually(t, func() bool {
		_, err := shoots.Get(ctx, "mine", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, time.Minute, time.Second, "the Shoot is gone once the engine removed its finalizer")
	require.Eventually(t, func() bool {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "shoot--local--mine", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, time.Minute, time.Second, "its control-plane namespace is gone")
	assert.Empty(t, shootParts(planAt(t, dir, time.Now())), "nothing of it is left to plan")

	unservedShoot(t, c, dir)
}

// unservedShoot assigns a Shoot, by its user, to a Seed that someone registered by hand and that
// neither the engine nor a gardenlet manages: the engine's next apply reports it Error with the
// reason instead of leaving it without a word, blocks nothing else, and lets it go once its user
// deletes it.
func unservedShoot(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	vdyn := dyn(t, c.Plane(localcluster.VirtualGardenPlane))
	seeds := vdyn.Resource(schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "seeds"})
	shoots := vdyn.Resource(shootsGVR).Namespace("garden-local")
	local, err := seeds.Get(ctx, "local", metav1.GetOptions{})
	require.NoError(t, err)
	spec, _, _ := unstructured.NestedMap(local.Object, "spec")
	byHand := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Seed", "metadata": map[string]any{"name": "by-hand"}, "spec": spec,
	}}
	_, err = seeds.Create(ctx, byHand, metav1.CreateOptions{})
	require.NoError(t, err)
	defer func() { _ = seeds.Delete(ctx, "by-hand", metav1.DeleteOptions{}) }()
	kubectl(t, c, strings.Replace(strings.Replace(mineShoot, "name: mine", "name: stray", 1), "spec:\n", "spec:\n  seedName: by-hand\n", 1), "create", "-f", "-")

	applyForcing(t, dir) // fails on any component that did not apply: the unserved Shoot blocks nothing
	s, err := shoots.Get(ctx, "stray", metav1.GetOptions{})
	require.NoError(t, err)
	op, _, _ := unstructured.NestedMap(s.Object, "status", "lastOperation")
	assert.Equal(t, "Error", op["state"], "%v", op)
	assert.Contains(t, op["description"], "Seed by-hand is managed neither by the engine nor by a gardenlet that is ready")

	kubectl(t, c, "", "annotate", "-n", "garden-local", "shoot", "stray", "confirmation.gardener.cloud/deletion=true")
	kubectl(t, c, "", "delete", "-n", "garden-local", "shoot", "stray", "--wait=false")
	applyForcing(t, dir)
	require.Eventually(t, func() bool {
		_, err := shoots.Get(ctx, "stray", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, time.Minute, time.Second, "the engine lets the Shoot it reported go")
}

// shootParts are the changed components of the Shoot mine's control plane in pl.
func shootParts(pl *plan.Plan) []string {
	var out []string
	for _, c := range pl.Components {
		if strings.HasPrefix(c.Address, "seed.local.shoot__local__mine__") && c.Action != plan.NoOp {
			out = append(out, c.Address)
		}
	}
	return out
}

// kubectl runs the local control plane's kubectl against the virtual garden, with stdin.
func kubectl(t *testing.T, c *localcluster.Cluster, stdin string, args ...string) {
	t.Helper()
	bin, err := localcluster.FindBinDir()
	require.NoError(t, err)
	cmd := exec.Command(filepath.Join(bin, "kubectl"), append([]string{"--kubeconfig", c.Kubeconfig(), "--context", localcluster.VirtualGardenPlane}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "kubectl %s: %s", strings.Join(args, " "), out)
}
