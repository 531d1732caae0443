package seed

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/engine/render"
)

// virtualGarden answers the seed's reads from the virtual garden's objects.
func virtualGarden(objects ...map[string]any) render.Input {
	find := func(resource, namespace, selector string) []unstructured.Unstructured {
		sel, _ := labels.Parse(selector)
		var out []unstructured.Unstructured
		for _, o := range objects {
			u := unstructured.Unstructured{Object: o}
			kinds := map[string]string{"Seed": "seeds", "Namespace": "namespaces", "Secret": "secrets"}
			if kinds[u.GetKind()] == resource && (namespace == "" || u.GetNamespace() == namespace) && sel.Matches(labels.Set(u.GetLabels())) {
				out = append(out, u)
			}
		}
		return out
	}
	return render.Input{
		List: func(ref render.ListRef) ([]unstructured.Unstructured, error) {
			return find(ref.Resource, ref.Namespace, ref.LabelSelector), nil
		},
		Observe: func(ref render.LiveRef) (*unstructured.Unstructured, error) {
			for _, u := range find(ref.Resource, ref.Namespace, "") {
				if u.GetName() == ref.Name {
					return &u, nil
				}
			}
			return nil, nil
		},
	}
}

func secret(namespace, name, role string, data map[string]any) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "data": data,
		"metadata": map[string]any{"name": name, "namespace": namespace, "labels": map[string]any{"gardener.cloud/role": role}}}
}

// Before the Seed exists, gardener-controller-manager will create its namespace and copy the
// garden's shared Secrets into it (not its kubeconfig, ssh-keypair or monitoring ones).
func TestSeedNamespacePredictions(t *testing.T) {
	in := virtualGarden(
		secret("garden", "internal-domain", "internal-domain", map[string]any{"k": "djE="}),
		secret("garden", "alerting", "alerting", nil),
		secret("garden", "garden-kubeconfig", "kubeconfig", nil),
	)
	predictions, releases, err := seedNamespaceControllerOutput(in, "local", "virtual")
	require.NoError(t, err)
	var got []string
	for _, p := range predictions {
		got = append(got, p.Action+" "+p.Kind+" "+p.Namespace+"/"+p.Name+": "+p.Description)
	}
	assert.Equal(t, []string{
		"create Namespace /seed-local: creates the seed's namespace, labelled gardener.cloud/role=seed and controlled by the Seed, once the Seed exists",
		"create Secret seed-local/alerting: copies Secret garden/alerting (gardener.cloud/role=alerting) into the seed's namespace",
		"create Secret seed-local/internal-domain: copies Secret garden/internal-domain (gardener.cloud/role=internal-domain) into the seed's namespace",
	}, got)
	require.Len(t, releases, 2, "nothing an older version rendered is there, but a hand-over names objects whatever the live state")
	assert.Equal(t, "Namespace", releases[0].Kind)
	assert.True(t, releases[0].Name.MatchString("seed-local"))
	assert.False(t, releases[0].Name.MatchString("seed-local2"))
	assert.Empty(t, releases[0].OwnerReferences, "no Seed yet")
	assert.Equal(t, "seed-local", releases[1].Namespace)
	assert.True(t, releases[1].Name.MatchString("internal-domain"), "every Secret of the namespace")
}

// Once the Seed exists, what an older version of gardener made in seed-<name> is released with
// the Seed as the namespace's controller, which gardener-controller-manager needs to sync it;
// copies that differ from their source, or whose source is gone, are predicted to change.
func TestSeedNamespaceHandOver(t *testing.T) {
	in := virtualGarden(
		map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Seed", "metadata": map[string]any{"name": "local", "uid": "4c1f"}},
		map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "seed-local"}},
		secret("garden", "internal-domain", "internal-domain", map[string]any{"k": "djI="}),
		secret("seed-local", "internal-domain", "internal-domain", map[string]any{"k": "djE="}),
		secret("garden", "default-domain", "default-domain", nil),
		secret("seed-local", "default-domain", "default-domain", nil),
		secret("seed-local", "removed", "alerting", nil),
	)
	predictions, releases, err := seedNamespaceControllerOutput(in, "local", "virtual")
	require.NoError(t, err)
	var got []string
	for _, p := range predictions {
		got = append(got, p.Action+" "+p.Namespace+"/"+p.Name)
	}
	assert.Equal(t, []string{"update seed-local/internal-domain", "delete seed-local/removed"}, got)
	assert.Equal(t, []metav1.OwnerReference{{APIVersion: "core.gardener.cloud/v1beta1", Kind: "Seed", Name: "local", UID: "4c1f",
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}, releases[0].OwnerReferences)
}

// Without clusters to read (graph, validate) nothing is predicted.
func TestSeedNamespaceWithoutClusters(t *testing.T) {
	predictions, releases, err := seedNamespaceControllerOutput(render.Input{}, "local", "virtual")
	require.NoError(t, err)
	assert.Empty(t, predictions)
	assert.Empty(t, releases)
}
