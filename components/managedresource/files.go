package managedresource

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Inline are objects given inline in the configuration. They decode with whole numbers as
// int64, as the API server reads them, so that 1000000 is not packed as 1e+06, and with an
// error naming the element that is not an object.
type Inline []map[string]any

// UnmarshalJSON takes a JSON list of objects; null is no objects.
func (in *Inline) UnmarshalJSON(data []byte) error {
	var v any
	if err := utiljson.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("objects: %w", err)
	}
	if v == nil {
		*in = nil
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("objects must be a list of objects")
	}
	out := make(Inline, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return fmt.Errorf("objects[%d] is not an object", i)
		}
		out = append(out, m)
	}
	*in = out
	return nil
}

// readFile reads the objects of a YAML file, documents separated by ---, skipping empty
// documents and expanding List objects, as kubectl and the manifests component do.
func readFile(dir, name string) ([]map[string]any, error) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, name)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("file %s: %w", name, err)
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []map[string]any
	for doc := 1; ; doc++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("file %s, document %d: %w", name, doc, err)
		}
		js, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("file %s, document %d: %w", name, doc, err)
		}
		var m map[string]any
		if err := utiljson.Unmarshal(js, &m); err != nil {
			return nil, fmt.Errorf("file %s, document %d: %w", name, doc, err)
		}
		if len(m) == 0 {
			continue
		}
		if items, ok := m["items"].([]any); ok && m["kind"] == "List" {
			for i, it := range items {
				im, ok := it.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("file %s, document %d: item %d is not an object", name, doc, i)
				}
				out = append(out, im)
			}
			continue
		}
		out = append(out, m)
	}
}
