package state

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// encode renders a state as indented JSON (maps in key order, so equal states encode equally).
func encode(s *State) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("state: encode: %w", err)
	}
	return buf.Bytes(), nil
}

// decode parses a state and refuses a format this gardener does not know.
func decode(data []byte) (*State, error) {
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if !FormatVersion.Rewrites(s.FormatVersion) {
		return nil, fmt.Errorf("format version %s is not supported (this gardener reads version %s); upgrade gardener", s.FormatVersion, FormatVersion)
	}
	if s.Components == nil {
		s.Components = map[string]*Component{}
	}
	return &s, nil
}

// prepared is s as it will be stored: with the lineage and serial of the write.
func prepared(s *State, lineage string, serial int64) *State {
	c := *s
	c.FormatVersion, c.Lineage, c.Serial = FormatVersion, lineage, serial
	if c.Components == nil {
		c.Components = map[string]*Component{}
	}
	return &c
}
