package views

import (
	"fmt"
	"strings"

	"github.com/declarative-gardener/gardener/engine/plan"
)

// Detail says how much of each object the human plan shows. A first plan of a landscape creates
// thousands of objects with every field listed, which nobody reads: the compact form lists each
// object on one line and keeps the fields only where a reviewer must read them, for objects
// changed in place (kapp's --diff-summary is the same idea; Terraform has no such form).
type Detail string

// The levels of detail.
const (
	// DetailAuto is compact when the plan creates more than CompactThreshold objects, full
	// otherwise; the plan then says how to get the full form.
	DetailAuto Detail = "auto"
	// DetailFull lists every field of every object that changes.
	DetailFull Detail = "full"
	// DetailCompact lists one line per object, with the fields of updates only, and the number
	// of changes of each component.
	DetailCompact Detail = "compact"
)

// CompactThreshold is the number of objects a plan may create before DetailAuto shows it
// compact: a screenful of objects with their fields is still read, a first apply of a garden is
// not.
const CompactThreshold = 200

// Details are the levels of detail, in the order help and completion list them.
var Details = []Detail{DetailAuto, DetailFull, DetailCompact}

// ParseDetail reads a --detail value; the empty string is DetailAuto.
func ParseDetail(s string) (Detail, error) {
	if s == "" {
		return DetailAuto, nil
	}
	for _, d := range Details {
		if string(d) == s {
			return d, nil
		}
	}
	return "", fmt.Errorf("unknown detail %q: use auto, full or compact", s)
}

// compact reports whether pl is shown compact at this level of detail.
func (d Detail) compact(pl *plan.Plan) bool {
	switch d {
	case DetailCompact:
		return true
	case DetailFull:
		return false
	}
	return pl.Summary.Add > CompactThreshold
}

// printCompactNote says that the plan is compact and, when the plan chose it itself, why and how
// to see every field.
func printCompactNote(p *printer, pl *plan.Plan, d Detail) {
	if d == DetailCompact {
		p.printf("Compact plan (--detail=compact): one line per object, fields only of objects updated in place.\n")
		return
	}
	p.printf("Compact plan: it creates %d objects (more than %d), so it lists one line per object and fields only of objects updated in place. Show every field with --detail=full.\n",
		pl.Summary.Add, CompactThreshold)
}

// componentCounts counts a component's object changes as the summary line does ("2 to add,
// 1 to change"), leaving out the actions it has none of.
func componentCounts(c *plan.Component) string {
	var s plan.Summary
	for _, o := range c.Objects {
		switch o.Action {
		case plan.Create:
			s.Add++
		case plan.Update:
			s.Change++
		case plan.Replace:
			s.Replace++
		case plan.Delete:
			s.Destroy++
		}
	}
	var parts []string
	for _, n := range []struct {
		count int
		what  string
	}{{s.Add, "to add"}, {s.Change, "to change"}, {s.Replace, "to replace"}, {s.Destroy, "to destroy"}} {
		if n.count > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n.count, n.what))
		}
	}
	return strings.Join(parts, ", ")
}

// printCompactObject prints an object that is created, replaced or deleted on one line, without
// its fields: the symbol, the object, its cluster and, unless it is a plain creation, why.
func printCompactObject(p *printer, o *plan.ObjectChange) {
	if o.Action == plan.Create && o.Reason.Kind == plan.ReasonMissing {
		p.printf("  %s %s %s\n", p.symbol(o.Action), objectName(o.Shown()), p.paint(cyan, "("+o.Cluster+")"))
		return
	}
	p.printf("  %s %s %s %s\n", p.symbol(o.Action), objectName(o.Shown()), p.paint(cyan, "("+o.Cluster+")"), reasonText(o))
	for _, c := range o.Conflicts {
		p.printf("      %s %s is owned by field manager %q; apply with --force-conflicts to take it over\n", p.paint(red, "!"), c.Path, c.Manager)
	}
}
