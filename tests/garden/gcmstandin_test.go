package garden

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// The shared control plane runs no gardener-controller-manager until issue 26's flip; the tests
// play the two of its loops the landscape's seed and extensions leave to it.

var seedsGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "seeds"}

// playSeedSecrets plays gardener-controller-manager's seed-secrets controller
// (pkg/controllermanager/controller/seed/secrets/reconciler.go at Gardener v1.120.0) until the test
// ends: for every Seed the namespace seed-<name>, labelled gardener.cloud/role=seed and controlled by
// the Seed, with a copy of every Secret of the garden namespace whose gardener.cloud/role is not
// kubeconfig, ssh-keypair or monitoring (labels, annotations, type and data).
func playSeedSecrets(t *testing.T, c *localcluster.Cluster) {
	t.Helper()
	vg := c.Plane(localcluster.VirtualGardenPlane)
	cs, err := kubernetes.NewForConfig(vg.RESTConfig())
	require.NoError(t, err)
	seeds := dyn(t, vg).Resource(seedsGVR)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { stop(); <-done })
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if list, err := seeds.List(ctx, metav1.ListOptions{}); err == nil {
				for i := range list.Items {
					syncSeedSecrets(ctx, cs, &list.Items[i])
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
}

// syncSeedSecrets is one reconciliation of the seed-secrets controller for a Seed; errors wait for
// the next one.
func syncSeedSecrets(ctx context.Context, cs kubernetes.Interface, seed *unstructured.Unstructured) {
	namespace := "seed-" + seed.GetName()
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: namespace, Labels: map[string]string{"gardener.cloud/role": "seed"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "core.gardener.cloud/v1beta1", Kind: "Seed", Name: seed.GetName(),
			UID: seed.GetUID(), Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}},
	}}, metav1.CreateOptions{FieldManager: "gardener-controller-manager"})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return
	}
	const selector = "gardener.cloud/role,gardener.cloud/role notin (kubeconfig,ssh-keypair,monitoring)"
	sources, err := cs.CoreV1().Secrets("garden").List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return
	}
	copies, err := cs.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return
	}
	existing := map[string]*corev1.Secret{}
	for i := range copies.Items {
		existing[copies.Items[i].Name] = &copies.Items[i]
	}
	for _, s := range sources.Items {
		copied := existing[s.Name]
		delete(existing, s.Name)
		if copied == nil {
			_, _ = cs.CoreV1().Secrets(namespace).Create(ctx, &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: s.Name, Labels: s.Labels, Annotations: s.Annotations},
				Type:       s.Type, Data: s.Data,
			}, metav1.CreateOptions{FieldManager: "gardener-controller-manager"})
			continue
		}
		if reflect.DeepEqual(copied.Labels, s.Labels) && reflect.DeepEqual(copied.Annotations, s.Annotations) && reflect.DeepEqual(copied.Data, s.Data) {
			continue
		}
		copied.Labels, copied.Annotations, copied.Data = s.Labels, s.Annotations, s.Data
		_, _ = cs.CoreV1().Secrets(namespace).Update(ctx, copied, metav1.UpdateOptions{FieldManager: "gardener-controller-manager"})
	}
	for name := range existing {
		_ = cs.CoreV1().Secrets(namespace).Delete(ctx, name, metav1.DeleteOptions{})
	}
}

// predictedInstallation reads which registration and seed a predicted creation of a
// ControllerInstallation is for, from its description.
var predictedInstallation = regexp.MustCompile(`^installs extension (\S+) on seed (\S+) \(generateName `)

// enactInstallations plays gardener-controller-manager's controllerregistration-seed controller by
// doing what the plan predicts of it: it creates each predicted ControllerInstallation with a
// generated name, as the controller does, and deletes each whose deletion is predicted.
func enactInstallations(t *testing.T, c *localcluster.Cluster, pl *plan.Plan) {
	t.Helper()
	ctx := context.Background()
	installations := dyn(t, c.Plane(localcluster.VirtualGardenPlane)).Resource(installationsGVR)
	for _, p := range pl.Predictions {
		if p.Ref.Kind != "ControllerInstallation" {
			continue
		}
		switch p.Action {
		case "create":
			m := predictedInstallation.FindStringSubmatch(p.Description)
			require.NotNil(t, m, "a predicted installation names its registration and seed: %s", p.Description)
			registration, seed := m[1], m[2]
			_, err := installations.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "core.gardener.cloud/v1beta1", "kind": "ControllerInstallation",
				"metadata": map[string]any{"generateName": registration + "-"},
				"spec": map[string]any{"registrationRef": map[string]any{"name": registration}, "deploymentRef": map[string]any{"name": registration},
					"seedRef": map[string]any{"name": seed}},
			}}, metav1.CreateOptions{FieldManager: "gardener-controller-manager"})
			require.NoError(t, err, "create the installation of %s on %s", registration, seed)
		case "delete":
			err := installations.Delete(ctx, p.Ref.Name, metav1.DeleteOptions{})
			require.True(t, err == nil || apierrors.IsNotFound(err), "delete the installation %s: %v", p.Ref.Name, err)
		default:
			require.FailNow(t, fmt.Sprintf("gardener-controller-manager does not %s installations", p.Action))
		}
	}
}
