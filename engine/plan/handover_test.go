package plan

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
)

// A seed of an earlier version rendered its seed-<name> namespace and the copies of the garden's
// Secrets in it as parts; the seed, which renders neither part any more, hands them over to
// gardener-controller-manager, the namespace with the Seed as its controller. Copies
// gardener-controller-manager made itself, which carry their source's label and annotations, are
// left alone without a word.
func TestHandoverOfACompositesParts(t *testing.T) {
	seedRef := metav1.OwnerReference{APIVersion: "core.gardener.cloud/v1beta1", Kind: "Seed", Name: "local", UID: "4c1f", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
	namespace := live(t, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "seed-local"}}}, "seed.local.seed_namespace")
	secret := func(name, comp string) *unstructured.Unstructured {
		return live(t, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": name, "namespace": "seed-local"}}}, comp)
	}
	copied := secret("internal-domain", "seed.local.seed_secrets")
	gcmCopy := secret("default-domain", "component.manifests.dns_credentials") // copied by gardener-controller-manager from a Secret the landscape renders
	untracked := map[object.Ref]bool{object.RefOf(gcmCopy): true}
	p := &pruning{
		cluster: "virtual", landscape: "test", wanted: map[object.Ref]*Desired{}, namespaces: map[string]bool{}, kinds: map[schema.GroupKind]bool{},
		elsewhere: map[object.Ref]bool{},
		rendered: map[config.InstanceAddress]*rendering.Rendered{
			"seed.local": {HandedOver: []render.Handover{
				{Cluster: "virtual", Kind: "Namespace", Name: regexp.MustCompile(`^seed-local$`), Controller: "gardener-controller-manager", OwnerReferences: []metav1.OwnerReference{seedRef}},
				{Cluster: "virtual", Kind: "Secret", Namespace: "seed-local", Name: regexp.MustCompile(`.`), Controller: "gardener-controller-manager"},
			}},
			"component.manifests.dns_credentials": {},
		},
		tracked:  func(_ string, ref object.Ref) bool { return !untracked[ref] },
		protects: func(object.Ref, string) bool { return false },
	}
	toGCM := Reason{Kind: ReasonReleased, Detail: "gardener-controller-manager"}
	assert.Equal(t, verdict{fate: released, component: "seed.local.seed_namespace", reason: toGCM}, p.judge(object.RefOf(namespace), namespace))
	assert.Equal(t, verdict{fate: released, component: "seed.local.seed_secrets", reason: toGCM}, p.judge(object.RefOf(copied), copied))
	assert.Equal(t, verdict{fate: skipped}, p.judge(object.RefOf(gcmCopy), gcmCopy), "no warning about gardener-controller-manager's own copy")

	obs := &observe.Observed{Objects: map[object.Ref]*unstructured.Unstructured{}}
	for _, u := range []*unstructured.Unstructured{namespace, copied, gcmCopy} {
		obs.Objects[object.RefOf(u)] = u
		obs.Inventory = append(obs.Inventory, object.RefOf(u))
	}
	changes, warnings := p.prune(obs)
	assert.Empty(t, warnings)
	require.Len(t, changes, 2)
	assert.Equal(t, []metav1.OwnerReference{seedRef}, changes[0].OwnerReferences, "the namespace gets the Seed as its controller")
	assert.Empty(t, changes[1].OwnerReferences)

	// Released once, the namespace carries the owner: a second release would add nothing.
	namespace.SetOwnerReferences([]metav1.OwnerReference{seedRef})
	changes, _ = p.prune(obs)
	assert.Empty(t, changes[0].OwnerReferences)
}
