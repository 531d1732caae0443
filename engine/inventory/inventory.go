// Package inventory marks the objects a landscape owns. Every object the engine applies carries
// the landscape's label, so that one LIST per kind with a label selector finds everything a
// landscape owns, the component that renders it as an annotation (addresses are not valid label
// values), and a hash of the configuration last applied, so that a plan can tell a change of the
// landscape (config_changed) from an out-of-band edit of the cluster (drift).
//
// The landscape's name alone proves nothing: two landscapes of the same name can share a
// cluster, and anyone who can create objects can label them. So objects also carry the
// landscape's lineage (LineageLabel), the random UUID its state was given on its first write:
// pruning deletes only objects of the landscape's own lineage, and generated key material is
// reused only from Secrets of it (engine/secrets). docs/cli.md ("Ownership") has the rules.
package inventory

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The label and annotations of owned objects.
const (
	// LandscapeLabel names the landscape that owns an object.
	LandscapeLabel = "declarative-gardener.io/landscape"
	// ComponentAnnotation holds the address of the component instance that renders the object.
	ComponentAnnotation = "declarative-gardener.io/component"
	// ConfigHashAnnotation holds a hash of the object as the landscape last rendered it.
	ConfigHashAnnotation = "declarative-gardener.io/config-hash"
	// LineageLabel holds the lineage of the landscape's state (state.State.Lineage) that applied
	// the object. A label, so that a person can list what one incarnation of a landscape owns.
	LineageLabel = "declarative-gardener.io/lineage"
)

// FieldManager is the server-side apply field manager of every write the engine makes.
const FieldManager = "gardener"

// ReportFieldManager is the field manager of the status the engine reports as gardenlet
// (engine/report), apart from FieldManager: a report is gardenlet's part, not the landscape's.
// Components read it to tell a status the engine wrote from one a gardenlet wrote.
const ReportFieldManager = "gardener-report"

// ValidateLandscapeName reports whether a landscape name can be the inventory label's value.
func ValidateLandscapeName(name string) error {
	if errs := validation.IsValidLabelValue(name); len(errs) > 0 || name == "" {
		return fmt.Errorf("landscape name %q cannot label the objects it owns: it must be 1 to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", name)
	}
	return nil
}

// ValidateLineage reports whether a lineage can be the lineage label's value (a state's lineage is
// a UUID, which always can).
func ValidateLineage(lineage string) error {
	if errs := validation.IsValidLabelValue(lineage); len(errs) > 0 || lineage == "" {
		return fmt.Errorf("lineage %q cannot label the objects of a landscape: it must be 1 to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", lineage)
	}
	return nil
}

// Selector is the label selector matching every object of a landscape.
func Selector(landscape string) string { return LandscapeLabel + "=" + landscape }

// Redact replaces the secrets in an object (a copy, which it may change in place) before the
// object is hashed.
type Redact func(obj map[string]any)

// Stamp labels and annotates a rendered object as owned by a landscape's component. The hash
// covers everything else in the object, with its secrets replaced by redact, so it changes when
// the rendered object does and, being on the cluster and in saved plans, reveals nothing about
// secret values (a change of a secret alone leaves it as it is). A label or annotation value
// that is not a string is an error: Kubernetes would reject it, and dropping it would be worse.
func Stamp(u *unstructured.Unstructured, landscape, component string, redact Redact) error {
	labels, err := stringMap(u, "labels")
	if err != nil {
		return err
	}
	annotations, err := stringMap(u, "annotations")
	if err != nil {
		return err
	}
	labels[LandscapeLabel] = landscape
	u.SetLabels(labels)
	annotations[ComponentAnnotation] = component
	delete(annotations, ConfigHashAnnotation)
	u.SetAnnotations(annotations)
	h, err := Hash(u, redact)
	if err != nil {
		return err
	}
	annotations[ConfigHashAnnotation] = h
	u.SetAnnotations(annotations)
	return nil
}

// SetLineage labels an object with the lineage of the landscape that applies it. The
// configuration hash leaves the label out (Hash): a plan made before the landscape's state has a
// lineage and the apply that gives it one (and labels what it writes with it) hash alike.
func SetLineage(u *unstructured.Unstructured, lineage string) {
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LineageLabel] = lineage
	u.SetLabels(labels)
}

// Lineage returns the lineage an object is labelled with, "" when none.
func Lineage(u *unstructured.Unstructured) string { return u.GetLabels()[LineageLabel] }

