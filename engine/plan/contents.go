package plan

import (
	"encoding/base64"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
)

// managedContents replaces the opaque data changes of a Secret that holds a ManagedResource's
// objects (render.ManagedResourceContentsLabel) by the changes of the objects inside, each under
// `.contents[<data key>]`: a plan reviewer sees which Deployment or ConfigMap a shoot's system
// component changes, not "(sensitive value)". Secrets among the contents stay redacted, and so
// does any value holding a secret of the landscape. live is nil for a creation.
func managedContents(changes []FieldChange, desired, live *unstructured.Unstructured, red *render.Redactor) []FieldChange {
	if desired.GetLabels()[render.ManagedResourceContentsLabel] != "true" || desired.GetKind() != "Secret" {
		return changes
	}
	want, err := contentsOf(desired)
	if err != nil {
		return changes // not readable as objects: shown as the Secret it is
	}
	have := map[string]any{}
	if live != nil {
		if have, err = contentsOf(live); err != nil {
			return changes
		}
	}
	var out []FieldChange
	for _, c := range changes {
		if !strings.HasPrefix(c.Path, ".data[") && !strings.HasPrefix(c.Path, ".stringData[") {
			out = append(out, c)
		}
	}
	for _, k := range diff.UnionKeys(want, have) {
		secret := isSecretObject(want[k]) || isSecretObject(have[k])
		out = append(out, changesAt(fmt.Sprintf(".contents[%s]", k), have, want, k, false, secret, red)...)
	}
	return out
}

// predecessor is the live object a created contents Secret supersedes (Desired.Supersedes): a
// ManagedResource's Secret named after a checksum of its objects gets a new name with every
// change, and its contents are shown as changes against the Secret it replaces rather than as a
// whole new set. Nil when there is none, or for any other object; of several, the one whose name
// sorts last. The candidates are the live objects of its kind in its namespace (live): a fleet
// whose shoots each change their system components creates thousands of such Secrets in
// clusters of a hundred thousand objects.
func predecessor(d *Desired, obs *observe.Observed, live *liveIndex) *unstructured.Unstructured {
	if d.Supersedes == nil || d.Object.GetKind() != "Secret" || d.Object.GetLabels()[render.ManagedResourceContentsLabel] != "true" {
		return nil
	}
	own := object.RefOf(d.Object)
	var found *unstructured.Unstructured
	for _, ref := range live.in(own.Group, own.Kind, own.Namespace) {
		obj := obs.Objects[ref]
		if obj == nil || ref.Name == own.Name || !d.Supersedes.MatchString(ref.Name) {
			continue
		}
		if found == nil || ref.Name > found.GetName() {
			found = obj
		}
	}
	return found
}

// liveIndex lists a cluster's live objects by kind and namespace, built on its first use and
// shared by the comparison's goroutines.
type liveIndex struct {
	once sync.Once
	obs  *observe.Observed
	refs map[liveKey][]object.Ref
}

type liveKey struct{ group, kind, namespace string }

func newLiveIndex(obs *observe.Observed) *liveIndex { return &liveIndex{obs: obs} }

// in lists the live objects of a kind in a namespace.
func (x *liveIndex) in(group, kind, namespace string) []object.Ref {
	x.once.Do(func() {
		x.refs = map[liveKey][]object.Ref{}
		for ref := range x.obs.Objects {
			k := liveKey{ref.Group, ref.Kind, ref.Namespace}
			x.refs[k] = append(x.refs[k], ref)
		}
	})
	return x.refs[liveKey{group, kind, namespace}]
}

