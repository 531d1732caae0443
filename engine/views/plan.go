// Package views prints plans: the human form, grouped by component in graph order with
// Terraform's symbols, and the versioned JSON form. Plans are redacted when they are built, so
// views only format. The human forms escape every piece of data they print (internal/termsafe):
// names, values and messages come from live objects and other people, and must not control the
// terminal; only the view's own colours and cursor movements reach it as they are.
package views

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/internal/termsafe"
)

// PlanOptions configure the human plan view.
type PlanOptions struct {
	// Color uses ANSI colours (for terminals without NO_COLOR).
	Color bool
	// Detail is how much of each object the plan shows; the zero value is DetailAuto.
	Detail Detail
}

const (
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	red    = "\x1b[31m"
	cyan   = "\x1b[36m"
	bold   = "\x1b[1m"
	reset  = "\x1b[0m"
)

type printer struct {
	w     io.Writer
	color bool
	// compact prints created, replaced and deleted objects on one line (Detail).
	compact bool
	err     error
}

// printf writes like fmt.Fprintf, escaping every argument but styled ones (sprintf).
func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = io.WriteString(p.w, string(sprintf(format, args...)))
	}
}

// styled is text the view made itself, its colours included: sprintf writes it as it is.
type styled string

// sprintf formats like fmt.Sprintf, but writes each argument that is not styled escaped (its
// formatted form, so that verbs, widths and %q work as usual): whatever the data holds, only the
// format and the view's own styling can control the terminal.
func sprintf(format string, args ...any) styled {
	safe := make([]any, len(args))
	for i, a := range args {
		if s, ok := a.(styled); ok {
			safe[i] = string(s)
		} else {
			safe[i] = escaped{a}
		}
	}
	return styled(fmt.Sprintf(format, safe...))
}

// escaped formats a value with the verb it is given, then escapes the result for a terminal.
type escaped struct{ v any }

func (e escaped) Format(f fmt.State, verb rune) {
	_, _ = io.WriteString(f, termsafe.Escape(fmt.Sprintf(fmt.FormatString(f, verb), e.v)))
}

// paint colours s (escaped) when colours are on.
func (p *printer) paint(code, s string) styled {
	if !p.color {
		return styled(termsafe.Escape(s))
	}
	return styled(code + termsafe.Escape(s) + reset)
}

// symbol is the action's marker, as Terraform users know it.
func (p *printer) symbol(a plan.Action) styled {
	switch a {
	case plan.Create:
		return p.paint(green, "+")
	case plan.Update:
		return p.paint(yellow, "~")
	case plan.Replace:
		return p.paint(red, "-") + "/" + p.paint(green, "+")
	case plan.Delete:
		return p.paint(red, "-")
	case plan.Read:
		return p.paint(cyan, "<=")
	}
	return " "
}

