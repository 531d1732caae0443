// Package config loads a landscape: a directory of HCL files declaring variables, locals,
// clusters, a garden, seeds, shoots, components and outputs. Loading parses and decodes every
// block against its schema, resolves references between blocks (each one a dependency edge the
// graph uses), evaluates what is known before anything touches a cluster, and reports every
// problem as an hcl.Diagnostic with the narrowest source range.
package config

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// Landscape is a loaded landscape directory.
type Landscape struct {
	// Dir is the directory the files were read from.
	Dir string
	// Paths reads the files the landscape names (file(), charts, manifests, kubeconfigs) under
	// the operator's policy: confined mode keeps them inside Dir.
	Paths *landscapefs.Dir
	// Files are the parsed files by name, for rendering diagnostics.
	Files map[string]*hcl.File

	Name        string
	Description string
	State       *StateConfig
	// StrictConflicts keeps people's changes of the landscape's objects (kubectl edit) conflicts
	// that apply takes back only with --force-conflicts, as a controller's are; without it they
	// are drift that a plain apply takes back (engine/plan, People).
	StrictConflicts bool
	// DeclRange is where the landscape block is declared.
	DeclRange hcl.Range

	Variables map[string]*Variable
	Locals    map[string]*Local
	Clusters  map[string]*Cluster
	// Blocks are the garden, seed, shoot and component blocks by address ("seed.local",
	// "component.helm_release.cert_manager").
	Blocks  map[Address]*Block
	Outputs map[string]*Output
	// Moved are the landscape's moved blocks in source order (moved.go).
	Moved []*Moved
	// Imports are the landscape's import blocks in source order (imports.go).
	Imports []*Import

	// References are the dependency edges between the objects above, in source order.
	References []Reference

	// invalid holds the objects Parse found errors in; evaluation skips them and what depends
	// on them, so that every reported problem is a root cause.
	invalid map[Address]bool
	// evaluable is false when a problem (a syntax error, a reference cycle) makes evaluating
	// anything pointless.
	evaluable bool
	// rules are the registry's landscape rules, run once every block is evaluated.
	rules []schema.LandscapeRule
}

// StateConfig is the landscape's state backend.
type StateConfig struct {
	Backend string
	// Path is the state file of the local backend, relative to the landscape directory.
	Path string
	// Cluster names the cluster block holding the kubernetes backend's Secrets and Lease.
	Cluster   string
	Namespace string
	DeclRange hcl.Range
	// ClusterRange is where the cluster reference is written.
	ClusterRange hcl.Range
}

// Variable is an input variable.
type Variable struct {
	Name        string
	Type        cty.Type
	Default     cty.Value
	Description string
	Sensitive   bool
	Validations []*Validation
	DeclRange   hcl.Range
}

// Validation is a rule a variable's value must satisfy.
type Validation struct {
	Condition    hcl.Expression
	ErrorMessage hcl.Expression
	DeclRange    hcl.Range
	// invalid rules (referring to other variables) were reported and are not evaluated.
	invalid bool
}

// Local is a named expression.
type Local struct {
	Name      string
	Expr      hcl.Expression
	DeclRange hcl.Range
}

// Cluster is a Kubernetes cluster the landscape deploys to.
type Cluster struct {
	Name string
	// Config holds kubeconfig, context and in_cluster.
	Config    hcl.Body
	DeclRange hcl.Range
}

// Block is a garden, seed, shoot or component block.
type Block struct {
	Addr   Address
	Kind   schema.Kind
	Type   string
	Name   string
	Schema *schema.Schema
	// Config is the body without meta-arguments, to be decoded with Schema.Body.Spec().
	Config hcl.Body

	DependsOn []hcl.Traversal
	ForEach   hcl.Expression
	Count     hcl.Expression
	Lifecycle Lifecycle

	DeclRange hcl.Range
	// TypeRange is the range of the type label of a component block.
	TypeRange hcl.Range
}

// Lifecycle holds the lifecycle meta-arguments.
type Lifecycle struct {
	PreventDestroy bool
	// ReadyTimeout overrides apply's --timeout for this block's readiness wait (zero: none).
	ReadyTimeout time.Duration
}

// Output is a value the landscape exposes.
type Output struct {
	Name        string
	Expr        hcl.Expression
	Description string
	Sensitive   bool
	DeclRange   hcl.Range
}

// Address names an object of a landscape the way references do: "var.x", "local.y",
// "cluster.runtime", "garden.local", "seed.a", "shoot.dev", "component.helm_release.cm",
// "output.z".
type Address string

// Reference is a dependency edge: From's configuration refers to To at Range.
type Reference struct {
	From  Address
	To    Address
	Range hcl.Range
}

func blockAddress(kind schema.Kind, typ, name string) Address {
	if kind == schema.KindComponent {
		return Address(fmt.Sprintf("component.%s.%s", typ, name))
	}
	return Address(fmt.Sprintf("%s.%s", kind, name))
}
