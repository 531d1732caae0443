package views

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	goyaml "sigs.k8s.io/yaml/goyaml.v2"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/plan"
)

// ManifestFile is one file WriteManifests wrote: a component's objects in one cluster.
type ManifestFile struct {
	// Path is relative to the output directory: <cluster>/<NNNN>-<component address>.yaml,
	// NNNN the component's place in apply order (more digits for larger landscapes).
	Path      string
	Cluster   string
	Component config.InstanceAddress
	Objects   int
}

// WriteManifests writes the objects apply would send, as YAML documents, into dir: one
// directory per cluster and in it one file per component, numbered in apply order (order), so
// that a tool applying the files in name order (kubectl apply -f) meets CRDs and namespaces
// before what needs them. The files hold Secrets exactly as the clusters receive them, so dir
// and the files are readable by their owner only. dir must not exist or be empty: stale files
// of an earlier run would be applied too.
func WriteManifests(dir string, desired []*plan.Desired, order []config.InstanceAddress) ([]ManifestFile, error) {
	if err := emptyDir(dir); err != nil {
		return nil, err
	}
	index := make(map[config.InstanceAddress]int, len(order))
	for i, addr := range order {
		index[addr] = i + 1
	}
	type key struct {
		cluster   string
		component config.InstanceAddress
	}
	docs := map[key]*bytes.Buffer{}
	counts := map[key]int{}
	var keys []key
	for _, d := range desired {
		k := key{d.Cluster, d.Component}
		buf := docs[k]
		if buf == nil {
			buf = &bytes.Buffer{}
			docs[k] = buf
			keys = append(keys, k)
		}
		data, err := marshalYAML(d.Object.Object)
		if err != nil {
			return nil, fmt.Errorf("manifests: %s %s: %w", d.Component, d.Object.GetName(), err)
		}
		buf.WriteString("---\n")
		buf.Write(data)
		counts[k]++
	}
	// Numbers of one width sort in apply order by name.
	width := max(4, len(strconv.Itoa(len(order)+1)))
	var files []ManifestFile
	written := map[string]config.InstanceAddress{}
	for _, k := range keys {
		n := index[k.component]
		if n == 0 {
			n = len(order) + 1 // not in the order (cannot happen for a planned component)
		}
		rel := filepath.Join(k.cluster, fmt.Sprintf("%0*d-%s.yaml", width, n, fileSafe(string(k.component))))
		if other, ok := written[rel]; ok {
			return nil, fmt.Errorf("manifests: %s and %s would both be written to %s", other, k.component, rel)
		}
		written[rel] = k.component
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("manifests: %w", err)
		}
		if err := os.WriteFile(path, docs[k].Bytes(), 0o600); err != nil {
			return nil, fmt.Errorf("manifests: %w", err)
		}
		files = append(files, ManifestFile{Path: rel, Cluster: k.cluster, Component: k.component, Objects: counts[k]})
	}
	return files, nil
}

// emptyDir creates dir (owner only) or checks that it is empty.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("manifests: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("manifests: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("manifests: %s is not empty; its files would be applied with the new ones", dir)
	}
	return nil
}

// fileSafe turns an address (component.manifests.x["a b"]) into a file name part.
func fileSafe(addr string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		default:
			return '_'
		}
	}, addr)
}

// marshalYAML writes an object as YAML with the keys of every mapping in byte order, as
// sigs.k8s.io/yaml would but for the order: that goes through go-yaml v2's map key order, which
// compares digits in keys as numbers and is no total order for keys such as
// "secret-3055c21f" and "secret-3ddd1800", so that the same object came out in a different order
// from run to run. Decoding the JSON form (sorted keys) into a MapSlice keeps its order.
func marshalYAML(obj map[string]any) ([]byte, error) {
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var doc goyaml.MapSlice
	if err := goyaml.Unmarshal(j, &doc); err != nil {
		return nil, err
	}
	return goyaml.Marshal(doc)
}
