package plan

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/declarative-gardener/gardener/engine/secrets"
)

// The notes the plan writes, by kind; noteForms reads each kind back from its words.
var (
	removedNote       = Note{Kind: NoteRemoved, Text: "removed from the landscape"}
	lifetimeEndedNote = Note{Kind: NoteLifetimeEnded, Text: "lifetime ended"}
)

// retiredNote marks an instance whose lifetime ended at ended: its parts are deleted when it is
// a composite, else its objects.
func retiredNote(ended string, composite bool) Note {
	what := "its objects are"
	if composite {
		what = "its parts are"
	}
	return Note{Kind: NoteRetired, Text: fmt.Sprintf("lifetime ended at %s: %s deleted", ended, what)}
}

// deferredNote marks a component rendered during apply because of the values at paths.
func deferredNote(paths []string) Note {
	return Note{Kind: NoteDeferred, Text: "rendered during apply: depends on values known only after apply (" + strings.Join(paths, ", ") + ")"}
}

// awaitingNote marks a component rendered during apply because it follows an object another
// controller creates first (render.Await), which what says.
func awaitingNote(what string) Note {
	return Note{Kind: NoteDeferred, Text: "rendered during apply, once it exists: " + what}
}

// unrenderedNote marks a component of a type this version cannot render.
func unrenderedNote(typ string) Note {
	return Note{Kind: NoteUnrendered, Text: fmt.Sprintf("%s components are not rendered by this version of gardener", typ)}
}

// generatedNote says what the generator step did (secrets.Result.Reason, which starts with its
// action).
func generatedNote(what string) Note { return Note{Kind: NoteGenerated, Text: what} }

// heldNote counts the changes held until the maintenance window.
func heldNote(held int, window string) Note {
	return Note{Kind: NoteHeld, Text: fmt.Sprintf("%d change(s) held until the maintenance window %s", held, window)}
}

// textNote is a note in the rendering's own words.
func textNote(text string) Note { return Note{Kind: NoteText, Text: text} }

// noteForms tell the kinds of notes by their words, as the functions above write them.
var noteForms = []struct {
	kind NoteKind
	form *regexp.Regexp
}{
	{NoteRemoved, regexp.MustCompile(`^` + regexp.QuoteMeta(removedNote.Text) + `$`)},
	{NoteLifetimeEnded, regexp.MustCompile(`^` + regexp.QuoteMeta(lifetimeEndedNote.Text) + `$`)},
	{NoteRetired, regexp.MustCompile(`^lifetime ended at \S+: its (objects|parts) are deleted$`)},
	{NoteDeferred, regexp.MustCompile(`^rendered during apply: depends on values known only after apply \(.*\)$`)},
	{NoteDeferred, regexp.MustCompile(`^rendered during apply, once it exists: .+$`)},
	{NoteUnrendered, regexp.MustCompile(`^\S+ components are not rendered by this version of gardener$`)},
	{NoteGenerated, regexp.MustCompile(fmt.Sprintf(`^(%s|%s|%s|%s): `, secrets.Created, secrets.Renewed, secrets.Rotated, secrets.Regenerated))},
	{NoteHeld, regexp.MustCompile(`^\d+ change\(s\) held until the maintenance window .+$`)},
}

// ParseNote reads a note's words, as the plan's JSON form has them, and tells its kind: a note
// worded like one the plan writes is of that kind, any other is NoteText.
func ParseNote(text string) Note {
	for _, f := range noteForms {
		if f.form.MatchString(text) {
			return Note{Kind: f.kind, Text: text}
		}
	}
	return textNote(text)
}
