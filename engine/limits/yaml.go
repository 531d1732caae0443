package limits

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// YAML checks a YAML stream before a decoder that does not bound it sees it: its nesting, and
// how far its aliases expand. go-cty-yaml, which yamldecode uses, expands aliases into values
// without limit (479 bytes of nested aliases make 9^9 strings) and recurses once per level, so
// the stream is first parsed into nodes by go.yaml.in/yaml/v3, whose parser bounds its own depth
// and keeps aliases as references. A stream that parser refuses is refused with its error.
func YAML(src []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if strings.Contains(err.Error(), "exceeded max depth") {
				return fmt.Errorf("the document is nested deeper than %d levels", MaxNesting)
			}
			return err
		}
		m := &measure{size: map[*yaml.Node]int{}, depth: map[*yaml.Node]int{}}
		nodes := m.walk(&doc)
		if d := m.depth[&doc]; d > MaxNesting+1 { // the document node itself is no level
			return fmt.Errorf("the document is nested deeper than %d levels", MaxNesting)
		}
		if m.longNumber {
			return fmt.Errorf("a number is written with more than %d characters", MaxNumberLength)
		}
		if extra := nodes - m.written; extra > MaxAliasExpansion {
			return fmt.Errorf("its aliases expand the document by more than %d values; gardener refuses documents whose aliases expand that far (a billion-laughs document would exhaust memory)", MaxAliasExpansion)
		}
	}
}

// measure counts the values of a document as if every alias were a copy of its anchor (size),
// and how deeply they nest (depth); both are memoised per node, so that counting takes as long
// as the document is written, however far it expands. Counts saturate above the limits.
type measure struct {
	size    map[*yaml.Node]int
	depth   map[*yaml.Node]int
	written int
	// longNumber is set when a number is longer than MaxNumberLength.
	longNumber bool
	// visiting guards against an alias inside its own anchor, which the parser allows.
	visiting map[*yaml.Node]bool
}

const saturated = MaxAliasExpansion * 16

func (m *measure) walk(n *yaml.Node) int {
	if s, ok := m.size[n]; ok {
		return s
	}
	if m.visiting == nil {
		m.visiting = map[*yaml.Node]bool{}
	}
	if m.visiting[n] {
		m.size[n], m.depth[n] = saturated, MaxNesting+2
		return saturated
	}
	m.visiting[n] = true
	defer delete(m.visiting, n)
	size, depth := 1, 1
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		size = m.walk(n.Alias)
		depth = m.depth[n.Alias]
	} else {
		m.written++
		if n.Kind == yaml.ScalarNode && len(n.Value) > MaxNumberLength && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
			m.longNumber = true
		}
		for _, c := range n.Content {
			size = min(size+m.walk(c), saturated)
			depth = max(depth, 1+m.depth[c])
		}
	}
	m.size[n], m.depth[n] = size, min(depth, MaxNesting+2)
	return size
}
