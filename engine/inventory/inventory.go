// Package inventory marks the objects a landscape owns. Every object the engine applies carries
// the landscape's label, so that one LIST per kind with a label selector finds everything a
// landscape owns, the component that renders it as an annotation (addresses are not valid label
// values), and a hash of the configuration last applied, so that a plan can tell a change of the
// landscape (config_changed) from an out-of-band edit of the cluster (drift).
package inventory

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

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
)

// FieldManager is the server-side apply field manager of every write the engine makes.
const FieldManager = "gardener"

// ValidateLandscapeName reports whether a landscape name can be the inventory label's value.
func ValidateLandscapeName(name string) error {
	if errs := validation.IsValidLabelValue(name); len(errs) > 0 || name == "" {
		return fmt.Errorf("landscape name %q cannot label the objects it owns: it must be 1 to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", name)
	}
	return nil
}

// Selector is the label selector matching every object of a landscape.
func Selector(landscape string) string { return LandscapeLabel + "=" + landscape }

// Stamp labels and annotates a rendered object as owned by a landscape's component. The hash
// covers everything else in the object, so it changes exactly when the rendered object does.
func Stamp(u *unstructured.Unstructured, landscape, component string) error {
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LandscapeLabel] = landscape
	u.SetLabels(labels)
	annotations := u.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[ComponentAnnotation] = component
	delete(annotations, ConfigHashAnnotation)
	u.SetAnnotations(annotations)
	h, err := Hash(u)
	if err != nil {
		return err
	}
	annotations[ConfigHashAnnotation] = h
	u.SetAnnotations(annotations)
	return nil
}

// Hash is the hex SHA-256 of an object's JSON form without the hash annotation; encoding/json
// sorts map keys, so equal objects hash equally.
func Hash(u *unstructured.Unstructured) (string, error) {
	obj := u.Object
	if a := u.GetAnnotations(); a[ConfigHashAnnotation] != "" {
		c := u.DeepCopy()
		delete(a, ConfigHashAnnotation)
		c.SetAnnotations(a)
		obj = c.Object
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return "", fmt.Errorf("object %s: %w", u.GetName(), err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// Component returns the component address an owned object is annotated with.
func Component(u *unstructured.Unstructured) string {
	return u.GetAnnotations()[ComponentAnnotation]
}

// AppliedHash returns the configuration hash an owned object was last applied with.
func AppliedHash(u *unstructured.Unstructured) string {
	return u.GetAnnotations()[ConfigHashAnnotation]
}
