package schema

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/declarative-gardener/gardener/internal/formatversion"
)

// JSONFormatVersion is the version of the document JSON produces ("1.0"; earlier versions wrote
// "1"). Its major version changes when a consumer would have to change: a field renamed, removed
// or given a new meaning; its minor version when fields are added.
var JSONFormatVersion = formatversion.Version{Major: 1, Minor: 0}

// The JSON document's shape. Slices keep declaration order; optional fields are omitted when empty
// so that editors see only what a schema says.
type (
	jsonDocument struct {
		FormatVersion formatversion.Version `json:"format_version"`
		Schemas       []jsonSchema          `json:"schemas"`
	}
	jsonSchema struct {
		Kind        Kind            `json:"kind"`
		Type        string          `json:"type"`
		Description string          `json:"description,omitempty"`
		Attributes  []jsonAttribute `json:"attributes"`
		Blocks      []jsonBlock     `json:"blocks"`
		Outputs     []jsonOutput    `json:"outputs"`
		Rules       []jsonRule      `json:"rules"`
	}
	jsonRule struct {
		Name     string `json:"name"`
		Describe string `json:"describe"`
	}
	jsonAttribute struct {
		Name          string          `json:"name"`
		Type          json.RawMessage `json:"type"`
		Description   string          `json:"description,omitempty"`
		Required      bool            `json:"required"`
		Default       json.RawMessage `json:"default,omitempty"`
		AllowedValues []string        `json:"allowed_values,omitempty"`
		Immutable     bool            `json:"immutable"`
		Sensitive     bool            `json:"sensitive"`
		References    string          `json:"references,omitempty"`
		Checks        []string        `json:"checks,omitempty"`
	}
	jsonBlock struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Nesting     string          `json:"nesting"`
		Labels      []string        `json:"labels,omitempty"`
		Required    bool            `json:"required"`
		MinItems    int             `json:"min_items,omitempty"`
		MaxItems    int             `json:"max_items,omitempty"`
		Attributes  []jsonAttribute `json:"attributes"`
		Blocks      []jsonBlock     `json:"blocks"`
	}
	jsonOutput struct {
		Name        string          `json:"name"`
		Type        json.RawMessage `json:"type"`
		Description string          `json:"description,omitempty"`
		Sensitive   bool            `json:"sensitive"`
	}
)

// JSON describes every schema of the registry for editors and `gardener schema --json`: kinds,
// attributes with their cty types in go-cty's JSON type notation (as "string" or
// ["list","string"]), defaults as plain JSON, allowed values, immutability, sensitivity,
// reference kinds and check names; nested blocks recursively; outputs. Schemas come in
// Registry.All order and everything else in declaration order, so the bytes are stable.
func JSON(r *Registry) ([]byte, error) {
	doc := jsonDocument{FormatVersion: JSONFormatVersion, Schemas: []jsonSchema{}}
	for _, s := range r.All() {
		js := jsonSchema{Kind: s.Kind, Type: s.Type, Description: s.Description, Outputs: []jsonOutput{}, Rules: []jsonRule{}}
		for _, rule := range s.Rules {
			js.Rules = append(js.Rules, jsonRule{Name: rule.Name, Describe: rule.Describe})
		}
		var err error
		if js.Attributes, js.Blocks, err = jsonBody(&s.Body, s.Type); err != nil {
			return nil, err
		}
		for _, o := range s.Outputs {
			t, err := jsonType(o.Type)
			if err != nil {
				return nil, fmt.Errorf("schema %s: output %s: %w", s.Type, o.Name, err)
			}
			js.Outputs = append(js.Outputs, jsonOutput{Name: o.Name, Type: t, Description: o.Description, Sensitive: o.Sensitive})
		}
		doc.Schemas = append(doc.Schemas, js)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Descriptions contain `<name>` placeholders; escaping them as \u003c helps nobody.
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func jsonBody(b *Body, path string) ([]jsonAttribute, []jsonBlock, error) {
	attrs := []jsonAttribute{}
	for i := range b.Attributes {
		a := &b.Attributes[i]
		where := path + "." + a.Name
		t, err := jsonType(a.Type)
		if err != nil {
			return nil, nil, fmt.Errorf("schema %s: %w", where, err)
		}
		ja := jsonAttribute{
			Name: a.Name, Type: t, Description: a.Description, Required: a.Required,
			AllowedValues: a.AllowedValues, Immutable: a.Immutable, Sensitive: a.Sensitive,
			References: a.References,
		}
		if a.Default != cty.NilVal {
			// The default's own type, not the attribute's: a dynamic attribute's default would
			// otherwise be wrapped in go-cty's {"value":...,"type":...} envelope.
			d, _ := a.Default.UnmarkDeep()
			if ja.Default, err = ctyjson.Marshal(d, d.Type()); err != nil {
				return nil, nil, fmt.Errorf("schema %s: default: %w", where, err)
			}
		}
		for _, c := range a.Checks {
			ja.Checks = append(ja.Checks, c.Name)
		}
		attrs = append(attrs, ja)
	}
	blocks := []jsonBlock{}
	for i := range b.Blocks {
		blk := &b.Blocks[i]
		jb := jsonBlock{
			Name: blk.Name, Description: blk.Description, Nesting: "single", Labels: blk.Labels,
			Required: blk.Required, MinItems: blk.MinItems, MaxItems: blk.MaxItems,
		}
		if blk.Nesting == NestingList {
			jb.Nesting = "list"
		}
		var err error
		if jb.Attributes, jb.Blocks, err = jsonBody(&blk.Body, path+"."+blk.Name); err != nil {
			return nil, nil, err
		}
		blocks = append(blocks, jb)
	}
	return attrs, blocks, nil
}

func jsonType(t cty.Type) (json.RawMessage, error) {
	raw, err := ctyjson.MarshalType(t)
	if err != nil {
		return nil, err
	}
	return raw, nil
}
