package openapi

import (
	"path"
	"sort"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Pattern is a field path in a kind's schema: field names, with AnyItem standing for any list
// item or map value on the way.
type Pattern []string

// AnyItem is the Pattern element matching any list item or map value.
const AnyItem = "*"

// String renders the pattern as ".spec.items[*].name".
func (p Pattern) String() string {
	var b strings.Builder
	for _, e := range p {
		if e == AnyItem {
			b.WriteString("[*]")
			continue
		}
		b.WriteString(".")
		b.WriteString(e)
	}
	return b.String()
}

// immutableRules walks a model and collects the fields validated by `self == oldSelf`.
func immutableRules(models map[string]*spec.Schema, model string) []Pattern {
	root, ok := models[model]
	if !ok {
		return nil
	}
	w := ruleWalker{models: models, visiting: map[string]bool{model: true}}
	w.walk(root, nil)
	sort.Slice(w.found, func(i, j int) bool { return w.found[i].String() < w.found[j].String() })
	return w.found
}

type ruleWalker struct {
	models   map[string]*spec.Schema
	visiting map[string]bool // guards recursive schemas (JSONSchemaProps refers to itself)
	found    []Pattern
}

func (w *ruleWalker) walk(s *spec.Schema, at Pattern) {
	if s == nil {
		return
	}
	if len(at) > 0 && hasSelfEqualsOldSelf(s.Extensions) {
		w.found = append(w.found, append(Pattern(nil), at...))
	}
	if ref := s.Ref.String(); ref != "" {
		w.follow(ref, at)
	}
	for i := range s.AllOf {
		w.walk(&s.AllOf[i], at)
	}
	for name, p := range s.Properties {
		w.walk(&p, append(at, name))
	}
	if s.Items != nil && s.Items.Schema != nil {
		w.walk(s.Items.Schema, append(at, AnyItem))
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		w.walk(s.AdditionalProperties.Schema, append(at, AnyItem))
	}
}

func (w *ruleWalker) follow(ref string, at Pattern) {
	_, name := path.Split(ref)
	target, ok := w.models[name]
	if !ok || w.visiting[name] {
		return
	}
	w.visiting[name] = true
	w.walk(target, at)
	delete(w.visiting, name)
}

// hasSelfEqualsOldSelf reports whether x-kubernetes-validations holds the rule self == oldSelf
// (in either order, spaces ignored).
func hasSelfEqualsOldSelf(ext spec.Extensions) bool {
	rules, ok := ext["x-kubernetes-validations"].([]any)
	if !ok {
		return false
	}
	for _, r := range rules {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		rule, _ := m["rule"].(string)
		rule = strings.Join(strings.Fields(rule), "")
		if rule == "self==oldSelf" || rule == "oldSelf==self" {
			return true
		}
	}
	return false
}
