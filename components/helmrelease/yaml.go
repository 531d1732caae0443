package helmrelease

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// parseYAML splits a YAML stream into objects: empty documents (templates rendering nothing
// but comments) are dropped and List objects are expanded into their items, as kubectl and
// helm's client do. Errors name the document, never its content, which may hold secrets.
func parseYAML(data []byte) ([]*unstructured.Unstructured, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []*unstructured.Unstructured
	for doc := 1; ; doc++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		js, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		var m map[string]any
		// utiljson keeps whole numbers as int64, the way the API server decodes them.
		if err := utiljson.Unmarshal(js, &m); err != nil {
			return nil, fmt.Errorf("document %d is not an object", doc)
		}
		if len(m) == 0 {
			continue
		}
		items := []any{m}
		if list, ok := m["items"].([]any); ok && m["kind"] == "List" {
			items = list
		}
		for _, it := range items {
			im, ok := it.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("document %d: list item is not an object", doc)
			}
			u := &unstructured.Unstructured{Object: im}
			if u.GetAPIVersion() == "" || u.GetKind() == "" || u.GetName() == "" {
				return nil, fmt.Errorf("document %d: object %s %q has no apiVersion, kind or metadata.name "+
					"(generateName cannot be applied declaratively)", doc, u.GetKind(), u.GetName())
			}
			out = append(out, u)
		}
	}
}
