package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/address"
)

// Moved is a moved block: the block or instance the state records at From is the one the
// landscape now declares at To, as Terraform's moved blocks say it ("Refactoring", the moved
// block, in Terraform's documentation). Renaming a block without one would delete what the old
// address applied and create it again under the new one; with one, the plan moves the state's
// records (the objects, generated Secrets included, that carry the landscape's lineage) to the new
// address and only rewrites the component annotation of its objects.
type Moved struct {
	From, To address.Address
	// DeclRange is the moved block's header; FromRange and ToRange its two arguments.
	DeclRange, FromRange, ToRange hcl.Range
}

var movedSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "from", Required: true}, {Name: "to", Required: true}},
}

// decodeMoved reads a moved block. Its checks against the declared blocks wait until every file
// is read (checkMoves).
func (d *decoder) decodeMoved(block *hcl.Block) hcl.Diagnostics {
	content, diags := block.Body.Content(movedSchema)
	if diags.HasErrors() {
		return diags
	}
	m := &Moved{DeclRange: block.DefRange}
	for _, arg := range []struct {
		name  string
		addr  *address.Address
		where *hcl.Range
	}{{"from", &m.From, &m.FromRange}, {"to", &m.To, &m.ToRange}} {
		attr := content.Attributes[arg.name]
		*arg.where = attr.Expr.Range()
		a, err := movedAddress(attr.Expr)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid moved address",
				Detail:   fmt.Sprintf("The %s of a moved block is a block or instance address written like a reference, such as component.manifests.base, shoot.dev or shoot.dev[\"a\"]: %s.", arg.name, err),
				Subject:  attr.Expr.Range().Ptr(),
			})
			continue
		}
		*arg.addr = a
	}
	if !diags.HasErrors() {
		d.l.Moved = append(d.l.Moved, m)
	}
	return diags
}

// movedAddress reads a moved block's from or to: a traversal such as component.manifests.a or
// shoot.dev["a"], which is the address it names. Parts move with their instance and cannot be
// moved alone.
func movedAddress(expr hcl.Expression) (address.Address, error) {
	trav, diags := hcl.AbsTraversalForExpr(expr)
	if diags.HasErrors() {
		return address.Address{}, fmt.Errorf("it is not a reference")
	}
	var b strings.Builder
	for i, step := range trav {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + s.Name)
		case hcl.TraverseIndex:
			switch {
			case s.Key.Type() == cty.String && s.Key.IsKnown() && !s.Key.IsNull():
				b.WriteString("[" + strconv.Quote(s.Key.AsString()) + "]")
			case s.Key.Type() == cty.Number && s.Key.IsKnown() && !s.Key.IsNull():
				bf := s.Key.AsBigFloat()
				n, acc := bf.Int64()
				if acc != 0 || n < 0 {
					return address.Address{}, fmt.Errorf("its instance key is neither a string nor a whole number")
				}
				b.WriteString("[" + strconv.FormatInt(n, 10) + "]")
			default:
				return address.Address{}, fmt.Errorf("its instance key is neither a string nor a whole number")
			}
		default:
			return address.Address{}, fmt.Errorf("step %d is not a name or an instance key", i+1)
		}
	}
	a, err := address.Parse(b.String())
	if err != nil {
		return address.Address{}, err
	}
	if a.IsPart() {
		return address.Address{}, fmt.Errorf("%s is a part of an instance, which moves with its instance", a)
	}
	return a, nil
}

