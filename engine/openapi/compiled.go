package openapi

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/declarative-gardener/gardener/internal/atomicfile"
)

// A group version's document is compiled once into what a diff needs of it: the
// structured-merge-diff types (what schemaconv makes of the document), the model of each kind and
// each kind's fields under `self == oldSelf`. Parsing a document into kube-openapi's spec.Schema
// and converting it is most of the CPU a no-op plan spends on schemas (about 10x the time of
// decoding the compiled form), so the compiled form is kept in the disk cache beside the
// documents, under the same content hash: like a document, a compiled file never needs
// invalidation, since a changed document has a new hash. Its name also carries the versions of
// kube-openapi and structured-merge-diff that compiled it (compiledTag), so that a binary built
// with other versions compiles again instead of reading types another converter made.

// compiledFormat is the layout of compiledGroup; change it with the struct.
const compiledFormat = 1

// compiledGroup is the gob-encoded content of a compiled file.
type compiledGroup struct {
	Types []smdschema.TypeDef
	Kinds []compiledKind
	// Transitions are the fields under `self == oldSelf` of every kind's model, by model name.
	Transitions map[string][]Pattern
}

// compiledKind is one kind of the group version and the name of its model.
type compiledKind struct {
	Group, Version, Kind, Model string
}

func init() {
	// Field defaults (smdschema.StructField.Default) are JSON values held in interfaces; gob
	// needs the composite ones named. A default of any other type makes the encoding fail, and
	// the group is then simply not cached compiled.
	gob.Register(map[string]any{})
	gob.Register([]any{})
}

var (
	compiledTagOnce sync.Once
	compiledTagVal  string
)

// compiledTag names the converter that compiled a file: the format and the versions of the
// modules whose code decides the types. Empty when the binary has no module information, which
// turns the compiled cache off.
func compiledTag() string {
	compiledTagOnce.Do(func() {
		info, ok := debug.ReadBuildInfo()
		if !ok {
			return
		}
		h := sha256.New()
		fmt.Fprintf(h, "format %d\n", compiledFormat)
		for _, dep := range info.Deps {
			if dep.Replace != nil {
				dep = dep.Replace
			}
			switch dep.Path {
			case "k8s.io/kube-openapi", "sigs.k8s.io/structured-merge-diff/v6":
				fmt.Fprintf(h, "%s %s %s\n", dep.Path, dep.Version, dep.Sum)
			}
		}
		compiledTagVal = hex.EncodeToString(h.Sum(nil))[:16]
	})
	return compiledTagVal
}

// compile turns a parsed document into its compiled form, working out every kind's transition
// rules now (a parsed group works them out per kind on first use).
func compile(g *group) *compiledGroup {
	c := &compiledGroup{Types: g.parser.Schema.Types, Transitions: map[string][]Pattern{}}
	for gvk, model := range g.kinds {
		c.Kinds = append(c.Kinds, compiledKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Model: model})
		if _, done := c.Transitions[model]; !done {
			c.Transitions[model] = g.transitionsOf(model)
		}
	}
	slices.SortFunc(c.Kinds, func(a, b compiledKind) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Kind, b.Kind))
	})
	return c
}

// group is the parsed group of a compiled form.
func (c *compiledGroup) group(source Source) (*group, error) {
	if len(c.Types) == 0 || len(c.Kinds) == 0 {
		return nil, fmt.Errorf("compiled openapi group: no types or no kinds")
	}
	g := &group{
		source:      source,
		parser:      &typed.Parser{Schema: smdschema.Schema{Types: c.Types}},
		kinds:       make(map[schema.GroupVersionKind]string, len(c.Kinds)),
		transitions: c.Transitions,
	}
	if g.transitions == nil {
		g.transitions = map[string][]Pattern{}
	}
	for _, k := range c.Kinds {
		g.kinds[schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}] = k.Model
	}
	return g, nil
}

// compiledFile is the cache file of a compiled document version:
// "apis_apps_v1@<hash>.<tag>.gob", beside the document's "apis_apps_v1@<hash>.json".
func (c diskCache) compiledFile(path, hash string) string {
	return strings.TrimSuffix(c.file(path, hash), ".json") + "." + compiledTag() + ".gob"
}

// compiledUsable says whether compiled files can be kept for a document version.
func (c diskCache) compiledUsable(hash string) bool {
	return c.dir != "" && hash != "" && compiledTag() != ""
}

// readCompiled returns the group compiled from the document version path@hash, or false when
// none is cached or it does not decode (then the document is parsed and compiled again).
func (c diskCache) readCompiled(path, hash string, source Source) (*group, bool) {
	if !c.compiledUsable(hash) {
		return nil, false
	}
	data, err := os.ReadFile(c.compiledFile(path, hash))
	if err != nil {
		return nil, false
	}
	var cg compiledGroup
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&cg); err != nil {
		return nil, false
	}
	g, err := cg.group(source)
	if err != nil {
		return nil, false
	}
	return g, true
}

// writeCompiled stores the compiled form of a parsed group; like the document cache, failing to
// write it only costs the next run the parse.
func (c diskCache) writeCompiled(path, hash string, g *group) {
	if !c.compiledUsable(hash) {
		return
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(compile(g)); err != nil {
		return
	}
	if err := os.MkdirAll(c.dir, 0o750); err != nil {
		return
	}
	_ = atomicfile.Write(c.compiledFile(path, hash), buf.Bytes(), 0o600)
}
