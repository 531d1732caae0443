package planner

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/state"
)

// Moves: a moved block, or `gardener state mv`, says that what the state records at one address
// is what the landscape declares at another. The state's records move: the component's objects
// (generated Secrets among them, whose key material is reused because the state records them
// under their lineage and UID wherever the component is), its dependencies, the records of
// other components that depend on it, and an ended lifetime. The live objects keep their
// lineage; apply rewrites only the annotation naming their component. Without the move, the plan
// would delete what the old address applied and create it again.

// MoveError is a move the state cannot make; By is the moved block that asked for it (nil for
// `gardener state mv`).
type MoveError struct {
	By  *config.Moved
	Err error
}

func (e *MoveError) Error() string { return e.Err.Error() }
func (e *MoveError) Unwrap() error { return e.Err }

// MoveState makes the moves of the moved blocks in a copy of st, which it returns with the moves
// sorted by the old address (st itself, and no moves, when nothing moves); st is not changed, so
// that a state a caller keeps (the daemon's) is not taken for one that was written. An address the state does not record moves nothing (a moved block stays in the
// landscape after its move for landscapes applied from older states); a move to an address
// the state records already, which no moved block empties, is an error: two components' records
// would become one.
func MoveState(st *state.State, moves []*config.Moved) (*state.State, []plan.Move, error) {
	if st == nil || len(moves) == 0 {
		return st, nil, nil
	}
	return moveRecords(st, func(a address.Address) (address.Address, *config.Moved) {
		return config.MovedAddress(moves, a)
	})
}

// MoveInState moves the state's records at from, an instance, part or block address, to to, as
// `gardener state mv` does: every record of the block or instance from names (its parts
// included) moves, in a copy of st that it returns. It is an error when the state records nothing
// at from, when to is of another kind or component type, or when the state records something at
// to already.
func MoveInState(st *state.State, from, to string) (*state.State, []plan.Move, error) {
	f, err := address.Parse(from)
	if err != nil {
		return nil, nil, err
	}
	t, err := address.Parse(to)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case f == t:
		return nil, nil, fmt.Errorf("%s and %s are the same address", from, to)
	case f.Kind != t.Kind:
		return nil, nil, fmt.Errorf("a %s cannot become a %s", f.Kind, t.Kind)
	case f.Type != t.Type:
		return nil, nil, fmt.Errorf("a component of type %s cannot become one of type %s", f.Type, t.Type)
	case f.IsPart() != t.IsPart():
		return nil, nil, fmt.Errorf("a part moves to a part, an instance or block to an instance or block")
	}
	next, moved, err := moveRecords(st, func(a address.Address) (address.Address, *config.Moved) {
		switch {
		case f.IsPart():
			if a == f {
				return t, nil
			}
		case f.Key.IsZero() && t.Key.IsZero() && a.Block() == f.Block():
			a.Kind, a.Type, a.Name = t.Kind, t.Type, t.Name
			return a, nil
		case a.Block() == f.Block() && a.Key == f.Key:
			return address.Address{Kind: t.Kind, Type: t.Type, Name: t.Name, Key: t.Key, Part: a.Part}, nil
		}
		return a, nil
	})
	if err == nil && len(moved) == 0 {
		return nil, nil, fmt.Errorf("the state records nothing at %s; \"gardener state list\" lists what it records", from)
	}
	return next, moved, err
}

