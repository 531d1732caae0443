package schema

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// Markdown renders the reference documentation of one schema: its description, a table of the
// top-level attributes, one section per nested block (titled with its path, such as
// virtual_cluster.kubernetes) and a table of outputs. The output depends only on the schema, in
// declaration order, so regenerated docs change exactly when a schema does.
func Markdown(s *Schema) []byte {
	var b bytes.Buffer
	if s.Kind == KindComponent {
		fmt.Fprintf(&b, "# Component type `%s`\n\n", s.Type)
	} else {
		fmt.Fprintf(&b, "# `%s` block\n\n", s.Type)
	}
	if s.Description != "" {
		b.WriteString(mdProse(s.Description) + "\n\n")
	}
	b.WriteString("```hcl\n" + mdUsage(s) + "\n```\n\n")
	b.WriteString("Every block also accepts the meta-arguments `depends_on`, `for_each`, `count` and `lifecycle`.\n\n")

	mdWriteBody(&b, &s.Body, "", 2)

	if len(s.Rules) > 0 {
		b.WriteString("## Rules\n\nChecked when the landscape is loaded:\n\n")
		for _, rule := range s.Rules {
			text := strings.TrimSuffix(mdProse(rule.Describe), ".")
			fmt.Fprintf(&b, "- %s%s.\n", strings.ToUpper(text[:1]), text[1:])
		}
		b.WriteString("\n")
	}

	b.WriteString("## Outputs\n\n")
	if len(s.Outputs) == 0 {
		b.WriteString("This block has no outputs.\n")
	} else {
		fmt.Fprintf(&b, "Other blocks read these as `%s`.\n\n", mdReferencePrefix(s))
		mdTableHeader(&b, "Output", "Type", "Description")
		for _, o := range s.Outputs {
			desc := mdProse(o.Description)
			if o.Sensitive {
				desc = "**Sensitive.** " + desc
			}
			mdTableRow(&b, o.Name, o.Type.FriendlyName(), desc)
		}
	}
	return b.Bytes()
}

// mdUsage is the block's opening line as a landscape author writes it.
func mdUsage(s *Schema) string {
	if s.Kind == KindComponent {
		return fmt.Sprintf("component %q \"<name>\" {\n  # ...\n}", s.Type)
	}
	return fmt.Sprintf("%s \"<name>\" {\n  # ...\n}", s.Type)
}

// mdReferencePrefix is how an expression addresses the outputs of a block of this schema.
func mdReferencePrefix(s *Schema) string {
	if s.Kind == KindComponent {
		return "component." + s.Type + ".<name>.<output>"
	}
	return s.Type + ".<name>.<output>"
}

// mdWriteBody writes the attributes table of a body, a summary of its nested blocks, then one
// section per nested block, depth first. path is the dotted path of the body ("" at the top).
func mdWriteBody(b *bytes.Buffer, body *Body, path string, level int) {
	heading := strings.Repeat("#", min(level, 6))
	if len(body.Attributes) > 0 {
		if path == "" {
			fmt.Fprintf(b, "%s Attributes\n\n", heading)
		}
		mdTableHeader(b, "Attribute", "Type", "Presence", "Constraints", "Description")
		for i := range body.Attributes {
			a := &body.Attributes[i]
			mdTableRow(b, a.Name, mdTypeName(a), mdPresence(a), mdConstraints(a), mdProse(a.Description))
		}
		b.WriteString("\n")
	}
	if len(body.Blocks) > 0 {
		if path == "" {
			fmt.Fprintf(b, "%s Blocks\n\n", heading)
		}
		mdTableHeader(b, "Block", "Nesting", "Description")
		for i := range body.Blocks {
			blk := &body.Blocks[i]
			mdTableRow(b, mdPath(path, blk.Name), mdNesting(blk), mdProse(blk.Description))
		}
		b.WriteString("\n")
	}
	if len(body.Removed) > 0 {
		if path == "" {
			fmt.Fprintf(b, "%s Removed\n\n", heading)
		}
		mdTableHeader(b, "Removed", "Was", "Instead")
		for _, r := range body.Removed {
			was := "attribute"
			if r.Block {
				was = "block"
			}
			mdTableRow(b, mdPath(path, r.Name), was, mdProse(r.Detail))
		}
		b.WriteString("\n")
	}
	for i := range body.Blocks {
		blk := &body.Blocks[i]
		p := mdPath(path, blk.Name)
		fmt.Fprintf(b, "%s Block `%s`\n\n", heading, p)
		if blk.Description != "" {
			b.WriteString(mdProse(blk.Description) + "\n\n")
		}
		fmt.Fprintf(b, "Nesting: %s. Written as `%s`.\n\n", mdNesting(blk), mdOpening(blk))
		if len(blk.Body.Attributes) == 0 && len(blk.Body.Blocks) == 0 {
			b.WriteString("This block has no arguments.\n\n")
		}
		mdWriteBody(b, &blk.Body, p, level+1)
	}
}

