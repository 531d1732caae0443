package diff

import (
	"encoding/json"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// managerID is the key structured-merge-diff knows a manager by, built exactly as the API server
// builds it: the entry without fields and time, and without apiVersion for Apply entries (an
// applier owns its fields whatever version it applied in).
func managerID(e metav1.ManagedFieldsEntry) (string, error) {
	e.FieldsType = ""
	e.FieldsV1 = nil
	e.Time = nil
	if e.Operation == metav1.ManagedFieldsOperationApply {
		e.APIVersion = ""
	}
	b, err := json.Marshal(&e)
	if err != nil {
		return "", fmt.Errorf("managed fields: %w", err)
	}
	return string(b), nil
}

// managerName extracts the manager's name from a manager identifier.
func managerName(id string) string {
	var e metav1.ManagedFieldsEntry
	if err := json.Unmarshal([]byte(id), &e); err != nil || e.Manager == "" {
		return id
	}
	return e.Manager
}

// managedEntry is the unstructured form of one metadata.managedFields entry.
type managedEntry struct {
	meta   metav1.ManagedFieldsEntry // without FieldsV1
	fields map[string]any            // fieldsV1
}

// managedEntries reads metadata.managedFields of an unstructured object without converting it
// through reflection.
func managedEntries(obj map[string]any) ([]managedEntry, error) {
	md, _ := obj["metadata"].(map[string]any)
	list, _ := md["managedFields"].([]any)
	out := make([]managedEntry, 0, len(list))
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("managed fields entry %d: not an object", i)
		}
		var e managedEntry
		e.meta.Manager, _ = m["manager"].(string)
		op, _ := m["operation"].(string)
		e.meta.Operation = metav1.ManagedFieldsOperationType(op)
		e.meta.APIVersion, _ = m["apiVersion"].(string)
		e.meta.FieldsType, _ = m["fieldsType"].(string)
		e.meta.Subresource, _ = m["subresource"].(string)
		if ts, ok := m["time"].(string); ok {
			var t metav1.Time
			if err := t.UnmarshalQueryParameter(ts); err == nil {
				e.meta.Time = &t
			}
		}
		e.fields, _ = m["fieldsV1"].(map[string]any)
		switch e.meta.Operation {
		case metav1.ManagedFieldsOperationApply, metav1.ManagedFieldsOperationUpdate:
		default:
			return nil, fmt.Errorf("managed fields entry %d: operation must be Apply or Update", i)
		}
		if e.meta.APIVersion == "" {
			return nil, fmt.Errorf("managed fields entry %d: apiVersion must not be empty", i)
		}
		if e.meta.FieldsType != "FieldsV1" {
			return nil, fmt.Errorf("managed fields entry %d: invalid fieldsType %q", i, e.meta.FieldsType)
		}
		out = append(out, e)
	}
	return out, nil
}

// managed is an object's decoded field ownership plus what re-encoding needs.
type managed struct {
	fields fieldpath.ManagedFields
	meta   map[string]metav1.ManagedFieldsEntry // by manager id
}

// decodeManaged decodes every entry into structured-merge-diff sets.
func decodeManaged(entries []managedEntry) (managed, error) {
	m := managed{fields: make(fieldpath.ManagedFields, len(entries)), meta: make(map[string]metav1.ManagedFieldsEntry, len(entries))}
	for _, e := range entries {
		id, err := managerID(e.meta)
		if err != nil {
			return managed{}, err
		}
		set, err := fieldsToSet(e.fields)
		if err != nil {
			return managed{}, fmt.Errorf("managed fields of %s: %w", e.meta.Manager, err)
		}
		m.fields[id] = fieldpath.NewVersionedSet(set, fieldpath.APIVersion(e.meta.APIVersion), e.meta.Operation == metav1.ManagedFieldsOperationApply)
		m.meta[id] = e.meta
	}
	return m, nil
}

// fieldsToSet converts a FieldsV1 tree, as an unstructured map, into a set: the same set
// fieldpath.Set.FromJSON reads from its JSON form.
func fieldsToSet(fields map[string]any) (*fieldpath.Set, error) {
	set := fieldpath.NewSet()
	if err := insertFields(set, nil, fields); err != nil {
		return nil, err
	}
	return set, nil
}

// insertFields inserts the paths below prefix; a node is a member when it has a "." key or no
// (understood) children.
func insertFields(set *fieldpath.Set, prefix fieldpath.Path, tree map[string]any) error {
	for key, child := range tree {
		if key == "." {
			continue
		}
		pe, err := fieldpath.DeserializePathElement(key)
		if err == fieldpath.ErrUnknownPathElementType {
			continue
		}
		if err != nil {
			return fmt.Errorf("path element %q: %w", key, err)
		}
		path := make(fieldpath.Path, len(prefix)+1)
		copy(path, prefix)
		path[len(prefix)] = pe
		sub, _ := child.(map[string]any)
		_, member := sub["."]
		if !member && !hasUnderstoodChild(sub) {
			member = true
		}
		if member {
			set.Insert(path)
		}
		if err := insertFields(set, path, sub); err != nil {
			return err
		}
	}
	return nil
}

func hasUnderstoodChild(tree map[string]any) bool {
	for key := range tree {
		if key == "." {
			continue
		}
		if _, err := fieldpath.DeserializePathElement(key); err == nil {
			return true
		}
	}
	return false
}

// encodeManaged renders managed fields in unstructured form, sorted as the API server sorts
// them (operation, time, manager, apiVersion, subresource).
func encodeManaged(m managed) ([]any, error) {
	entries := make([]metav1.ManagedFieldsEntry, 0, len(m.fields))
	sets := make(map[int]*fieldpath.Set, len(m.fields))
	for id, vs := range m.fields {
		e, ok := m.meta[id]
		if !ok {
			if err := json.Unmarshal([]byte(id), &e); err != nil {
				return nil, fmt.Errorf("managed fields: manager %s: %w", id, err)
			}
		}
		e.APIVersion = string(vs.APIVersion())
		if vs.Applied() {
			e.Operation = metav1.ManagedFieldsOperationApply
		}
		e.FieldsType = "FieldsV1"
		sets[len(entries)] = vs.Set()
		entries = append(entries, e)
	}
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		p, q := entries[order[i]], entries[order[j]]
		if p.Operation != q.Operation {
			return p.Operation < q.Operation
		}
		var ps, qs int64
		if p.Time != nil {
			ps = p.Time.Unix()
		}
		if q.Time != nil {
			qs = q.Time.Unix()
		}
		if ps != qs {
			return ps < qs
		}
		if p.Manager != q.Manager {
			return p.Manager < q.Manager
		}
		if p.APIVersion != q.APIVersion {
			return p.APIVersion < q.APIVersion
		}
		return p.Subresource < q.Subresource
	})
	out := make([]any, 0, len(entries))
	for _, i := range order {
		e := entries[i]
		raw, err := sets[i].ToJSON()
		if err != nil {
			return nil, fmt.Errorf("managed fields of %s: %w", e.Manager, err)
		}
		var fields map[string]any
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, fmt.Errorf("managed fields of %s: %w", e.Manager, err)
		}
		entry := map[string]any{
			"manager":    e.Manager,
			"operation":  string(e.Operation),
			"apiVersion": e.APIVersion,
			"fieldsType": e.FieldsType,
			"fieldsV1":   fields,
		}
		if e.Time != nil {
			entry["time"] = e.Time.UTC().Format("2006-01-02T15:04:05Z")
		}
		if e.Subresource != "" {
			entry["subresource"] = e.Subresource
		}
		out = append(out, entry)
	}
	return out, nil
}
