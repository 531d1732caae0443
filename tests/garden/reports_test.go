package garden

import (
	"context"
	"encoding/base64"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/declarative-gardener/gardener/engine/report"
)

// assertSeedReported checks what the engine reported about the local Seed as gardenlet does
// (engine/report): its heartbeat Lease, owned by the Seed, in gardener-system-seed-lease, which
// gardener-controller-manager's seed lifecycle controller and gardener-scheduler look for; its
// GardenletReady and SeedSystemComponentsHealthy conditions; the finalizer; the generation
// observed.
func assertSeedReported(t *testing.T, vdyn dynamic.Interface, seed *unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	lease, err := vdyn.Resource(schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}).
		Namespace("gardener-system-seed-lease").Get(ctx, seed.GetName(), metav1.GetOptions{})
	require.NoError(t, err, "the seed's heartbeat Lease")
	holder, _, _ := unstructured.NestedString(lease.Object, "spec", "holderIdentity")
	assert.Equal(t, seed.GetName(), holder)
	require.Len(t, lease.GetOwnerReferences(), 1)
	assert.Equal(t, seed.GetUID(), lease.GetOwnerReferences()[0].UID)
	conditions := conditionStatuses(seed)
	assert.Equal(t, "True", conditions["GardenletReady"])
	assert.Equal(t, "True", conditions["SeedSystemComponentsHealthy"])
	assert.Contains(t, seed.GetFinalizers(), "gardener")
	observed, _, _ := unstructured.NestedInt64(seed.Object, "status", "observedGeneration")
	assert.Equal(t, seed.GetGeneration(), observed)
}

// assertShootReported checks what the engine reported about a Shoot: its operation Succeeded
// at 100 %, the care controller's conditions (EveryNodeReady only with workers, Unknown since
// nodes are not watched), the technical ID and seed, the uid, the finalizer.
func assertShootReported(t *testing.T, vdyn dynamic.Interface, name string, workers bool) {
	t.Helper()
	shoot, err := vdyn.Resource(schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}).
		Namespace("garden-local").Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	op, _, _ := unstructured.NestedMap(shoot.Object, "status", "lastOperation")
	assert.Equal(t, "Succeeded", op["state"], "%s: %v", name, op)
	assert.Equal(t, int64(100), op["progress"], name)
	assert.Equal(t, "Shoot cluster has been successfully reconciled.", op["description"], name)
	want := map[string]string{"APIServerAvailable": "True", "ControlPlaneHealthy": "True", "ObservabilityComponentsHealthy": "True", "SystemComponentsHealthy": "True"}
	if workers {
		want["EveryNodeReady"] = "Unknown"
	}
	assert.Equal(t, want, conditionStatuses(shoot), name)
	technicalID, _, _ := unstructured.NestedString(shoot.Object, "status", "technicalID")
	assert.Equal(t, "shoot--local--"+name, technicalID)
	seedName, _, _ := unstructured.NestedString(shoot.Object, "status", "seedName")
	assert.Equal(t, "local", seedName)
	uid, _, _ := unstructured.NestedString(shoot.Object, "status", "uid")
	assert.Equal(t, string(shoot.GetUID()), uid)
	assert.Contains(t, shoot.GetFinalizers(), "gardener")
	observed, _, _ := unstructured.NestedInt64(shoot.Object, "status", "observedGeneration")
	assert.Equal(t, shoot.GetGeneration(), observed, name)
}

// assertInstallationReported checks what the engine reported about a ControllerInstallation whose
// extension it deployed, as gardenlet's controllerinstallation, care and required controllers do
// (pkg/gardenlet/controller/controllerinstallation at Gardener v1.120.0): Valid, Installed and
// Healthy True and Progressing False from the extension's ManagedResource, Required True while
// the seed holds extension resources of its types (the landscape's shoots), each with Gardener's
// reason; the status written by the engine's report field manager alone (kwok reports on no
// Gardener object); no finalizer and nothing but conditions.
func assertInstallationReported(t *testing.T, vdyn dynamic.Interface, name string) {
	t.Helper()
	ci, err := vdyn.Resource(installationsGVR).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	reasons := map[string]string{}
	list, _, _ := unstructured.NestedSlice(ci.Object, "status", "conditions")
	for _, c := range list {
		m := c.(map[string]any)
		reasons[m["type"].(string)] = m["status"].(string) + " " + m["reason"].(string)
	}
	assert.Equal(t, map[string]string{
		"Valid": "True RegistrationValid", "Installed": "True InstallationSuccessful", "Healthy": "True ControllerHealthy",
		"Progressing": "False ControllerRolledOut", "Required": "True ExtensionObjectsExist",
	}, reasons, name)
	var managers []string
	for _, m := range ci.GetManagedFields() {
		if m.Subresource == "status" {
			managers = append(managers, m.Manager)
		}
	}
	assert.Equal(t, []string{report.FieldManager}, managers, "the engine alone writes %s's status", name)
	assert.Empty(t, ci.GetFinalizers(), name)
	status, _, _ := unstructured.NestedMap(ci.Object, "status")
	assert.Equal(t, []string{"conditions"}, slices.Collect(maps.Keys(status)), name)
}

// conditionStatuses are an object's conditions' statuses by type.
func conditionStatuses(u *unstructured.Unstructured) map[string]string {
	out := map[string]string{}
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range list {
		if m, ok := c.(map[string]any); ok {
			out[m["type"].(string)] = m["status"].(string)
		}
	}
	return out
}

// assertAdminKubeconfig asks gardener-apiserver for an admin kubeconfig of the shoot, as a user
// does (gardenctl, the dashboard): the subresource signs a client certificate with the client CA
// the engine published as <shoot>.ca-client, trusts the CA bundle of <shoot>.ca-cluster and
// points at the Shoot's advertised addresses
// (pkg/apiserver/registry/core/shoot/storage/kubeconfig.go at Gardener v1.120.0).
func assertAdminKubeconfig(t *testing.T, vdyn dynamic.Interface, name string) {
	t.Helper()
	req := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "authentication.gardener.cloud/v1alpha1", "kind": "AdminKubeconfigRequest",
		"metadata": map[string]any{"name": name, "namespace": "garden-local"},
		"spec":     map[string]any{"expirationSeconds": int64(600)},
	}}
	res, err := vdyn.Resource(schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}).
		Namespace("garden-local").Create(context.Background(), req, metav1.CreateOptions{}, "adminkubeconfig")
	require.NoError(t, err, "the adminkubeconfig subresource of %s", name)
	encoded, _, _ := unstructured.NestedString(res.Object, "status", "kubeconfig")
	kubeconfig, err := base64.StdEncoding.DecodeString(encoded)
	require.NoError(t, err)
	config, err := clientcmd.Load(kubeconfig)
	require.NoError(t, err)
	require.NotEmpty(t, config.Clusters)
	for clusterName, c := range config.Clusters {
		assert.True(t, strings.HasPrefix(c.Server, "https://api."), "%s points at an advertised address: %s", clusterName, c.Server)
	}
	require.NotEmpty(t, config.AuthInfos)
	for _, user := range config.AuthInfos {
		assert.NotEmpty(t, user.ClientCertificateData, "a client certificate signed by the published client CA")
	}
}