// mdTableHeader starts a table: the header row of the columns and the separator row under it.
func mdTableHeader(b *bytes.Buffer, columns ...string) {
	b.WriteString("| " + strings.Join(columns, " | ") + " |\n|" + strings.Repeat("---|", len(columns)) + "\n")
}

// mdTableRow writes a table row: the name of what the row describes as code, then each cell
// escaped for a table (mdCell).
func mdTableRow(b *bytes.Buffer, name string, cells ...string) {
	fmt.Fprintf(b, "| `%s` |", name)
	for _, c := range cells {
		b.WriteString(" " + mdCell(c) + " |")
	}
	b.WriteString("\n")
}

func mdPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// mdOpening is how a nested block is written, with placeholders for its labels.
func mdOpening(blk *Block) string {
	var sb strings.Builder
	sb.WriteString(blk.Name)
	for _, l := range blk.Labels {
		fmt.Fprintf(&sb, " \"<%s>\"", l)
	}
	sb.WriteString(" { ... }")
	return sb.String()
}

// mdNesting says how often a block may appear, in words.
func mdNesting(blk *Block) string {
	if blk.Nesting != NestingList {
		if blk.Required {
			return "single, required"
		}
		return "single, optional"
	}
	s := "repeated"
	if len(blk.Labels) > 0 {
		quoted := make([]string, len(blk.Labels))
		for i, l := range blk.Labels {
			quoted[i] = "`" + l + "`"
		}
		s += ", labelled " + strings.Join(quoted, ", ")
	}
	switch {
	case blk.MinItems > 0 && blk.MaxItems > 0:
		s += fmt.Sprintf(", %d to %d times", blk.MinItems, blk.MaxItems)
	case blk.MinItems > 0:
		s += fmt.Sprintf(", at least %d times", blk.MinItems)
	case blk.MaxItems > 0:
		s += fmt.Sprintf(", at most %d times", blk.MaxItems)
	}
	return s
}

// mdTypeName is the attribute's type as documentation shows it.
func mdTypeName(a *Attribute) string {
	if a.References != "" {
		return "reference to a " + a.References
	}
	return a.Type.FriendlyName()
}

// mdPresence says whether an attribute must be set and what it defaults to.
func mdPresence(a *Attribute) string {
	switch {
	case a.Required:
		return "required"
	case a.Default != cty.NilVal:
		return "optional, default `" + mdLiteral(a.Default) + "`"
	default:
		return "optional"
	}
}

// mdConstraints lists what a value must satisfy and how the engine treats it.
func mdConstraints(a *Attribute) string {
	var parts []string
	if len(a.AllowedValues) > 0 {
		vals := make([]string, len(a.AllowedValues))
		for i, v := range a.AllowedValues {
			vals[i] = "`" + strconv.Quote(v) + "`"
		}
		parts = append(parts, "one of "+strings.Join(vals, ", "))
	}
	for _, c := range a.Checks {
		parts = append(parts, c.Describe)
	}
	if a.Immutable {
		parts = append(parts, "immutable: a change replaces the object, or fails the plan where a replacement would destroy a cluster or its data (Shoots, Seeds, Projects, Gardens: plan-format.md)")
	}
	if a.Sensitive {
		parts = append(parts, "sensitive: never shown in plans or logs")
	}
	return strings.Join(parts, "; ")
}

// mdLiteral renders a default value as HCL source on one line. Sensitive defaults do not exist in
// practice; a marked value is rendered without its marks.
func mdLiteral(v cty.Value) string {
	v, _ = v.UnmarkDeep()
	switch {
	case !v.IsKnown():
		return "(known after apply)"
	case v.IsNull():
		return "null"
	}
	t := v.Type()
	switch {
	case t == cty.String:
		return strconv.Quote(v.AsString())
	case t == cty.Number:
		return v.AsBigFloat().Text('f', -1)
	case t == cty.Bool:
		return strconv.FormatBool(v.True())
	case t.IsListType() || t.IsSetType() || t.IsTupleType():
		var elems []string
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			elems = append(elems, mdLiteral(e))
		}
		return "[" + strings.Join(elems, ", ") + "]"
	case t.IsMapType() || t.IsObjectType():
		var elems []string
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			elems = append(elems, strconv.Quote(k.AsString())+" = "+mdLiteral(e))
		}
		if len(elems) == 0 {
			return "{}"
		}
		return "{ " + strings.Join(elems, ", ") + " }"
	}
	return v.GoString()
}

// mdProse makes a description safe as Markdown text: placeholders such as seed-<name> would
// otherwise be taken for HTML tags and vanish when rendered. Code spans are left alone, since
// Markdown shows their content literally.
func mdProse(s string) string {
	parts := strings.Split(strings.TrimSpace(s), "`")
	for i := 0; i < len(parts); i += 2 {
		parts[i] = strings.ReplaceAll(parts[i], "<", "&lt;")
		parts[i] = strings.ReplaceAll(parts[i], ">", "&gt;")
	}
	return strings.Join(parts, "`")
}

// mdCell makes text safe inside a Markdown table cell.
func mdCell(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\r\n", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}