// checkMoves checks the moved blocks against the declared blocks and each other: a move keeps
// the kind (and a component's type, whose objects another type would not render), the old block
// is no longer declared unless the move is between instances of one block (adding or removing
// for_each), the new one is declared or moved on by another moved block, no address is moved
// twice, and no chain of moves comes back to where it started.
func checkMoves(l *Landscape) hcl.Diagnostics {
	var diags hcl.Diagnostics
	fail := func(subject hcl.Range, summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: subject.Ptr()})
	}
	movedFrom := map[address.Address]*Moved{}
	var valid []*Moved
	for _, m := range l.Moved {
		switch {
		case m.From == m.To:
			fail(m.ToRange, "Move to itself", fmt.Sprintf("The moved block moves %s to itself.", m.From))
			continue
		case m.From.Kind != m.To.Kind:
			fail(m.ToRange, "Move to another kind of block", fmt.Sprintf("A %s cannot become a %s: their objects are rendered differently. Remove the moved block; the plan then deletes what %s applied and creates what %s renders.", m.From.Kind, m.To.Kind, m.From, m.To))
			continue
		case m.From.Type != m.To.Type:
			fail(m.ToRange, "Move to another component type", fmt.Sprintf("A component of type %s cannot become one of type %s: their objects are rendered differently. Remove the moved block; the plan then deletes what %s applied and creates what %s renders.", m.From.Type, m.To.Type, m.From, m.To))
			continue
		}
		if prev, ok := movedFrom[m.From]; ok {
			fail(m.FromRange, "Moved twice", fmt.Sprintf("%s is moved already by the moved block at %s; an address can move to one place only.", m.From, prev.DeclRange))
			continue
		}
		movedFrom[m.From] = m
		valid = append(valid, m)
	}
	for _, m := range valid {
		sameBlock := m.From.Block() == m.To.Block()
		if _, declared := l.Blocks[blockAddressOf(m.From)]; declared && !sameBlock {
			fail(m.FromRange, "Moved block still declared", fmt.Sprintf("%s is moved to %s, but a block %s is still declared. A moved block records a rename: remove or rename the old block.", m.From, m.To, m.From.Block()))
		}
		_, declared := l.Blocks[blockAddressOf(m.To)]
		_, movedOn := movedFrom[m.To]
		if !declared && !movedOn && !movedFromBlock(movedFrom, m.To) {
			fail(m.ToRange, "Moved to an undeclared block", fmt.Sprintf("%s is moved to %s, but the landscape declares no block %s.", m.From, m.To, m.To.Block()))
		}
	}
	// A chain of moves must end: follow each from its start.
	for _, m := range valid {
		seen := map[address.Address]bool{m.From: true}
		for next := m.To; ; {
			if seen[next] {
				fail(m.DeclRange, "Cycle of moved blocks", fmt.Sprintf("Following the moved blocks from %s comes back to %s; the moves must end at a declared block.", m.From, next))
				break
			}
			seen[next] = true
			n, ok := movedFrom[next]
			if !ok {
				break
			}
			next = n.To
		}
	}
	return diags
}

// movedFromBlock reports whether a moved block moves the whole block of a on.
func movedFromBlock(movedFrom map[address.Address]*Moved, a address.Address) bool {
	n, ok := movedFrom[a.Block()]
	return ok && n.To.Key.IsZero()
}

// blockAddressOf is the declaration address of the block a names.
func blockAddressOf(a address.Address) Address {
	return blockAddress(a.Kind, a.Type, a.Name)
}

// Move is one address of the state that the moved blocks send elsewhere.
type Move struct {
	From, To string
	// By is the moved block that moved it (the first of a chain).
	By *Moved
}

// MovedAddress is where the moved blocks send the instance or part address a of the state: a's
// own address when no moved block names it. A block address moves every instance of its block
// and their parts (the move keeps their keys) when the new address names no key either;
// otherwise an instance moves with its parts. Chains of moved blocks are followed to their end
// (checkMoves refused cycles; a chain is never followed further than there are moved blocks).
func MovedAddress(moves []*Moved, a address.Address) (address.Address, *Moved) {
	var first *Moved
	for range len(moves) {
		m := moveOf(moves, a)
		if m == nil {
			break
		}
		if first == nil {
			first = m
		}
		a = m.apply(a)
	}
	return a, first
}

// moveOf finds the moved block that applies to a, the most specific first: an instance's own
// move before its block's.
func moveOf(moves []*Moved, a address.Address) *Moved {
	var blockMove *Moved
	for _, m := range moves {
		if m.From.Block() != a.Block() {
			continue
		}
		if m.From.Key == a.Key && !(m.From.Key.IsZero() && m.To.Key.IsZero()) {
			return m
		}
		if m.From.Key.IsZero() && m.To.Key.IsZero() {
			blockMove = m
		}
	}
	return blockMove
}

// apply moves a, which m applies to.
func (m *Moved) apply(a address.Address) address.Address {
	moved := address.Address{Kind: m.To.Kind, Type: m.To.Type, Name: m.To.Name, Key: a.Key, Part: a.Part}
	if !(m.From.Key.IsZero() && m.To.Key.IsZero()) {
		moved.Key = m.To.Key
	}
	return moved
}