// Plan prints the human form of a plan.
func Plan(w io.Writer, pl *plan.Plan, opts PlanOptions) error {
	p := &printer{w: w, color: opts.Color, compact: opts.Detail.compact(pl)}
	if !pl.HasChanges() {
		printWarnings(p, pl)
		printPredictions(p, pl)
		if pl.Summary.Held > 0 {
			printHeld(p, pl)
			p.printf("\n%s\n", p.paint(bold+green, fmt.Sprintf("No changes to apply now; %d change(s) wait for their maintenance window.", pl.Summary.Held)))
		} else {
			p.printf("%s\n", p.paint(bold+green, "No changes. The landscape matches the live clusters."))
		}
		printOutputs(p, pl)
		return p.err
	}
	p.printf("gardener will perform the following actions on landscape %q:\n", pl.Landscape)
	if p.compact {
		printCompactNote(p, pl, opts.Detail)
	}
	for _, c := range pl.Components {
		if c.Action == plan.NoOp {
			continue
		}
		p.printf("\n%s %s", p.paint(bold, "#"), p.paint(bold, c.Address))
		if c.MovedFrom != "" {
			p.printf(" (moved from %s)", c.MovedFrom)
		}
		if !c.Note.IsZero() {
			p.printf(" (%s)", c.Note)
		}
		if counts := componentCounts(c); p.compact && counts != "" {
			p.printf(": %s", counts)
		}
		p.printf("\n")
		if c.Action == plan.Read {
			p.printf("  %s %s will be rendered and planned during apply\n", p.symbol(plan.Read), c.Address)
			continue
		}
		for _, o := range c.Objects {
			if o.Action == plan.NoOp {
				continue
			}
			printObject(p, o)
		}
	}
	printMoves(p, pl)
	printRetirements(p, pl)
	printIndirectDeletions(p, pl)
	printHeld(p, pl)
	if len(pl.Warnings)+len(pl.Notices)+len(pl.Predictions) > 0 {
		p.printf("\n")
	}
	printWarnings(p, pl)
	printPredictions(p, pl)
	s := pl.Summary
	p.printf("\n%s %d to add, %d to change, %d to replace, %d to destroy.", p.paint(bold, "Plan:"), s.Add, s.Change, s.Replace, s.Destroy)
	if len(pl.Moved) > 0 {
		p.printf(" %d component(s) moved.", len(pl.Moved))
	}
	if s.Superseded > 0 {
		p.printf(" %d of the deletions superseded by new versions.", s.Superseded)
	}
	if s.Imported > 0 {
		p.printf(" %d of the changes import existing objects.", s.Imported)
	}
	if s.Released > 0 {
		p.printf(" %d of the changes release objects to Gardener's controllers.", s.Released)
	}
	if s.Deferred > 0 {
		p.printf(" %d component(s) rendered during apply.", s.Deferred)
	}
	if s.Held > 0 {
		p.printf(" %d held until their maintenance window.", s.Held)
	}
	if n := len(pl.IndirectDeletions); n > 0 {
		p.printf(" %d deletion(s) by other controllers.", n)
	}
	p.printf("\n")
	printOutputs(p, pl)
	return p.err
}

// printIndirectDeletions lists what other controllers delete because of the plan's changes (an
// object dropped from a ManagedResource, the machines of a removed worker pool): the plan deletes
// none of it itself, yet a reviewer must see it as plainly as the plan's own deletions.
func printIndirectDeletions(p *printer, pl *plan.Plan) {
	if len(pl.IndirectDeletions) == 0 {
		return
	}
	p.printf("\n%s\n", p.paint(bold, "# deleted by other controllers because of these changes"))
	for _, d := range pl.IndirectDeletions {
		p.printf("  %s %s deletes %s %s (%s changes %s)\n", p.paint(red, "-"), d.Controller, d.Deletes,
			p.paint(cyan, "("+d.Cluster+")"), d.Address, objectName(d.Ref))
	}
}

// printMoves lists the state's records moved blocks move to another address, as Terraform lists
// the resources that "has moved to" another address.
func printMoves(p *printer, pl *plan.Plan) {
	if len(pl.Moved) == 0 {
		return
	}
	p.printf("\n%s\n", p.paint(bold, "Moved (the state records them at their new address; their objects stay):"))
	for _, m := range pl.Moved {
		p.printf("  %s has moved to %s\n", m.From, m.To)
	}
}

// printHeld lists the changes held back until their component's maintenance window: what they
// will do then, so that a plan outside the window shows what the window will bring.
func printHeld(p *printer, pl *plan.Plan) {
	for _, c := range pl.Components {
		var held []*plan.ObjectChange
		for _, o := range c.Objects {
			if o.Held != "" {
				held = append(held, o)
			}
		}
		if len(held) == 0 {
			continue
		}
		p.printf("\n%s %s (%s)\n", p.paint(bold, "#"), p.paint(bold, c.Address), c.Note)
		for _, o := range held {
			p.printf("  %s %s %s held: %s [%s]\n", p.symbol(o.Held), objectName(o.Shown()), p.paint(cyan, "("+o.Cluster+")"), heldText(o.Held), o.Reason)
			if o.Held == plan.Delete || p.compact && o.Held != plan.Update {
				continue
			}
			for _, ch := range o.Changes {
				printChange(p, ch, o.Held == plan.Create)
			}
		}
	}
}

