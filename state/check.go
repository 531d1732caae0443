package state

import (
	"crypto/rand"
	"fmt"
)

// stored is what Write compares a new state with.
type stored struct {
	exists  bool
	lineage string
	serial  int64
}

// next checks that s may replace what is stored and returns the lineage and serial to write.
func next(where string, cur stored, s *State) (string, int64, error) {
	if !cur.exists {
		lineage := s.Lineage
		if lineage == "" {
			lineage = newUUID()
		}
		return lineage, s.Serial + 1, nil
	}
	if s.Lineage == "" {
		return "", 0, fmt.Errorf("%s: %w: a state (lineage %s, serial %d) was created meanwhile; read it and try again", where, ErrStaleSerial, cur.lineage, cur.serial)
	}
	if s.Lineage != cur.lineage {
		return "", 0, fmt.Errorf("%s: %w: writing lineage %s over lineage %s; this state belongs to another landscape or an earlier incarnation of this one", where, ErrLineageMismatch, s.Lineage, cur.lineage)
	}
	if s.Serial < cur.serial {
		return "", 0, fmt.Errorf("%s: %w: serial %d was written meanwhile and this state has serial %d; read it and try again", where, ErrStaleSerial, cur.serial, s.Serial)
	}
	return s.Lineage, s.Serial + 1, nil
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