// stringMap reads metadata.labels or metadata.annotations, which must map strings to strings.
func stringMap(u *unstructured.Unstructured, field string) (map[string]string, error) {
	raw, found, err := unstructured.NestedFieldNoCopy(u.Object, "metadata", field)
	if err != nil {
		return nil, fmt.Errorf("%s %s: metadata.%s: %w", u.GetKind(), u.GetName(), field, err)
	}
	out := map[string]string{}
	if !found || raw == nil {
		return out, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s %s: metadata.%s must be a map of strings", u.GetKind(), u.GetName(), field)
	}
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s %s: metadata.%s[%s] must be a string, not %T", u.GetKind(), u.GetName(), field, k, v)
		}
		out[k] = s
	}
	return out, nil
}

// Hash is the hex SHA-256 of an object's JSON form without the hash annotation and the lineage
// label (SetLineage) and with its secrets replaced by redact (nil: none); encoding/json sorts map
// keys, so equal objects hash equally. Without redact nothing of the object is copied but the
// maps that lead to the label and the annotation it leaves out: a plan hashes every object it
// renders, and a deep copy of each was as much garbage as the landscape.
func Hash(u *unstructured.Unstructured, redact Redact) (string, error) {
	var obj map[string]any
	if redact == nil {
		obj = withoutMarks(u.Object)
	} else {
		c := u.DeepCopy()
		if a := c.GetAnnotations(); a[ConfigHashAnnotation] != "" {
			delete(a, ConfigHashAnnotation)
			c.SetAnnotations(a)
		}
		if l := c.GetLabels(); l[LineageLabel] != "" {
			delete(l, LineageLabel)
			c.SetLabels(l)
		}
		redact(c.Object)
		obj = c.Object
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return "", fmt.Errorf("object %s: %w", u.GetName(), err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// withoutMarks is obj without the hash annotation and the lineage label (when they are set),
// sharing everything with obj but the maps on the way to them.
func withoutMarks(obj map[string]any) map[string]any {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return obj
	}
	annotations := without(md["annotations"], ConfigHashAnnotation)
	labels := without(md["labels"], LineageLabel)
	if annotations == nil && labels == nil {
		return obj
	}
	md = maps.Clone(md)
	if annotations != nil {
		md["annotations"] = annotations
	}
	if labels != nil {
		md["labels"] = labels
	}
	obj = maps.Clone(obj)
	obj["metadata"] = md
	return obj
}

// without is the string map m without key, nil when m does not set key to a non-empty string.
func without(m any, key string) map[string]any {
	sm, ok := m.(map[string]any)
	if !ok {
		return nil
	}
	if v, _ := sm[key].(string); v == "" {
		return nil
	}
	out := maps.Clone(sm)
	delete(out, key)
	return out
}

// Component returns the component address an owned object is annotated with.
func Component(u *unstructured.Unstructured) string {
	return u.GetAnnotations()[ComponentAnnotation]
}

// AppliedHash returns the configuration hash an owned object was last applied with.
func AppliedHash(u *unstructured.Unstructured) string {
	return u.GetAnnotations()[ConfigHashAnnotation]
}

// markingAnnotations are the annotations Stamp adds besides the labels.
var markingAnnotations = []string{ComponentAnnotation, ConfigHashAnnotation}

// markingLabels are the labels Stamp and SetLineage add.
var markingLabels = []string{LandscapeLabel, LineageLabel}

// Markings returns, as metadata paths (".metadata.labels[<key>]",
// ".metadata.annotations[<key>]") with their values, the labels and annotations by which Stamp
// and SetLineage marked a live object as a landscape's: what releasing the object removes.
func Markings(u *unstructured.Unstructured) map[string]string {
	out := map[string]string{}
	for _, k := range markingLabels {
		if v, ok := u.GetLabels()[k]; ok {
			out[".metadata.labels["+k+"]"] = v
		}
	}
	for _, k := range markingAnnotations {
		if v, ok := u.GetAnnotations()[k]; ok {
			out[".metadata.annotations["+k+"]"] = v
		}
	}
	return out
}

// UnmarkPatch is the JSON merge patch (RFC 7386) that removes the landscape and lineage labels
// and the annotations Stamp adds, and nothing else, from an object: how an object is released to
// another owner. A server-side apply could not do this without dropping every other field the
// engine applied, which the new owner may rely on (a project namespace's labels, which
// gardener-controller-manager demands but did not write itself).
func UnmarkPatch() []byte {
	annotations, labels := map[string]any{}, map[string]any{}
	for _, k := range markingAnnotations {
		annotations[k] = nil
	}
	for _, k := range markingLabels {
		labels[k] = nil
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"labels": labels, "annotations": annotations,
	}}) // maps of strings and nils always marshal
	return patch
}
