package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Compact reduces an OpenAPI v3 document to what typing objects needs: components.schemas
// without descriptions. The result is itself a valid (if sparse) OpenAPI v3 document. It is the
// form the disk cache and the embedded copy store.
func Compact(doc []byte) ([]byte, error) {
	var parsed struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&parsed); err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	if len(parsed.Components.Schemas) == 0 {
		return nil, fmt.Errorf("openapi document: no components.schemas")
	}
	for _, s := range parsed.Components.Schemas {
		stripDescriptions(s)
	}
	// encoding/json sorts map keys, so equal documents compact to equal bytes.
	out, err := json.Marshal(parsed)
	if err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	return out, nil
}

// stripDescriptions removes the description keyword from a schema and its sub-schemas. Only
// schema positions are visited, so a property that happens to be named "description" survives.
func stripDescriptions(s any) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	delete(m, "description")
	if props, ok := m["properties"].(map[string]any); ok {
		for _, p := range props {
			stripDescriptions(p)
		}
	}
	for _, key := range []string{"items", "additionalProperties", "not"} {
		stripDescriptions(m[key])
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := m[key].([]any); ok {
			for _, sub := range list {
				stripDescriptions(sub)
			}
		}
	}
}

// decodeModels parses the components.schemas of a (possibly compacted) OpenAPI v3 document:
// the map managedfields.NewTypeConverter and schemaconv take.
func decodeModels(doc []byte) (map[string]*spec.Schema, error) {
	var parsed struct {
		Components struct {
			Schemas map[string]*spec.Schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &parsed); err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	if len(parsed.Components.Schemas) == 0 {
		return nil, fmt.Errorf("openapi document: no components.schemas")
	}
	return parsed.Components.Schemas, nil
}
