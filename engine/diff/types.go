// Package diff computes what a server-side apply would change, locally: it merges the desired
// object into the live one with structured-merge-diff, typed by the server's OpenAPI v3 schema,
// the way the API server's field manager does, and reports the fields whose stored value would
// change, the fields another manager owns with a different value, and immutable fields that force
// a replacement. Server-populated fields and defaults are never changes.
//
// # Semantics
//
// Diff replays the server's apply: fields we set whose value differs change; fields our manager
// owned (live managedFields) and no longer sets are removed unless another manager also owns
// them; other managers' fields are kept; a field another manager owns with a different value is
// a Conflict (named by manager) unless forcing, and Changes then show the forced result. An
// object without managedFields is first adopted by "before-first-apply", as the server does.
// Status (reset by the main resource) and the metadata the server maintains (managedFields,
// resourceVersion, generation, uid, creationTimestamp, selfLink, deletion fields) are never
// changes. A no-op is recognised without merging when our manager already owns exactly the
// desired fields with the desired values, which keeps a no-op plan cheap.
//
// # Normalisation
//
// The server decodes a built-in object into its Go type and encodes it again before storing it,
// and defaults it. The differ mirrors what that changes, verified against a real API server by
// the corpus test:
//   - quantities compare by amount ("1000m" == "1", "1Gi" == "1024Mi") in built-in kinds; in
//     custom resources they are stored as written, so "8Gi" vs "8192Mi" is a change there;
//   - JSON numbers compare numerically (1 == 1.0); timestamps by instant;
//   - int-or-string values keep their type: 80 vs "80" is a change (for built-in ports the server
//     rejects a numeric string; custom resources store it);
//   - empty values of omitempty Go fields (readOnly: false, args: [], annotations: {}) vanish;
//   - Secret stringData is folded into data, which is what is stored;
//   - a field removed by the apply that the server defaults again is compared with its default:
//     custom resources' schema defaults, and a table of built-in defaults (defaults.go) that
//     matters most inside atomic values such as an env var's fieldRef, a NetworkPolicy port or a
//     webhook rule;
//   - keyed list items are matched by key, so reordering them is not a change; atomic lists
//     compare by index, sets by value.
//
// Known differences from the server: defaults outside the built-in table (for example admission
// plugins or defaults of rarely used fields) make a removed field look removed rather than reset
// to its default; managers that recorded their fields in another API version are compared in
// the applied version without conversion; Service clusterIP "" is not treated as "keep the
// allocated IP". A plan confirms non-empty diffs with a server dry-run where exactness matters.
package diff

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Action is what applying the desired object does to the live one.
type Action string

// The actions of an object diff.
const (
	Create Action = "create"
	Update Action = "update"
	NoOp   Action = "no-op"
)

// Result is the diff of one object.
type Result struct {
	Action Action
	// Changes are the fields whose stored value changes, sorted by Path.
	Changes []Change
	// Conflicts are fields another field manager owns and we set to a different value; applying
	// without force fails on them. Sorted by Path.
	Conflicts []Conflict
	// Immutable lists the paths of immutable fields whose value changes; a non-empty list means
	// the object must be replaced (deleted and created). Sorted.
	Immutable []string
	// Merged is the object as the server would store it after the apply (without server-side
	// defaulting or admission), managedFields included; nil for Create. It may share nested
	// values with the live object (for a no-op it is the live object): treat it as read-only.
	Merged *unstructured.Unstructured
	// ManagedFieldsChanged is true when applying would change field ownership, even if no value
	// changes (we start co-owning a field another manager set to our value, or stop owning one
	// another manager keeps). Such an apply is a no-op for the plan but not for managedFields.
	ManagedFieldsChanged bool
}

// Change is one field whose value changes.
type Change struct {
	// Path is the field's path in the form ".spec.replicas", ".metadata.labels[app]",
	// ".spec.template.spec.containers[name=etcd].image", ".spec.args[2]" (atomic lists by index).
	Path string
	// Old and New are JSON values (as decoded by encoding/json into any); nil when absent.
	Old, New any
	// Sensitive is true for fields whose values must never be shown (a Secret's data and
	// stringData); the values are still set so that callers can compare them.
	Sensitive bool
}

// Conflict is a field owned by another field manager that the desired object sets differently.
type Conflict struct {
	Path    string
	Manager string
}
