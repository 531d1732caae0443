package secrets

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/declarative-gardener/gardener/engine/inventory"
)

// Provenance is what the landscape knows about the Secrets it generated, by which Generate tells
// its own key material from material someone else put in place.
//
// The class label and the config hash prove nothing: anyone who knows the landscape can compute
// the hash, and whoever can create Secrets in a namespace before the first apply would choose its
// CA. So a live Secret's material is the landscape's own only when
//
//   - the engine's field manager (inventory.FieldManager) wrote every data key of the class with
//     a server-side apply: a key someone changed in place belongs to their field manager then, and
//     a Secret someone created belongs to theirs from the start; and
//   - it carries the landscape's lineage (inventory.LineageLabel), the random UUID of the
//     landscape's state, which does not exist before the first apply and so cannot be guessed
//     before it; or, for a Secret generated before objects carried their lineage, the state
//     records it under its UID (which the API server gives and nobody can choose).
//
// Everything else is foreign: Generate generates new material and says why (Result.Foreign).
// A lost state does not make every CA foreign by accident: the plan refuses objects of another
// lineage until the operator continues the old lineage (`--adopt-lineage`), whose Secrets are
// then the landscape's again. Field manager names are chosen by clients, so the rule keeps out
// what was planted without knowledge of the lineage; RBAC that lets nobody else write Secrets in
// the landscape's namespaces is the defence against more.
type Provenance struct {
	// Lineage is the landscape's lineage (the state's); empty while it has none: before the first
	// apply nothing is the landscape's.
	Lineage string
	// RecordedUID is the UID under which the landscape's state records the Secret; empty when it
	// records none (or records it as pending, before it had one).
	RecordedUID string
	// Stateless is set for plans made without the landscape's state (offline plans from a
	// snapshot, library callers that pass none): the lineage cannot be checked and the field
	// manager alone decides. Such plans change nothing by themselves; apply plans again with the
	// state.
	Stateless bool
	// Imported is set when an import block of the landscape names the Secret: the operator
	// adopts its key material explicitly (issue 28 keeps material the landscape did not generate
	// out otherwise). It is reused as long as it is usable, whoever wrote it and whatever class
	// label and config hash it carries; apply then gives it the landscape's lineage, and the
	// engine's field manager takes its data over, so that it is the landscape's own from then on.
	Imported bool
}

// foreignReason says why the material of live is not the landscape's own, or "" when it is.
// Reasons name field managers, lineages and keys, never values.
func foreignReason(req Request, live *unstructured.Unstructured, p Provenance) string {
	if why := notWrittenByEngine(req, live); why != "" {
		return why
	}
	if p.Stateless {
		return ""
	}
	lineage := inventory.Lineage(live)
	switch {
	case lineage != "" && lineage == p.Lineage:
		return ""
	case lineage == "" && p.RecordedUID != "" && p.RecordedUID == string(live.GetUID()):
		return "" // generated before objects carried their lineage; the state proves it
	case lineage == "":
		return "it carries no lineage and the landscape's state does not record it"
	case p.Lineage == "":
		return fmt.Sprintf("it carries lineage %s and this landscape has no state yet", lineage)
	}
	return fmt.Sprintf("it carries lineage %s, not this landscape's lineage %s", lineage, p.Lineage)
}

// notWrittenByEngine says which field managers other than the engine's server-side apply own
// the class's data keys of live ("" when the engine's own them all).
func notWrittenByEngine(req Request, live *unstructured.Unstructured) string {
	data, _, _ := unstructured.NestedMap(live.Object, "data")
	var keys []string
	for _, k := range req.Class.DataKeys() {
		if _, ok := data[k]; ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "" // nothing to reuse; inspecting the material says why
	}
	owners := map[string][]string{} // data key -> field managers
	for _, m := range live.GetManagedFields() {
		if m.Subresource != "" || m.FieldsV1 == nil {
			continue
		}
		set := &fieldpath.Set{}
		if err := set.FromJSON(bytes.NewReader(m.FieldsV1.Raw)); err != nil {
			continue
		}
		manager := m.Manager
		if m.Manager == inventory.FieldManager && m.Operation != metav1.ManagedFieldsOperationApply {
			manager += " (" + string(m.Operation) + ")"
		}
		for _, k := range keys {
			if set.Has(fieldpath.MakePathOrDie("data", k)) {
				owners[k] = append(owners[k], manager)
			}
		}
	}
	var others []string
	for _, k := range keys {
		if !slices.Contains(owners[k], inventory.FieldManager) {
			if len(owners[k]) == 0 {
				others = append(others, "no field manager")
			}
			others = append(others, owners[k]...)
		}
	}
	if len(others) == 0 {
		return ""
	}
	slices.Sort(others)
	return fmt.Sprintf("its data was written by %s, not by gardener's server-side apply", strings.Join(slices.Compact(others), ", "))
}
