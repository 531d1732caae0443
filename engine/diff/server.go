package diff

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// FromServer computes the diff between a live object and the object a server-side dry-run apply
// of the desired one returned, with the same paths and exclusions as Diff. --server-dry-run
// plans use it, and tests use it as the reference for Diff. live nil means a create. Conflicts
// are not part of a dry-run result: a non-forced dry-run that conflicts fails, see
// ServerConflicts.
func (d *Differ) FromServer(ctx context.Context, live, dryRun *unstructured.Unstructured) (*Result, error) {
	if live == nil {
		return &Result{Action: Create, Merged: dryRun}, nil
	}
	gvk := dryRun.GroupVersionKind()
	t, err := d.schemas.Type(ctx, gvk)
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", gvk, err)
	}
	sc, tr := t.Parseable().Schema, t.Parseable().TypeRef
	raw := compareObjects(sc, tr, live.Object, dryRun.Object)
	res := &Result{Action: NoOp, Changes: render(gvk, raw), Merged: dryRun}
	if len(res.Changes) > 0 {
		res.Action = Update
	}
	before, errBefore := managedEntries(live.Object)
	after, errAfter := managedEntries(dryRun.Object)
	if errBefore == nil && errAfter == nil {
		b, errB := decodeManaged(before)
		a, errA := decodeManaged(after)
		res.ManagedFieldsChanged = errB != nil || errA != nil || !a.fields.Equals(b.fields)
	}
	return res, nil
}

// conflictManager extracts the manager from a conflict cause's message:
// `conflict with "kubectl"` or `conflict with "kubectl" using v1`.
var conflictManager = regexp.MustCompile(`conflict with "([^"]*)"`)

// ConflictManagers lists the field managers a failed server-side apply conflicts with (a 409
// with FieldManagerConflict causes), sorted and without duplicates; nil for any other error,
// another 409 (a resourceVersion precondition that failed) included.
func ConflictManagers(err error) []string {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || !apierrors.IsConflict(err) || status.Status().Details == nil {
		return nil
	}
	var out []string
	for _, c := range status.Status().Details.Causes {
		if c.Type != metav1.CauseTypeFieldManagerConflict {
			continue
		}
		if m := conflictManager.FindStringSubmatch(c.Message); m != nil {
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// ServerConflicts extracts the conflicts of a failed server-side apply (409 with
// FieldManagerConflict causes) in Conflict form, sorted. It returns false when err is not such
// a conflict. gvk is the applied kind, whose schema tells struct fields from map keys.
func (d *Differ) ServerConflicts(ctx context.Context, gvk schema.GroupVersionKind, err error) ([]Conflict, bool) {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || !apierrors.IsConflict(err) {
		return nil, false
	}
	details := status.Status().Details
	if details == nil {
		return nil, false
	}
	var sc *smdschema.Schema
	var tr smdschema.TypeRef
	if t, err := d.schemas.Type(ctx, gvk); err == nil {
		sc, tr = t.Parseable().Schema, t.Parseable().TypeRef
	}
	var out []Conflict
	for _, c := range details.Causes {
		if c.Type != metav1.CauseTypeFieldManagerConflict {
			continue
		}
		cf := Conflict{Path: convertSMDString(sc, tr, c.Field)}
		if m := conflictManager.FindStringSubmatch(c.Message); m != nil {
			cf.Manager = m[1]
		}
		out = append(out, cf)
	}
	out = sortedConflicts(out)
	return out, len(out) > 0
}

// convertSMDString converts a structured-merge-diff path string as the server prints it
// (`.spec.containers[name="nginx"].image`, `.metadata.labels.app`, `.spec.args`,
// `.metadata.finalizers[="x"]`) into the documented path form. Map keys are recognised with the
// schema; a key of a map of scalars takes the rest of the path, since keys may contain dots.
func convertSMDString(sc *smdschema.Schema, tr smdschema.TypeRef, s string) string {
	var out fieldPath
	for s != "" {
		var atom smdschema.Atom
		if sc != nil {
			atom, _ = sc.Resolve(tr)
		}
		switch s[0] {
		case '.':
			s = s[1:]
			var name string
			if atom.Map != nil && isMapKeyed(atom.Map) && isScalarType(sc, atom.Map.ElementType) {
				name, s = s, ""
			} else {
				end := strings.IndexAny(s, ".[")
				if end < 0 {
					end = len(s)
				}
				name, s = s[:end], s[end:]
			}
			kind := stepField
			next := smdschema.TypeRef{NamedType: ptrTo(deducedTypeName)}
			if atom.Map != nil {
				if f, ok := atom.Map.FindField(name); ok {
					next = f.Type
				} else {
					next = atom.Map.ElementType
					if isMapKeyed(atom.Map) {
						kind = stepMapKey
					}
				}
			}
			out = append(out, step{kind: kind, name: name})
			tr = next
		case '[':
			end := closingBracket(s)
			inner := s[1:end]
			s = s[end+1:]
			switch {
			case strings.HasPrefix(inner, "="):
				out = append(out, step{kind: stepSetItem, name: unquote(inner[1:])})
			case strings.Contains(inner, "="):
				var parts []string
				for _, kv := range splitKeys(inner) {
					k, v, _ := strings.Cut(kv, "=")
					parts = append(parts, k+"="+unquote(v))
				}
				sort.Strings(parts)
				out = append(out, step{kind: stepListKey, name: strings.Join(parts, ",")})
			default:
				n, _ := strconv.Atoi(inner)
				out = append(out, step{kind: stepIndex, index: n})
			}
			tr = listElem(atom)
		default:
			return out.String() + s
		}
	}
	return out.String()
}

func isScalarType(sc *smdschema.Schema, tr smdschema.TypeRef) bool {
	a, ok := sc.Resolve(tr)
	return ok && a.Scalar != nil && a.Map == nil && a.List == nil
}

// closingBracket finds the ']' closing s[0] == '[', skipping quoted strings; the last byte when
// there is none.
func closingBracket(s string) int {
	if i := indexOutsideQuotes(s, 1, ']'); i >= 0 {
		return i
	}
	return len(s) - 1
}

// splitKeys splits `name="a,b",port=80` at commas outside quotes.
func splitKeys(s string) []string {
	var out []string
	for {
		i := indexOutsideQuotes(s, 0, ',')
		if i < 0 {
			return append(out, s)
		}
		out, s = append(out, s[:i]), s[i+1:]
	}
}

// indexOutsideQuotes returns the index of the first c in s at or after from that is not inside a
// double-quoted string, or -1. Within quotes a backslash escapes the next byte, so that a key
// value such as "a\"]" neither ends the string nor the bracket.
func indexOutsideQuotes(s string, from int, c byte) int {
	inQuote := false
	for i := from; i < len(s); i++ {
		switch {
		case s[i] == '\\' && inQuote:
			i++
		case s[i] == '"':
			inQuote = !inQuote
		case s[i] == c && !inQuote:
			return i
		}
	}
	return -1
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}