// contentsOf decodes a contents Secret's objects by data key, from stringData (a rendered
// object) or base64 data (a live one).
func contentsOf(u *unstructured.Unstructured) (map[string]any, error) {
	out := map[string]any{}
	add := func(key, doc string) error {
		obj, err := decodeObject(doc)
		if err != nil {
			return fmt.Errorf("contents %s: %w", key, err)
		}
		out[key] = obj
		return nil
	}
	data, _, _ := unstructured.NestedMap(u.Object, "data")
	for k, v := range data {
		s, _ := v.(string)
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("contents %s: %w", k, err)
		}
		if err := add(k, string(raw)); err != nil {
			return nil, err
		}
	}
	strs, _, _ := unstructured.NestedMap(u.Object, "stringData")
	for k, v := range strs {
		s, _ := v.(string)
		if err := add(k, s); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// decodeObject decodes one object of a contents Secret as sigs.k8s.io/yaml.Unmarshal decodes
// it into a map (JSON's values: numbers as float64), without its detour: sigs.k8s.io/yaml reads
// the YAML with go-yaml v2, writes what it read as JSON and decodes that JSON. For a document of
// maps with string keys, lists, strings, booleans, finite numbers and nulls, the detour only
// turns integers into float64 (a conversion that rounds as JSON's decoding does), so decodeObject
// converts what go-yaml read directly; any other document (keys that are not strings, NaN,
// invalid UTF-8, a document that is not a map) takes the detour, errors included. A full plan
// decodes every ManagedResource's objects it creates; the detour was a third of that.
func decodeObject(doc string) (map[string]any, error) {
	var v any
	if err := yamlv2.Unmarshal([]byte(doc), &v); err == nil {
		switch t := v.(type) {
		case nil:
			return nil, nil
		case map[any]any:
			if m, ok := jsonMap(t); ok {
				return m, nil
			}
		}
	}
	var obj map[string]any
	err := yaml.Unmarshal([]byte(doc), &obj)
	return obj, err
}

// jsonMap is a map go-yaml read with JSON's values (decodeObject); false when it holds anything
// JSON would not give back as it is.
func jsonMap(m map[any]any) (map[string]any, bool) {
	out := make(map[string]any, len(m))
	for k, v := range m {
		key, ok := k.(string)
		if !ok || !utf8.ValidString(key) {
			return nil, false
		}
		if out[key], ok = jsonValue(v); !ok {
			return nil, false
		}
	}
	return out, true
}

// jsonValue is a value go-yaml read with JSON's types (decodeObject).
func jsonValue(v any) (any, bool) {
	switch t := v.(type) {
	case nil, bool:
		return t, true
	case string:
		return t, utf8.ValidString(t)
	case int:
		return float64(t), true
	case int64:
		return float64(t), true
	case uint64:
		return float64(t), true
	case float64:
		return t, !math.IsNaN(t) && !math.IsInf(t, 0)
	case map[any]any:
		return jsonMap(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			var ok bool
			if out[i], ok = jsonValue(e); !ok {
				return nil, false
			}
		}
		return out, true
	default:
		return nil, false
	}
}

func isSecretObject(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	apiVersion, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	return kinds.HoldsSecretDataOf(apiVersion, kind)
}

// diffValues lists the differences between old and new at path, field by field. secretRoot is set
// when old and new are a Secret object itself: the values of its data and stringData are
// sensitive.
func diffValues(path string, old, new any, sensitive, secretRoot bool, red *render.Redactor) []FieldChange {
	if reflect.DeepEqual(old, new) {
		return nil
	}
	om, oldIsMap := old.(map[string]any)
	nm, newIsMap := new.(map[string]any)
	if !oldIsMap || !newIsMap {
		return []FieldChange{redact(FieldChange{Path: path, Before: old, After: new, HasBefore: true, HasAfter: true, Sensitive: sensitive}, red)}
	}
	var out []FieldChange
	for _, k := range diff.UnionKeys(om, nm) {
		childSensitive := sensitive || (secretRoot && (k == "data" || k == "stringData"))
		out = append(out, changesAt(childPath(path, k), om, nm, k, childSensitive, false, red)...)
	}
	return out
}

// changesAt lists, at path, the changes of the value under key k of the maps old and new: each
// of its leaves added when only new has k, removed when only old has it, otherwise field by
// field (diffValues). sensitive and secretRoot are diffValues's.
func changesAt(path string, old, new map[string]any, k string, sensitive, secretRoot bool, red *render.Redactor) []FieldChange {
	ov, inOld := old[k]
	nv, inNew := new[k]
	switch {
	case !inOld:
		return walkLeaves(path, nv, sensitive, secretRoot, red, true)
	case !inNew:
		return walkLeaves(path, ov, sensitive, secretRoot, red, false)
	default:
		return diffValues(path, ov, nv, sensitive, secretRoot, red)
	}
}
