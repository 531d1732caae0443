package schema

import (
	"fmt"
	"slices"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// LandscapeRule checks relations between blocks of a whole landscape that no single block's Rules
// can see: a shoot names its cloud profile by name, so only the landscape as a whole knows
// whether a cloud_profile component of that name offers the shoot's Kubernetes version, or
// whether an extension component registers the shoot's networking type. Rules are registered
// with the Registry (AddLandscapeRules), so that every command loading landscapes with it
// (validate, plan, the daemon) checks the same; the loader runs them once every block is
// evaluated, on the values known before apply.
type LandscapeRule struct {
	// Name identifies the rule in documentation and in errors about the rule itself.
	Name string
	// Describe says what the rule demands, for documentation.
	Describe string
	// Func reports what is wrong. It must treat unknown values (known only after apply) and
	// failed instances as "could be anything" and report nothing that depends on them, so that
	// every finding is certain and a root cause; it must not keep or modify the view.
	Func func(v *LandscapeView) []Finding
}

// LandscapeView is what a LandscapeRule reads: every instance of every garden, seed, shoot and
// component block with its decoded configuration.
type LandscapeView struct {
	// Instances are sorted by address.
	Instances []*InstanceView
	// Now is the time rules judge dates against (such as expiration dates): the plan's
	// evaluation time (`plan --at`), otherwise the current time.
	Now time.Time
}

// InstanceView is one instance of a block, as a LandscapeRule sees it.
type InstanceView struct {
	// Addr is the instance address, such as shoot.dev or shoot.team["a"].
	Addr string
	// Block is the address of the block the instance belongs to, such as shoot.team.
	Block string
	Kind  Kind
	// Type is the component type, or the kind for garden, seed and shoot blocks.
	Type string
	// Name is the instance's object name: the block name, suffixed with -<key> when expanded.
	Name string
	// Config is the decoded configuration; values known only after apply are unknown, and
	// values of sensitive attributes are marked.
	Config cty.Value
	// Failed marks an instance whose block has errors reported elsewhere, or could not be
	// decoded at all (then Config is cty.DynamicVal): rules report nothing about it and treat
	// what it declares as unknown.
	Failed bool
	// Origin tells where the value at path (an attribute path in Config) comes from when it is
	// a plain reference to another block's output, such as namespace =
	// component.project.dev.namespace: the referenced instance's address and the output's
	// name. It lets a rule resolve values that are known only after apply from what the
	// referenced block declares. Nil or ok == false when the value is written otherwise.
	Origin func(path cty.Path) (instance, output string, ok bool)
}

// Of returns the instances of the given kind and type, in address order.
func (v *LandscapeView) Of(kind Kind, typ string) []*InstanceView {
	var out []*InstanceView
	for _, inst := range v.Instances {
		if inst.Kind == kind && inst.Type == typ {
			out = append(out, inst)
		}
	}
	return out
}

// Instance returns the instance with the given address, or nil.
func (v *LandscapeView) Instance(addr string) *InstanceView {
	i, ok := slices.BinarySearchFunc(v.Instances, addr, func(inst *InstanceView, a string) int {
		switch {
		case inst.Addr < a:
			return -1
		case inst.Addr > a:
			return 1
		}
		return 0
	})
	if !ok {
		return nil
	}
	return v.Instances[i]
}

// Severity says whether a finding fails the landscape (an error) or only informs (a warning).
type Severity int

// Severities of findings.
const (
	SeverityError Severity = iota
	SeverityWarning
)

// Finding is one problem a LandscapeRule found, at an attribute of one instance.
type Finding struct {
	// Instance is the address of the instance the problem is in.
	Instance string
	// Path is the attribute path within the instance's block: attributes and single nested
	// blocks by name, repeated blocks by index in source order, a block's label by its label
	// name (workers[1].name). The diagnostic points at the narrowest range written in the
	// source: the attribute's expression, the element of a list, the label, or else the
	// enclosing block.
	Path     cty.Path
	Severity Severity
	// Summary is a short Title-case phrase; Detail is one or more full sentences.
	Summary string
	Detail  string
}

// AddLandscapeRules registers landscape rules; a rule without a name or function, or a name
// registered before, is an error.
func (r *Registry) AddLandscapeRules(rules ...LandscapeRule) error {
	for _, rule := range rules {
		if rule.Name == "" || rule.Func == nil {
			return fmt.Errorf("landscape rule %q: a rule needs a name and a function", rule.Name)
		}
		if slices.ContainsFunc(r.rules, func(o LandscapeRule) bool { return o.Name == rule.Name }) {
			return fmt.Errorf("landscape rule %q registered twice", rule.Name)
		}
		r.rules = append(r.rules, rule)
	}
	return nil
}

// LandscapeRules returns the registered landscape rules in registration order.
func (r *Registry) LandscapeRules() []LandscapeRule {
	return slices.Clone(r.rules)
}