// heldText says what a held change will do in its window.
func heldText(a plan.Action) string {
	switch a {
	case plan.Create:
		return "will be created in the maintenance window"
	case plan.Replace:
		return "will be replaced in the maintenance window"
	case plan.Delete:
		return "will be destroyed in the maintenance window"
	}
	return "will be updated in the maintenance window"
}

// printRetirements lists the state records of ended lifetimes the apply adds and drops.
func printRetirements(p *printer, pl *plan.Plan) {
	var lines []styled
	for _, r := range pl.Retired {
		if !r.Recorded {
			by := ""
			if r.EndedBy != "" {
				by = ", ended by " + r.EndedBy
			}
			lines = append(lines, sprintf("  %s %s: lifetime ended at %s (%s%s); recorded so that it is not created again while its block stays", p.paint(red, "-"), r.Address, r.Ended, r.Reason, by))
		}
	}
	for _, addr := range pl.Forget {
		lines = append(lines, sprintf("  %s %s: the record of its ended lifetime is dropped (its block is gone or it has no lifetime any more)", p.paint(green, "+"), addr))
	}
	if len(lines) == 0 {
		return
	}
	p.printf("\n%s\n", p.paint(bold, "# state: ended lifetimes"))
	for _, l := range lines {
		p.printf("%s\n", l)
	}
}

func printWarnings(p *printer, pl *plan.Plan) {
	for _, w := range pl.Warnings {
		p.printf("%s %s\n", p.paint(bold+yellow, "Warning:"), w)
	}
	for _, n := range pl.Notices {
		p.printf("%s %s\n", p.paint(bold+cyan, "Note:"), n)
	}
}

// printPredictions lists what Gardener's own controllers will do, each marked with the
// controller, so that a reader tells them from the changes the plan applies.
func printPredictions(p *printer, pl *plan.Plan) {
	for _, pr := range pl.Predictions {
		who := pr.Actor
		if pr.Controller != "" {
			who += " (" + pr.Controller + ")"
		}
		when := "when it reconciles"
		switch {
		case pr.At != "" && pr.Until != "":
			when = "between " + pr.At + " and " + pr.Until
		case pr.At != "":
			when = "at " + pr.At
		}
		p.printf("%s %s %s: %s %s %s: %s\n", p.paint(bold+cyan, "Predicted:"), who, when, pr.Action,
			objectName(pr.Ref), p.paint(cyan, "("+pr.Cluster+")"), pr.Description)
	}
}

func printObject(p *printer, o *plan.ObjectChange) {
	if p.compact && o.Action != plan.Update {
		printCompactObject(p, o)
		return
	}
	p.printf("  %s %s %s %s\n", p.symbol(o.Action), objectName(o.Shown()), p.paint(cyan, "("+o.Cluster+")"), reasonText(o))
	for _, c := range o.Conflicts {
		p.printf("      %s %s is owned by field manager %q; apply with --force-conflicts to take it over\n", p.paint(red, "!"), c.Path, c.Manager)
	}
	for _, c := range o.Drift {
		p.printf("      %s %s was changed by %s; apply takes it back\n", p.paint(yellow, "<"), c.Path, c.Manager)
	}
	if o.Action == plan.Delete {
		return
	}
	for _, ref := range o.OwnerReferences {
		p.printf("      %s owner reference to %s %s (uid %s)\n", p.paint(green, "+"), ref.Kind, ref.Name, ref.UID)
	}
	for _, c := range o.Changes {
		printChange(p, c, o.Action == plan.Create)
	}
}

func objectName(r object.Ref) string {
	name := r.Name
	if r.Namespace != "" {
		name = r.Namespace + "/" + r.Name
	}
	return object.GroupKindString(r.GroupKind()) + " " + name
}

