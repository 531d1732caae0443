// Package schema is how component types and composite blocks (garden, seed, shoot) declare their
// configuration once, as data: attributes with types, defaults, allowed values and immutability,
// and nested blocks. Everything else derives from a Schema: the HCL decoder spec, the cty type of
// the decoded value, reference documentation and the JSON schema the CLI prints. Each type's schema
// lives in its component package (components/<pkg>/schema.go) and components/catalog builds the
// registry from them; the engine only knows these types.
package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/zclconf/go-cty/cty"
)

// VariableEnvPrefix is the prefix of environment variables that set a landscape's input
// variables: GARDENER_VAR_kubernetes_version=1.31.1 sets var.kubernetes_version. It is part of the
// language, declared here rather than in the loader (engine/config) so that the landscape_daemon
// component, which hands variables to the daemon's pod this way, needs nothing above the render
// contract.
const VariableEnvPrefix = "GARDENER_VAR_"

// SensitiveVariableEnvPrefix is the prefix of environment variables that set input variables
// whose values are secrets (GARDENER_SENSITIVE_VAR_db_password): such a value is sensitive
// whether or not its variable says `sensitive = true`, so that a value taken from a Kubernetes
// Secret (the landscape_daemon component's variables_secret) or a CI secret is never shown. It
// wins over GARDENER_VAR_ of the same name.
const SensitiveVariableEnvPrefix = "GARDENER_SENSITIVE_VAR_"

// Kind says which top-level block a schema is for.
type Kind string

// The kinds of top-level blocks with schemas.
const (
	KindComponent Kind = "component"
	KindGarden    Kind = "garden"
	KindSeed      Kind = "seed"
	KindShoot     Kind = "shoot"
)

// Schema describes one component type or composite block.
type Schema struct {
	// Kind is the top-level block the schema is for.
	Kind Kind
	// Type is the component type (`component "<type>" "<name>"`); for composites it equals Kind.
	Type string
	// Description is one or more sentences for reference documentation.
	Description string
	// Body is the block's content, without the meta-arguments every block has (depends_on,
	// for_each, count, lifecycle), which the loader handles.
	Body Body
	// Outputs are the values other blocks may reference, e.g. `garden.local.virtual_kubeconfig`.
	Outputs []Output
	// Rules check relations between attributes, and with the blocks this one references.
	Rules []Rule
	// Independent says that the type's instances are members of a fleet, each reconciled on its
	// own as gardenlet reconciles each shoot: an instance's objects are needed only by itself and
	// by instances that refer to it. A plan targeted at other instances neither evaluates nor
	// renders the instances of an independent type that nothing it renders refers to, so that
	// planning one shoot costs the same in a landscape of 10 or 10,000. engine/planner checks
	// the promise on every full plan: an instance whose objects need another's Namespace or
	// CustomResourceDefinition without referring to it is an error when that other instance is
	// of an independent type.
	Independent bool
}

// Body is the content of a block: attributes and nested blocks.
type Body struct {
	Attributes []Attribute
	Blocks     []Block
	// Removed are attributes and blocks earlier versions accepted here: a landscape that still
	// writes one gets an error at it saying where the setting went, instead of HCL's
	// "Unsupported argument", which says only that it is unknown.
	Removed []Removed
}

// Removed is an attribute or nested block a body no longer accepts, and what replaced it.
type Removed struct {
	// Name is the attribute's or block's name.
	Name string
	// Block says it was a nested block rather than an attribute.
	Block bool
	// Detail says what to write instead, in one or more sentences.
	Detail string
}

// Attribute is one argument, e.g. `replicas = 3`.
type Attribute struct {
	Name        string
	Type        cty.Type
	Required    bool
	Description string
	// Default applies when the attribute is absent; cty.NilVal means none.
	Default cty.Value
	// AllowedValues restricts a string attribute to these values.
	AllowedValues []string
	// Immutable attributes cannot change once applied; a change plans as a replacement, or fails
	// the plan for kinds that are never replaced (engine/kinds' Irreplaceable: Shoots, Seeds...).
	Immutable bool
	// Sensitive values are never printed in plans, diagnostics or logs.
	Sensitive bool
	// Checks validate a known value beyond its type (a CIDR parses, a count is positive).
	Checks []Check
	// Path says that the value names files relative to the landscape directory (a string, or
	// a collection of strings): a chart, manifest files. In confined mode the loader refuses
	// one that leaves the directory, at the attribute, before the component reads it.
	Path bool
	// References, when set, makes the attribute a reference to another top-level block of that
	// kind ("cluster", "garden", "seed", "shoot", "component"): its expression must be such a
	// reference (`cluster = cluster.runtime`), which becomes a dependency edge, and its value is
	// the referenced block's value. Type must then be cty.DynamicPseudoType.
	References string
}

