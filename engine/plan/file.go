package plan

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/render"

	"github.com/declarative-gardener/gardener/internal/atomicfile"
	"github.com/declarative-gardener/gardener/internal/formatversion"
)

// FileFormatVersion is the version of saved plan files ("1.0"; earlier files wrote "1", which
// reads as 1.0). A file of a newer minor version is refused too: apply must not execute a plan
// whose added fields it would ignore.
var FileFormatVersion = formatversion.Version{Major: 1, Minor: 0}

// File is a saved plan: what `plan --out` writes and `show` and `apply PLANFILE` read. It holds
// the reviewed plan, the objects to apply and the inputs to render them again. Secrets are not
// in it: sensitive variables are omitted (apply asks for them again) and secret values in
// objects are replaced by a placeholder; each object's configuration hash (the value of its
// config-hash annotation, computed without secrets) lets apply prove that what it renders again
// is what was reviewed, secrets aside.
type File struct {
	FormatVersion formatversion.Version `json:"format_version"`
	// Dir is the landscape directory the plan was computed from.
	Dir       string              `json:"dir"`
	Plan      *Plan               `json:"plan"`
	Variables map[string]Variable `json:"variables"`
	Objects   []SavedObject       `json:"objects"`
}

// Variable is an input variable's value as the plan used it.
type Variable struct {
	// Type and Value are go-cty's JSON forms of the variable's type and value.
	Type  json.RawMessage `json:"type,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
	// Sensitive variables are saved without type and value and must be supplied again.
	Sensitive bool `json:"sensitive,omitempty"`
}

// SavedObject is an object the plan applies.
type SavedObject struct {
	Cluster   string `json:"cluster"`
	Component string `json:"component"`
	// Hash is the object's configuration hash, computed with its secrets replaced.
	Hash string `json:"hash"`
	// Redacted is set when secret values were replaced by a placeholder.
	Redacted bool           `json:"redacted,omitempty"`
	Object   map[string]any `json:"object"`
}

// Redacted is the placeholder of a secret value in a saved object.
const Redacted = "(sensitive value)"

// NewFile assembles a saved plan.
func NewFile(dir string, res *Result, vars map[string]Variable) *File {
	f := &File{FormatVersion: FileFormatVersion, Dir: dir, Plan: res.Plan, Variables: vars}
	for _, d := range res.Desired {
		obj, redacted := redactObject(d.Object, res.Redactor, d.Sensitive)
		f.Objects = append(f.Objects, SavedObject{
			Cluster: d.Cluster, Component: string(d.Component), Hash: inventory.AppliedHash(d.Object),
			Redacted: redacted, Object: obj,
		})
	}
	return f
}

// redactObject copies an object, replacing a Secret's data, every string holding a secret and
// everything its sensitivity marks.
func redactObject(u *unstructured.Unstructured, red *render.Redactor, s *render.Sensitivity) (map[string]any, bool) {
	c := u.DeepCopy().Object
	return c, redactInPlace(c, red, s)
}

// redactInPlace replaces, in obj, a Secret's data and stringData values, every string that holds
// a secret, every value its sensitivity marks (of any type, by Redacted) and every key it marks
// or that holds a secret (by Redacted, numbered from the second on), and reports whether it
// replaced anything.
func redactInPlace(obj map[string]any, red *render.Redactor, s *render.Sensitivity) bool {
	redacted := false
	if apiVersion, kind := obj["apiVersion"].(string), obj["kind"].(string); kinds.HoldsSecretDataOf(apiVersion, kind) {
		for _, field := range []string{"data", "stringData"} {
			if m, ok := obj[field].(map[string]any); ok {
				for k := range m {
					m[k] = Redacted
					redacted = true
				}
			}
		}
	}
	var walk func(v any, s *render.Sensitivity) any
	walk = func(v any, s *render.Sensitivity) any {
		switch v := v.(type) {
		case map[string]any:
			keys := slices.Sorted(maps.Keys(v))
			hiddenKeys := 0
			for _, k := range keys {
				child := s.Field(k)
				e := walk(v[k], child)
				if (child != nil && child.Key) || red.Sensitive(k) {
					delete(v, k)
					hiddenKeys++
					key := Redacted
					if hiddenKeys > 1 {
						key = fmt.Sprintf("(sensitive value %d)", hiddenKeys)
					}
					v[key], redacted = Redacted, true
					continue
				}
				v[k] = e
			}
		case []any:
			for i, e := range v {
				v[i] = walk(e, s.Item(i))
			}
		case string:
			if (s != nil && s.Value) || red.Sensitive(v) {
				redacted = true
				return Redacted
			}
		case nil:
		default:
			if s != nil && s.Value {
				redacted = true
				return Redacted
			}
		}
		return v
	}
	walk(obj, s)
	return redacted
}

// wouldRedact reports whether redactInPlace would replace anything in obj, without changing
// or copying it.
func wouldRedact(obj map[string]any, red *render.Redactor, s *render.Sensitivity) bool {
	if apiVersion, kind := obj["apiVersion"].(string), obj["kind"].(string); kinds.HoldsSecretDataOf(apiVersion, kind) {
		for _, field := range []string{"data", "stringData"} {
			if m, ok := obj[field].(map[string]any); ok && len(m) > 0 {
				return true
			}
		}
	}
	var walk func(v any, s *render.Sensitivity) bool
	walk = func(v any, s *render.Sensitivity) bool {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				child := s.Field(k)
				if (child != nil && child.Key) || red.Sensitive(k) || walk(e, child) {
					return true
				}
			}
		case []any:
			for i, e := range v {
				if walk(e, s.Item(i)) {
					return true
				}
			}
		case string:
			return (s != nil && s.Value) || red.Sensitive(v)
		case nil:
		default:
			return s != nil && s.Value
		}
		return false
	}
	return walk(obj, s)
}

// WriteFile writes a saved plan, gzip-compressed JSON, readable only by its owner (mode 0600),
// replacing any file atomically.
func WriteFile(path string, f *File) error {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(f); err != nil {
		return fmt.Errorf("plan file %s: %w", path, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("plan file %s: %w", path, err)
	}
	if err := atomicfile.Write(path, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("plan file %s: %w", path, err)
	}
	return nil
}

// cappedReader reads at most left bytes of r and then fails, remembering that it did: unlike
// io.LimitReader, whose end a JSON decoder cannot tell from the end of the file.
type cappedReader struct {
	r        io.Reader
	left     int64
	exceeded bool
}

var errCapped = errors.New("decompressed size limit exceeded")

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, err := c.r.Read(one[:]); n == 0 && errors.Is(err, io.EOF) {
			return 0, io.EOF // the stream ends exactly at the limit
		}
		c.exceeded = true
		return 0, errCapped
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// Bounds of a saved plan's decompression. A plan's JSON compresses about tenfold (the plan of
// 12,800 objects of landscapes/scale: 81 MiB in 7 MiB), and gzip can compress a thousandfold, so
// a file may decompress to at most MaxPlanRatio times its size, but always to MinPlanLimit and
// never beyond MaxPlanSize: a small file cannot make gardener decompress gigabytes.
const (
	MaxPlanRatio = 50
	MinPlanLimit = 64 << 20
	MaxPlanSize  = 1 << 30
)

// planLimit is how many bytes a saved plan of size bytes may decompress to.
func planLimit(size int64) int64 {
	return min(max(MaxPlanRatio*size, MinPlanLimit), MaxPlanSize)
}

// ReadFile reads a saved plan.
func ReadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("plan file %s: %w", path, err)
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("plan file %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("plan file %s is not a regular file", path)
	}
	zr, err := gzip.NewReader(fh)
	if err != nil {
		return nil, fmt.Errorf("plan file %s is not a saved plan: %w", path, err)
	}
	limit := planLimit(info.Size())
	capped := &cappedReader{r: zr, left: limit}
	var f File
	dec := json.NewDecoder(capped)
	if err := dec.Decode(&f); err != nil {
		if capped.exceeded {
			return nil, fmt.Errorf("plan file %s decompresses to more than %d MiB (%d times its size); a saved plan is smaller, so the file is damaged or not a saved plan",
				path, limit>>20, MaxPlanRatio)
		}
		return nil, fmt.Errorf("plan file %s: %w", path, err)
	}
	if !FileFormatVersion.Rewrites(f.FormatVersion) {
		return nil, fmt.Errorf("plan file %s has format version %s; this gardener reads version %s", path, f.FormatVersion, FileFormatVersion)
	}
	if f.Plan == nil || !strings.HasPrefix(f.Plan.FormatVersion, "1.") {
		return nil, fmt.Errorf("plan file %s holds no plan this gardener can read", path)
	}
	return &f, nil
}