// reasonText says why in words, with the machine reason in brackets.
func reasonText(o *plan.ObjectChange) string {
	arg := o.Reason.Detail
	var text string
	switch o.Reason.Kind {
	case plan.ReasonMissing:
		text = "will be created"
	case plan.ReasonDrift:
		text = "will be updated: the live object drifted from the landscape"
		if by := o.DriftManagers(); len(by) > 0 {
			text = "will be updated: drift by " + strings.Join(by, ", ") + ", taken back"
		}
	case plan.ReasonConfigChanged:
		text = "will be updated: the landscape changed"
		if by := o.DriftManagers(); len(by) > 0 {
			text += "; drift by " + strings.Join(by, ", ") + " is taken back too"
		}
	case plan.ReasonImmutableField:
		text = fmt.Sprintf("must be replaced: immutable field %s changes", arg)
	case plan.ReasonRemovedFromLandscape:
		text = "will be destroyed: no longer in the landscape"
	case plan.ReasonSuperseded:
		text = fmt.Sprintf("will be destroyed: superseded by %s", arg)
	case plan.ReasonLifetimeEnded:
		text = "will be destroyed: the lifetime of its instance ended"
	case plan.ReasonReleased:
		text = fmt.Sprintf("will be released to %s: no longer rendered, not deleted; gardener removes only its label and annotations and forgets it", arg)
	case plan.ReasonConflict:
		text = fmt.Sprintf("will be updated, but fields owned by %q conflict: apply needs --force-conflicts", arg)
	case plan.ReasonAdopt:
		text = "exists and will be adopted into the landscape"
	case plan.ReasonDestroy:
		text = "will be destroyed"
	case plan.ReasonImport:
		text = fmt.Sprintf("will be imported into the landscape (import %s): it gets the landscape's lineage, and apply takes over the fields other field managers own", arg)
	case plan.ReasonMoved:
		text = fmt.Sprintf("will be updated: its component moved from %s, only the annotation naming it changes", arg)
	default:
		text = string(o.Action)
	}
	return text + " [" + o.Reason.String() + "]"
}

func printChange(p *printer, c plan.FieldChange, creating bool) {
	switch {
	case creating:
		p.printf("      %s %s = %s\n", p.paint(green, "+"), c.Path, value(c, c.After, c.HasAfter, true))
	case !c.HasBefore:
		p.printf("      %s %s = %s\n", p.paint(green, "+"), c.Path, value(c, c.After, c.HasAfter, true))
	case !c.HasAfter && !c.Unknown:
		p.printf("      %s %s = %s\n", p.paint(red, "-"), c.Path, value(c, c.Before, c.HasBefore, false))
	default:
		p.printf("      %s %s: %s -> %s\n", p.paint(yellow, "~"), c.Path, value(c, c.Before, c.HasBefore, false), value(c, c.After, c.HasAfter, true))
	}
}

// value formats one side of a change as compact JSON.
func value(c plan.FieldChange, v any, present, after bool) string {
	switch {
	case c.Sensitive:
		return "(sensitive value)"
	case after && c.Unknown:
		return "(known after apply)"
	case !present:
		return "(absent)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

func printOutputs(p *printer, pl *plan.Plan) {
	if len(pl.Outputs) == 0 {
		return
	}
	p.printf("\nOutputs:\n")
	outs := append([]plan.Output(nil), pl.Outputs...)
	sort.Slice(outs, func(i, j int) bool { return outs[i].Name < outs[j].Name })
	for _, o := range outs {
		v := "(known after apply)"
		switch {
		case o.Sensitive:
			v = "(sensitive value)"
		case !o.Unknown:
			b, _ := json.Marshal(o.Value)
			v = string(b)
		}
		p.printf("  %s = %s\n", o.Name, v)
	}
}

// PlanJSON writes the JSON form of a plan (docs/plan-format.md), indented, with a final newline.
func PlanJSON(w io.Writer, pl *plan.Plan) error {
	if pl.Components == nil {
		c := *pl
		c.Components = []*plan.Component{}
		pl = &c
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(pl); err != nil {
		return fmt.Errorf("plan json: %w", err)
	}
	return nil
}