// Reference kinds an attribute may point at.
const (
	RefCluster   = "cluster"
	RefGarden    = "garden"
	RefSeed      = "seed"
	RefShoot     = "shoot"
	RefComponent = "component"
)

// Check validates a known, non-null value of an attribute and returns a sentence saying what is
// wrong, or "" when the value is fine.
type Check struct {
	// Name identifies the check in documentation, e.g. "cidr" or "positive".
	Name string
	// Describe says what the check demands, for documentation ("a CIDR such as 10.0.0.0/16").
	Describe string
	Func     func(cty.Value) string
}

// Nesting says how often a nested block may appear.
type Nesting int

// Nesting modes.
const (
	// NestingSingle blocks appear at most once; the value is an object (null when absent).
	NestingSingle Nesting = iota
	// NestingList blocks repeat; the value is a list of objects in source order.
	NestingList
)

// Block is a nested block type, e.g. `virtual_cluster { ... }` or `workers "pool" { ... }`.
type Block struct {
	Name        string
	Description string
	Nesting     Nesting
	// Labels names the block's labels; each label becomes a string attribute of the block's value
	// under that name (workers "pool" gives name = "pool").
	Labels   []string
	Required bool
	// MinItems and MaxItems bound NestingList blocks; 0 means no bound.
	MinItems, MaxItems int
	Body               Body
}

// Output is a value a block exposes to references.
type Output struct {
	Name        string
	Type        cty.Type
	Description string
	Sensitive   bool
}

// Summary is the first sentence of the description, for catalog listings.
func (s *Schema) Summary() string {
	if i := strings.Index(s.Description, ". "); i >= 0 {
		return s.Description[:i+1]
	}
	return s.Description
}

// Spec returns the hcldec specification that decodes the body.
func (b *Body) Spec() hcldec.Spec {
	spec := hcldec.ObjectSpec{}
	for _, a := range b.Attributes {
		var s hcldec.Spec = &hcldec.AttrSpec{Name: a.Name, Type: a.Type, Required: a.Required}
		if a.Default != cty.NilVal {
			s = &hcldec.DefaultSpec{Primary: s, Default: &hcldec.LiteralSpec{Value: a.Default}}
		}
		spec[a.Name] = s
	}
	for _, blk := range b.Blocks {
		nested := blk.Body.Spec().(hcldec.ObjectSpec)
		for i, label := range blk.Labels {
			nested[label] = &hcldec.BlockLabelSpec{Index: i, Name: label}
		}
		switch blk.Nesting {
		case NestingList:
			// A list needs one element type; blocks with "any"-typed attributes may differ in
			// type (two extensions with different provider_config), so they decode as a tuple.
			if hcldec.ImpliedType(nested).HasDynamicTypes() {
				spec[blk.Name] = &hcldec.BlockTupleSpec{TypeName: blk.Name, Nested: nested, MinItems: blk.MinItems, MaxItems: blk.MaxItems}
			} else {
				spec[blk.Name] = &hcldec.BlockListSpec{TypeName: blk.Name, Nested: nested, MinItems: blk.MinItems, MaxItems: blk.MaxItems}
			}
		default:
			spec[blk.Name] = &hcldec.BlockSpec{TypeName: blk.Name, Nested: nested, Required: blk.Required}
		}
	}
	return spec
}

// ImpliedType is the cty type of the decoded body.
func (b *Body) ImpliedType() cty.Type { return hcldec.ImpliedType(b.Spec()) }

// OutputType is the object type of the block's outputs as references see them.
func (s *Schema) OutputType() cty.Type {
	attrs := map[string]cty.Type{}
	for _, o := range s.Outputs {
		attrs[o.Name] = o.Type
	}
	return cty.Object(attrs)
}

// Attribute returns the attribute with the given name, or nil.
func (b *Body) Attribute(name string) *Attribute {
	for i := range b.Attributes {
		if b.Attributes[i].Name == name {
			return &b.Attributes[i]
		}
	}
	return nil
}

// Block returns the nested block type with the given name, or nil.
func (b *Body) Block(name string) *Block {
	for i := range b.Blocks {
		if b.Blocks[i].Name == name {
			return &b.Blocks[i]
		}
	}
	return nil
}

