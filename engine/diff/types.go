// Package diff computes what a server-side apply would change, locally: it merges the desired
// object into the live one with structured-merge-diff, typed by the server's OpenAPI v3 schema,
// the way the API server's field manager does, and reports the fields whose stored value would
// change, the fields another manager owns with a different value, and immutable fields that force
// a replacement. Server-populated fields and defaults are never changes.
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
	// defaulting or admission), managedFields included; nil for Create.
	Merged *unstructured.Unstructured
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