// moveRecords returns a copy of st with every record whose address dest sends elsewhere moved, and
// the moves; st is not changed (the copy shares the records no move touches).
func moveRecords(st *state.State, dest func(address.Address) (address.Address, *config.Moved)) (*state.State, []plan.Move, error) {
	rename := map[string]string{}
	by := map[string]*config.Moved{}
	for _, addr := range slices.Sorted(maps.Keys(st.Components)) {
		a, err := address.Parse(addr)
		if err != nil {
			continue // not an address this version writes; nothing moves it
		}
		to, m := dest(a)
		if to != a {
			rename[addr], by[addr] = to.String(), m
		}
	}
	for _, addr := range slices.Sorted(maps.Keys(st.Retired)) {
		if a, err := address.Parse(addr); err == nil {
			if to, m := dest(a); to != a {
				rename[addr], by[addr] = to.String(), m
			}
		}
	}
	if len(rename) == 0 {
		return st, nil, nil
	}
	targets := map[string]string{}
	for _, from := range slices.Sorted(maps.Keys(rename)) {
		to := rename[from]
		if other, ok := targets[to]; ok {
			return nil, nil, &MoveError{By: by[from], Err: fmt.Errorf("both %s and %s would move to %s", other, from, to)}
		}
		targets[to] = from
		_, recorded := st.Components[to]
		_, retired := st.Retired[to]
		if _, leaves := rename[to]; (recorded || retired) && !leaves {
			return nil, nil, &MoveError{By: by[from], Err: fmt.Errorf("the state records %s already, so %s cannot move there; remove one of them from the state (gardener state rm) or move it elsewhere first", to, from)}
		}
	}
	next := *st
	next.Components = make(map[string]*state.Component, len(st.Components))
	for addr, c := range st.Components {
		to, renamed := rename[addr]
		dependsOnMoved := slices.ContainsFunc(c.DependsOn, func(dep string) bool { _, ok := rename[dep]; return ok })
		if renamed || dependsOnMoved {
			cc := *c
			cc.DependsOn = make([]string, len(c.DependsOn))
			for i, dep := range c.DependsOn {
				cc.DependsOn[i] = dep
				if moved, ok := rename[dep]; ok {
					cc.DependsOn[i] = moved
				}
			}
			slices.Sort(cc.DependsOn)
			if renamed {
				cc.Address, addr = to, to
			}
			c = &cc
		}
		next.Components[addr] = c
	}
	if len(st.Retired) > 0 {
		next.Retired = make(map[string]*state.Retirement, len(st.Retired))
		for addr, r := range st.Retired {
			if to, ok := rename[addr]; ok {
				addr = to
			}
			next.Retired[addr] = r
		}
	}
	moves := make([]plan.Move, 0, len(rename))
	for _, from := range slices.Sorted(maps.Keys(rename)) {
		moves = append(moves, plan.Move{From: from, To: rename[from]})
	}
	return &next, moves, nil
}

// moveDiagnostic is the diagnostic of a move the state refused, at the moved block that asked
// for it.
func moveDiagnostic(err error) *hcl.Diagnostic {
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid move", Detail: upperFirst(err.Error()) + "."}
	var me *MoveError
	if errors.As(err, &me) && me.By != nil {
		d.Subject = me.By.ToRange.Ptr()
	}
	return d
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// idleMoves are the moved blocks that neither moved a record of st nor find their new address
// (followed to the end of its chain) recorded in moved, st after the moves: most likely a typo in
// from or to. A state nothing was applied to yet has nothing to move, and no block is idle then.
func idleMoves(st, moved *state.State, moves []*config.Moved) []*config.Moved {
	if st == nil || st.Serial == 0 {
		return nil
	}
	recorded := func(s *state.State, a address.Address) bool {
		for addr := range s.Components {
			if b, err := address.Parse(addr); err == nil && a.Matches(b) {
				return true
			}
		}
		for addr := range s.Retired {
			if b, err := address.Parse(addr); err == nil && a.Matches(b) {
				return true
			}
		}
		return false
	}
	var idle []*config.Moved
	for _, m := range moves {
		end, _ := config.MovedAddress(moves, m.To)
		if !recorded(st, m.From) && !recorded(moved, end) {
			idle = append(idle, m)
		}
	}
	return idle
}

// idleMoveWarning is the warning about a moved block that moves nothing.
func idleMoveWarning(m *config.Moved) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  "Moved block moves nothing",
		Detail:   fmt.Sprintf("The state records nothing at %s, and nothing at %s either: check the block's from and to (\"gardener state list\" lists what the state records). A moved block whose move is made stays harmless.", m.From, m.To),
		Subject:  m.DeclRange.Ptr(),
	}
}
