// Package manifests renders the manifests component: plain Kubernetes objects given inline or
// read from YAML files, applied as they are.
package manifests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Values are the configuration of a manifests instance.
type Values struct {
	// Cluster is the cluster the objects are applied to.
	Cluster decode.Cluster `json:"cluster"`
	// Objects is the inline list of objects, kept as JSON until rendering because the elements
	// are free-form and of different types (a Deployment and a Service).
	Objects json.RawMessage `json:"objects"`
	// Files are paths, relative to the landscape directory, of YAML files of objects.
	Files []*string `json:"files"`
	// Namespace is given to namespaced objects that name none.
	Namespace string `json:"namespace"`
}

// Type is the manifests component type as the catalog registers it: its schema (schema.go) and its
// render function.
var Type = component.Define(typeSchema, renderValues)

// renderValues renders the objects of one manifests instance: inline objects first, in the order
// given, then each file's documents in order.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	objs, err := inlineObjects(v.Objects)
	if err != nil {
		return nil, err
	}
	for i, f := range v.Files {
		if f == nil {
			return nil, fmt.Errorf("files[%d] is null", i)
		}
		if strings.Contains(*f, render.UnknownString) {
			return nil, fmt.Errorf("the path of files[%d] %w", i, render.ErrDeferred)
		}
		docs, err := ReadFile(in.Files(), *f)
		if err != nil {
			return nil, err
		}
		objs = append(objs, docs...)
	}
	out := &render.Output{Outputs: map[string]cty.Value{}}
	for i, m := range objs {
		u := &unstructured.Unstructured{Object: m}
		if u.GetAPIVersion() == "" || u.GetKind() == "" || u.GetName() == "" {
			return nil, fmt.Errorf("object %d has no apiVersion, kind or metadata.name", i+1)
		}
		out.Objects = append(out.Objects, render.Object{Cluster: v.Cluster.Name, Object: u, DefaultNamespace: v.Namespace})
	}
	return out, nil
}

// inlineObjects decodes the inline objects, whole numbers as int64 as the API server decodes
// them, so that plans show no differences of type only.
func inlineObjects(raw json.RawMessage) ([]map[string]any, error) {
	var list any
	if len(raw) > 0 {
		if err := utiljson.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("objects: %w", err)
		}
	}
	if list == nil {
		return nil, nil
	}
	elems, ok := list.([]any)
	if !ok {
		return nil, fmt.Errorf("objects must be a list of objects, not %s", jsonKind(list))
	}
	objs := make([]map[string]any, 0, len(elems))
	for i, e := range elems {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("objects[%d] is not an object", i)
		}
		objs = append(objs, m)
	}
	return objs, nil
}

// jsonKind names the kind of a decoded JSON value as the landscape language does.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case string:
		return "string"
	case bool:
		return "bool"
	default:
		return "number"
	}
}

// ReadFile reads the objects of a YAML file the landscape names, with documents separated by
// ---; empty documents and List objects' items are handled like kubectl does.
func ReadFile(paths *landscapefs.Dir, name string) ([]map[string]any, error) {
	data, err := paths.ReadFile(name)
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
		// utiljson keeps whole numbers as int64, the way the API server decodes them.
		if err := utiljson.Unmarshal(js, &m); err != nil {
			return nil, fmt.Errorf("file %s, document %d: %w", name, doc, err)
		}
		if len(m) == 0 {
			continue
		}
		if items, ok := m["items"].([]any); ok && m["kind"] == "List" {
			for _, it := range items {
				if im, ok := it.(map[string]any); ok {
					out = append(out, im)
				}
			}
			continue
		}
		out = append(out, m)
	}
}
