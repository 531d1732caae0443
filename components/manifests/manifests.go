// Package manifests renders the manifests component: plain Kubernetes objects given inline or
// read from YAML files, applied as they are.
package manifests

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/render"
)

// Render renders the objects of one manifests instance: inline objects first, in the order
// given, then each file's documents in order.
func Render(in render.Input) (*render.Output, error) {
	cluster, err := render.ClusterName(in.Config, "cluster")
	if err != nil {
		return nil, err
	}
	namespace := ""
	if ns := in.Config.GetAttr("namespace"); !ns.IsNull() {
		namespace = ns.AsString()
	}
	var objs []map[string]any
	if inline := in.Config.GetAttr("objects"); !inline.IsNull() {
		ty := inline.Type()
		if !ty.IsListType() && !ty.IsTupleType() && !ty.IsSetType() {
			return nil, fmt.Errorf("objects must be a list of objects, not %s", ty.FriendlyName())
		}
		i := 0
		for it := inline.ElementIterator(); it.Next(); i++ {
			_, e := it.Element()
			v, err := render.JSONValue(e)
			if err != nil {
				return nil, fmt.Errorf("objects[%d]: %w", i, err)
			}
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("objects[%d] is not an object", i)
			}
			objs = append(objs, m)
		}
	}
	if files := in.Config.GetAttr("files"); !files.IsNull() {
		for it := files.ElementIterator(); it.Next(); {
			i, f := it.Element()
			if f.IsNull() {
				return nil, fmt.Errorf("files[%s] is null", i.AsBigFloat().Text('f', 0))
			}
			if strings.Contains(f.AsString(), render.UnknownString) {
				return nil, fmt.Errorf("the path of files[%s] %w", i.AsBigFloat().Text('f', 0), render.ErrDeferred)
			}
			docs, err := ReadFile(in.Dir, f.AsString())
			if err != nil {
				return nil, err
			}
			objs = append(objs, docs...)
		}
	}
	out := &render.Output{Outputs: map[string]cty.Value{}}
	for i, m := range objs {
		u := &unstructured.Unstructured{Object: m}
		if u.GetAPIVersion() == "" || u.GetKind() == "" || u.GetName() == "" {
			return nil, fmt.Errorf("object %d has no apiVersion, kind or metadata.name", i+1)
		}
		out.Objects = append(out.Objects, render.Object{Cluster: cluster, Object: u, DefaultNamespace: namespace})
	}
	return out, nil
}

// ReadFile reads the objects of a YAML file with documents separated by ---; empty documents and
// List objects' items are handled like kubectl does.
func ReadFile(dir, name string) ([]map[string]any, error) {
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
