package render

import (
	"sort"
	"strings"
	"sync"
)

// Redactor decides how a rendered value is shown: secrets are never shown, and markers of
// values known only after apply are shown as such.
type Redactor struct {
	mu      sync.Mutex
	secrets []string
	// index finds the secrets inside a string; built on first use after a change.
	index *secretIndex
}

// NewRedactor returns a redactor for the given sensitive strings.
func NewRedactor(secrets []string) *Redactor {
	return &Redactor{secrets: append([]string(nil), secrets...)}
}

// Add adds further sensitive strings.
func (r *Redactor) Add(secrets ...string) {
	if len(secrets) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets = append(r.secrets, secrets...)
	r.index = nil
}

// Sensitive reports whether a value contains a secret, anywhere inside it. A plan asks this of
// every string of every object, so the secrets are indexed by their first bytes: the cost grows
// with the length of the value, not with the number of secrets.
func (r *Redactor) Sensitive(v any) bool {
	if r == nil {
		return false
	}
	ix := r.currentIndex()
	if ix.none {
		return false
	}
	return ix.sensitive(v)
}

// currentIndex is the index of the secrets added so far, built on first use after a change.
func (r *Redactor) currentIndex() *secretIndex {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.index == nil {
		r.index = newSecretIndex(r.secrets)
	}
	return r.index
}

// secretIndex maps the first k bytes of every secret (k the length of the shortest secret, at
// most 8) to the secrets starting with them.
type secretIndex struct {
	none, empty bool
	k           int
	byPrefix    map[string][]string
}

func newSecretIndex(secrets []string) *secretIndex {
	ix := &secretIndex{none: len(secrets) == 0, k: 8, byPrefix: map[string][]string{}}
	for _, s := range secrets {
		if s == "" {
			ix.empty = true // every string contains the empty string
			continue
		}
		ix.k = min(ix.k, len(s))
	}
	for _, s := range secrets {
		if s != "" {
			ix.byPrefix[s[:ix.k]] = append(ix.byPrefix[s[:ix.k]], s)
		}
	}
	return ix
}

func (ix *secretIndex) sensitive(v any) bool {
	switch v := v.(type) {
	case string:
		return ix.contains(v)
	case map[string]any:
		for k, e := range v {
			if ix.contains(k) || ix.sensitive(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if ix.sensitive(e) {
				return true
			}
		}
	}
	return false
}

// within returns the distinct secrets that occur in v, the empty one included when it is a
// secret (it occurs everywhere).
func (ix *secretIndex) within(v string) []string {
	var found []string
	seen := map[string]bool{}
	if ix.empty {
		found, seen[""] = append(found, ""), true
	}
	ix.scan(v, func(s string) bool {
		if !seen[s] {
			seen[s] = true
			found = append(found, s)
		}
		return false
	})
	return found
}

func (ix *secretIndex) contains(v string) bool {
	return ix.empty || ix.scan(v, func(string) bool { return true })
}

// scan calls found with every non-empty secret occurring in v, at each position it occurs,
// until found returns true; it reports whether found did.
func (ix *secretIndex) scan(v string, found func(string) bool) bool {
	for i := 0; i+ix.k <= len(v); i++ {
		for _, s := range ix.byPrefix[v[i:i+ix.k]] {
			if strings.HasPrefix(v[i:], s) && found(s) {
				return true
			}
		}
	}
	return false
}

// Redact replaces every secret in a message, longest first so that a secret containing another
// is replaced whole. Plans redact every field path and object name they show, so the secrets a
// message holds are found through the index first: a message without any costs a scan of its
// own length, however many secrets the landscape has.
func (r *Redactor) Redact(msg string) string {
	if r == nil {
		return msg
	}
	ix := r.currentIndex()
	if ix.none {
		return msg
	}
	found := ix.within(msg)
	if len(found) == 0 {
		return msg
	}
	// Longest first, and in one order for secrets of one length, so that output is stable.
	sort.Slice(found, func(i, j int) bool {
		if len(found[i]) != len(found[j]) {
			return len(found[i]) > len(found[j])
		}
		return found[i] < found[j]
	})
	for _, s := range found {
		msg = strings.ReplaceAll(msg, s, "(sensitive value)")
	}
	return msg
}

// Unknown reports whether a value holds something known only after apply: a value no component
// provides before apply (UnknownString) or a LiveValue marker.
func Unknown(v any) bool { return Unprovided(v) || HasLive(v) }

// Unprovided reports whether a value holds UnknownString: a value that the engine cannot learn
// at apply either, because it comes from an output no render function sets.
func Unprovided(v any) bool { return containsString(v, UnknownString) }
