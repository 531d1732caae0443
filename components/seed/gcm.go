package seed

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/declarative-gardener/gardener/engine/render"
)

// What gardener-controller-manager's seed-secrets controller does for a Seed
// (pkg/controllermanager/controller/seed/secrets/reconciler.go at Gardener v1.120.0, Gardener's
// "Gardener Controller Manager" docs/concepts/controller-manager.md): it creates the namespace
// seed-<name> in the virtual garden, labelled gardener.cloud/role=seed and controlled by the Seed,
// and keeps in it a copy of every Secret of the garden namespace whose gardener.cloud/role is not
// kubeconfig, ssh-keypair or monitoring (labels, annotations, type and data of the source), and
// deletes copies whose source is gone. The engine renders neither and predicts both; what older
// versions of gardener rendered there is released to it.

// The actor and loop of the predictions.
const (
	actorGCM             = "gardener-controller-manager"
	controllerSeedSecret = "seed-secrets"
)

// SharedSecretSelector selects the garden namespace's Secrets every seed namespace gets a copy of:
// those with a gardener.cloud/role but kubeconfig, ssh-keypair and monitoring
// (gardenRoleSelector in pkg/utils/gardener/secrets.go at Gardener v1.120.0).
const SharedSecretSelector = "gardener.cloud/role,gardener.cloud/role notin (kubeconfig,ssh-keypair,monitoring)"

var (
	seedsRef      = render.LiveRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "seeds"}
	namespacesRef = render.LiveRef{Version: "v1", Resource: "namespaces"}
	secretsRef    = render.ListRef{Version: "v1", Resource: "secrets", LabelSelector: SharedSecretSelector}
)

// seedNamespaceControllerOutput predicts the seed's namespace and Secret copies in the virtual
// garden and hands over to gardener-controller-manager those an older version of gardener
// rendered (parts seed_namespace and seed_secrets): the namespace with the Seed as its controller,
// which gardener-controller-manager requires before it syncs the Secrets ("namespace is not
// controlled by seed" otherwise), and the copies. The hand-over also keeps quiet about the copies
// gardener-controller-manager makes of Secrets the landscape renders, which carry their source's
// label and annotations.
func seedNamespaceControllerOutput(in render.Input, name, virtual string) ([]render.Prediction, []render.Handover, error) {
	if in.List == nil {
		return nil, nil, nil // no clusters to read (graph, validate)
	}
	namespace := Namespace(name)
	seedRef := seedsRef
	seedRef.Cluster, seedRef.Name = virtual, name
	seed, err := in.Observed(seedRef)
	if err != nil {
		return nil, nil, fmt.Errorf("seed %s: read the live Seed: %w", name, err)
	}
	nsRef := namespacesRef
	nsRef.Cluster, nsRef.Name = virtual, namespace
	ns, err := in.Observed(nsRef)
	if err != nil {
		return nil, nil, fmt.Errorf("seed %s: read the namespace %s: %w", name, namespace, err)
	}
	var predictions []render.Prediction
	if ns == nil {
		predictions = append(predictions, render.Prediction{
			Actor: actorGCM, Controller: controllerSeedSecret, Cluster: virtual, APIVersion: "v1", Kind: "Namespace", Name: namespace, Action: "create",
			Description: "creates the seed's namespace, labelled gardener.cloud/role=seed and controlled by the Seed, once the Seed exists",
		})
	}
	copies, err := secretCopies(in, name, virtual)
	if err != nil {
		return nil, nil, err
	}
	predictions = append(predictions, copies...)
	handedOver := []render.Handover{
		{Cluster: virtual, Kind: "Namespace", Name: regexp.MustCompile("^" + regexp.QuoteMeta(namespace) + "$"), Controller: actorGCM, OwnerReferences: controlledBy(seed)},
		{Cluster: virtual, Kind: "Secret", Namespace: namespace, Name: regexp.MustCompile(`.`), Controller: actorGCM},
	}
	return predictions, handedOver, nil
}

// controlledBy is the controller reference to the live Seed; none before it exists.
func controlledBy(seed *unstructured.Unstructured) []metav1.OwnerReference {
	if seed == nil || seed.GetUID() == "" {
		return nil
	}
	yes := true
	return []metav1.OwnerReference{{APIVersion: "core.gardener.cloud/v1beta1", Kind: "Seed", Name: seed.GetName(),
		UID: types.UID(seed.GetUID()), Controller: &yes, BlockOwnerDeletion: &yes}}
}

// secretCopies predicts the changes of the copies of the garden's shared Secrets in the seed's
// namespace: a copy of a Secret that has none, an update of one that differs from its source in
// its labels, annotations, type or data, the deletion of one whose source is gone. Only live
// Secrets count: those the landscape renders are copied once they exist.
func secretCopies(in render.Input, name, virtual string) ([]render.Prediction, error) {
	list := func(namespace string) (map[string]*unstructured.Unstructured, error) {
		ref := secretsRef
		ref.Cluster, ref.Namespace = virtual, namespace
		items, err := in.Listed(ref)
		if err != nil {
			return nil, fmt.Errorf("seed %s: list the Secrets of %s: %w", name, namespace, err)
		}
		out := map[string]*unstructured.Unstructured{}
		for i := range items {
			out[items[i].GetName()] = &items[i]
		}
		return out, nil
	}
	sources, err := list(GardenNamespace)
	if err != nil {
		return nil, err
	}
	copies, err := list(Namespace(name))
	if err != nil {
		return nil, err
	}
	var names []string
	for n := range sources {
		names = append(names, n)
	}
	for n := range copies {
		if sources[n] == nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var out []render.Prediction
	for _, n := range names {
		pr := render.Prediction{Actor: actorGCM, Controller: controllerSeedSecret, Cluster: virtual, APIVersion: "v1", Kind: "Secret",
			Namespace: Namespace(name), Name: n}
		source, copied := sources[n], copies[n]
		switch {
		case copied == nil:
			pr.Action, pr.Description = "create", fmt.Sprintf("copies Secret %s/%s (gardener.cloud/role=%s) into the seed's namespace", GardenNamespace, n, source.GetLabels()["gardener.cloud/role"])
		case source == nil:
			pr.Action, pr.Description = "delete", fmt.Sprintf("deletes the copy of Secret %s/%s, which is gone", GardenNamespace, n)
		case !sameCopy(source, copied):
			pr.Action, pr.Description = "update", fmt.Sprintf("makes the copy's labels, annotations, type and data those of Secret %s/%s", GardenNamespace, n)
		default:
			continue
		}
		out = append(out, pr)
	}
	return out, nil
}

// sameCopy reports whether a copy has its source's labels, annotations, type and data.
func sameCopy(source, copied *unstructured.Unstructured) bool {
	for _, path := range [][]string{{"metadata", "labels"}, {"metadata", "annotations"}, {"type"}, {"data"}} {
		a, _, _ := unstructured.NestedFieldNoCopy(source.Object, path...)
		b, _, _ := unstructured.NestedFieldNoCopy(copied.Object, path...)
		if !reflect.DeepEqual(a, b) {
			return false
		}
	}
	return true
}