// Validate reports schema authoring mistakes (duplicate names, defaults of the wrong type,
// allowed values on non-strings, a required attribute with a default); the registry refuses such
// schemas so that every derived artefact is sound.
func (s *Schema) Validate() error {
	if s.Type == "" {
		return fmt.Errorf("schema without a type")
	}
	if s.Kind != KindComponent && string(s.Kind) != s.Type {
		return fmt.Errorf("schema %s: a %s schema must have type %q", s.Type, s.Kind, s.Kind)
	}
	if err := s.Body.validate(s.Type); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, o := range s.Outputs {
		if seen[o.Name] {
			return fmt.Errorf("schema %s: output %q declared twice", s.Type, o.Name)
		}
		seen[o.Name] = true
	}
	return nil
}

func (b *Body) validate(path string) error {
	seen := map[string]bool{}
	for _, a := range b.Attributes {
		where := path + "." + a.Name
		if seen[a.Name] {
			return fmt.Errorf("schema %s: declared twice", where)
		}
		seen[a.Name] = true
		if a.Type == cty.NilType {
			return fmt.Errorf("schema %s: attribute without a type", where)
		}
		if a.Required && a.Default != cty.NilVal {
			return fmt.Errorf("schema %s: a required attribute cannot have a default", where)
		}
		if a.Default != cty.NilVal && !a.Default.Type().Equals(a.Type) && a.Type != cty.DynamicPseudoType {
			return fmt.Errorf("schema %s: default of type %s for an attribute of type %s", where, a.Default.Type().FriendlyName(), a.Type.FriendlyName())
		}
		if a.References != "" {
			if !slices.Contains([]string{RefCluster, RefGarden, RefSeed, RefShoot, RefComponent}, a.References) {
				return fmt.Errorf("schema %s: unknown reference kind %q", where, a.References)
			}
			if a.Type != cty.DynamicPseudoType {
				return fmt.Errorf("schema %s: a reference attribute must have type cty.DynamicPseudoType", where)
			}
		}
		if len(a.AllowedValues) > 0 {
			if a.Type != cty.String {
				return fmt.Errorf("schema %s: allowed values need a string attribute", where)
			}
			if a.Default != cty.NilVal && !slices.Contains(a.AllowedValues, a.Default.AsString()) {
				return fmt.Errorf("schema %s: default %q is not an allowed value", where, a.Default.AsString())
			}
		}
	}
	for _, blk := range b.Blocks {
		where := path + "." + blk.Name
		if seen[blk.Name] {
			return fmt.Errorf("schema %s: declared twice", where)
		}
		seen[blk.Name] = true
		for _, label := range blk.Labels {
			if blk.Body.Attribute(label) != nil || blk.Body.Block(label) != nil {
				return fmt.Errorf("schema %s: label %q collides with an attribute or block", where, label)
			}
		}
		if blk.Nesting == NestingSingle && len(blk.Labels) > 0 {
			return fmt.Errorf("schema %s: a labelled block must repeat (NestingList)", where)
		}
		if err := blk.Body.validate(where); err != nil {
			return err
		}
	}
	for _, r := range b.Removed {
		where := path + "." + r.Name
		if seen[r.Name] {
			return fmt.Errorf("schema %s: removed, but declared too", where)
		}
		if r.Detail == "" {
			return fmt.Errorf("schema %s: removed without saying what replaced it", where)
		}
	}
	return nil
}

// Registry holds the schemas the loader decodes with, keyed by kind and type.
type Registry struct {
	schemas map[Kind]map[string]*Schema
	// rules check the landscape as a whole (landscape.go).
	rules []LandscapeRule
}

// NewRegistry validates and indexes schemas; a duplicate or invalid schema is an error.
func NewRegistry(schemas ...*Schema) (*Registry, error) {
	r := &Registry{schemas: map[Kind]map[string]*Schema{}}
	for _, s := range schemas {
		if err := s.Validate(); err != nil {
			return nil, err
		}
		if r.schemas[s.Kind] == nil {
			r.schemas[s.Kind] = map[string]*Schema{}
		}
		if r.schemas[s.Kind][s.Type] != nil {
			return nil, fmt.Errorf("schema %s %s registered twice", s.Kind, s.Type)
		}
		r.schemas[s.Kind][s.Type] = s
	}
	return r, nil
}

// Lookup returns the schema of a kind and type, or nil.
func (r *Registry) Lookup(kind Kind, typ string) *Schema {
	return r.schemas[kind][typ]
}

// Types lists the registered types of a kind, sorted.
func (r *Registry) Types(kind Kind) []string {
	return slices.Sorted(maps.Keys(r.schemas[kind]))
}

// All returns every schema: composites first (garden, seed, shoot), then components by type.
func (r *Registry) All() []*Schema {
	var all []*Schema
	for _, kind := range []Kind{KindGarden, KindSeed, KindShoot, KindComponent} {
		for _, t := range r.Types(kind) {
			all = append(all, r.schemas[kind][t])
		}
	}
	return all
}
