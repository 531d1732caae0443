package observe

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Recording is every answer one cluster gave, as a Recorder saw them and a Snapshot replays
// them. Its JSON form is part of the snapshot file format (see SnapshotFile). A nil Resources or
// OpenAPIIndex means "never asked", which replay reports as an unrecorded read; empty means the
// server answered with nothing.
type Recording struct {
	// Empty records a cluster that holds no objects: a LIST or GET the recording does not hold
	// answers nothing instead of failing. The empty cluster an offline plan reads (EmptyCluster)
	// is such a recording.
	Empty         bool               `json:"empty,omitempty"`
	ServerVersion string             `json:"server_version,omitempty"`
	Resources     []RecordedResource `json:"resources"`
	Lists         []RecordedList     `json:"lists,omitempty"`
	Gets          []RecordedGet      `json:"gets,omitempty"`
	OpenAPIIndex  map[string]string  `json:"openapi_index"`
	// OpenAPIDocuments are stored gzip-compressed: they are large, machine-generated and their
	// changes are already visible in OpenAPIIndex's hashes.
	OpenAPIDocuments []RecordedDocument `json:"openapi_documents,omitempty"`
}

// RecordedResource is one discovered resource (Resource in JSON form).
type RecordedResource struct {
	Group      string   `json:"group"`
	Version    string   `json:"version"`
	Kind       string   `json:"kind"`
	Resource   string   `json:"resource"`
	Namespaced bool     `json:"namespaced"`
	Verbs      []string `json:"verbs"`
}

// RecordedList is one LIST and its complete result, objects sorted by namespace and name.
type RecordedList struct {
	Group     string                       `json:"group"`
	Version   string                       `json:"version"`
	Resource  string                       `json:"resource"`
	Namespace string                       `json:"namespace,omitempty"`
	Selector  string                       `json:"selector"`
	Objects   []*unstructured.Unstructured `json:"objects"`
}

// RecordedGet is one GET; a nil Object records that the object did not exist.
type RecordedGet struct {
	Group     string                     `json:"group"`
	Version   string                     `json:"version"`
	Resource  string                     `json:"resource"`
	Namespace string                     `json:"namespace,omitempty"`
	Name      string                     `json:"name"`
	Object    *unstructured.Unstructured `json:"object"`
}

// RecordedDocument is one OpenAPI v3 document by its path ("apis/apps/v1").
type RecordedDocument struct {
	Path string `json:"path"`
	// GzipBase64 is the document's bytes, exactly as the server sent them, gzip-compressed and
	// base64-encoded.
	GzipBase64 string `json:"gzip_base64"`
}

func recordResource(r Resource) RecordedResource {
	return RecordedResource{Group: r.Group, Version: r.Version, Kind: r.Kind, Resource: r.Resource, Namespaced: r.Namespaced, Verbs: append([]string{}, r.Verbs...)}
}

func (r RecordedResource) resource() Resource {
	return Resource{
		GroupVersionKind: schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind},
		Resource:         r.Resource, Namespaced: r.Namespaced, Verbs: append([]string(nil), r.Verbs...),
	}
}

func (l RecordedList) key() readKey {
	return readKey{gvr: schema.GroupVersionResource{Group: l.Group, Version: l.Version, Resource: l.Resource}, namespace: l.Namespace, selector: l.Selector}
}

func (g RecordedGet) key() readKey {
	return readKey{gvr: schema.GroupVersionResource{Group: g.Group, Version: g.Version, Resource: g.Resource}, namespace: g.Namespace, name: g.Name}
}

// readKey identifies a LIST (selector set) or GET (name set).
type readKey struct {
	gvr       schema.GroupVersionResource
	namespace string
	selector  string
	name      string
}

func (k readKey) less(o readKey) bool {
	switch {
	case k.gvr.Group != o.gvr.Group:
		return k.gvr.Group < o.gvr.Group
	case k.gvr.Version != o.gvr.Version:
		return k.gvr.Version < o.gvr.Version
	case k.gvr.Resource != o.gvr.Resource:
		return k.gvr.Resource < o.gvr.Resource
	case k.namespace != o.namespace:
		return k.namespace < o.namespace
	case k.selector != o.selector:
		return k.selector < o.selector
	}
	return k.name < o.name
}

// normalize sorts everything into the canonical order the snapshot file is written in.
func (r *Recording) normalize() {
	sort.Slice(r.Resources, func(i, j int) bool {
		a, b := r.Resources[i], r.Resources[j]
		switch {
		case a.Group != b.Group:
			return a.Group < b.Group
		case a.Kind != b.Kind:
			return a.Kind < b.Kind
		case a.Version != b.Version:
			return a.Version < b.Version
		}
		return a.Resource < b.Resource
	})
	sort.Slice(r.Lists, func(i, j int) bool { return r.Lists[i].key().less(r.Lists[j].key()) })
	for _, l := range r.Lists {
		sortObjects(l.Objects)
	}
	sort.Slice(r.Gets, func(i, j int) bool { return r.Gets[i].key().less(r.Gets[j].key()) })
	sort.Slice(r.OpenAPIDocuments, func(i, j int) bool { return r.OpenAPIDocuments[i].Path < r.OpenAPIDocuments[j].Path })
}

func sortObjects(objs []*unstructured.Unstructured) {
	sort.SliceStable(objs, func(i, j int) bool {
		if objs[i].GetNamespace() != objs[j].GetNamespace() {
			return objs[i].GetNamespace() < objs[j].GetNamespace()
		}
		return objs[i].GetName() < objs[j].GetName()
	})
}

// describeRead names a read in errors: "LIST deployments.apps/v1 in namespace garden with
// selector \"a=b\"", "GET configmaps/v1 garden/x".
func describeRead(verb string, k readKey) string {
	s := verb + " " + k.gvr.Resource
	if k.gvr.Group != "" {
		s += "." + k.gvr.Group
	}
	s += "/" + k.gvr.Version
	switch {
	case verb == "GET" && k.namespace != "":
		s += " " + k.namespace + "/" + k.name
	case verb == "GET":
		s += " " + k.name
	case k.namespace != "":
		s += " in namespace " + k.namespace
	}
	if verb == "LIST" {
		s += " with selector " + strconv.Quote(k.selector)
	}
	return s
}

// MarshalJSON writes the objects as plain JSON maps: Unstructured's own encoder escapes "<", ">"
// and "&", which would make scripts and configs in a snapshot hard to read in a diff.
func (l RecordedList) MarshalJSON() ([]byte, error) {
	type plain RecordedList
	out := struct {
		plain
		Objects []map[string]interface{} `json:"objects"`
	}{plain: plain(l), Objects: make([]map[string]interface{}, 0, len(l.Objects))}
	for _, obj := range l.Objects {
		out.Objects = append(out.Objects, obj.Object)
	}
	return marshalNoEscape(out)
}

// MarshalJSON writes the object as a plain JSON map, like RecordedList.MarshalJSON.
func (g RecordedGet) MarshalJSON() ([]byte, error) {
	type plain RecordedGet
	out := struct {
		plain
		Object map[string]interface{} `json:"object"`
	}{plain: plain(g)}
	if g.Object != nil {
		out.Object = g.Object.Object
	}
	return marshalNoEscape(out)
}

func marshalNoEscape(v interface{}) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
