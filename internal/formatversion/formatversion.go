// Package formatversion is the one style of format_version that every JSON document gardener
// writes carries (the plan, saved plans, states, snapshots, schemas, validate, status and graph
// output): a string "MAJOR.MINOR". A reader accepts every minor version of the major versions it
// knows, since minor versions only add fields; a new major version is an incompatible change. The
// documents of earlier versions that wrote a bare number (states and snapshots wrote 1, saved
// plans and schemas "1") still read, as MAJOR.0.
package formatversion

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Version is a format version, written as the JSON string "MAJOR.MINOR".
type Version struct {
	Major, Minor int
}

// String is "MAJOR.MINOR".
func (v Version) String() string { return strconv.Itoa(v.Major) + "." + strconv.Itoa(v.Minor) }

// IsZero reports whether the version is missing (a document without format_version).
func (v Version) IsZero() bool { return v == Version{} }

// Reads reports whether a reader of version v reads a document of version doc: the same major
// version, any minor one (a newer minor version's fields are unknown to it and ignored).
func (v Version) Reads(doc Version) bool { return doc.Major == v.Major }

// Rewrites reports whether a reader of version v may read a document of version doc and write
// it back (a state): the same major version and no newer minor one, whose fields it would drop.
func (v Version) Rewrites(doc Version) bool { return doc.Major == v.Major && doc.Minor <= v.Minor }

// Parse reads "MAJOR.MINOR" or "MAJOR" (which means MAJOR.0).
func Parse(s string) (Version, error) {
	major, minor, hasMinor := strings.Cut(s, ".")
	var v Version
	var err error
	if v.Major, err = number(major); err != nil {
		return Version{}, fmt.Errorf("format version %q is not MAJOR.MINOR", s)
	}
	if hasMinor {
		if v.Minor, err = number(minor); err != nil {
			return Version{}, fmt.Errorf("format version %q is not MAJOR.MINOR", s)
		}
	}
	return v, nil
}

// number reads a non-negative decimal number without sign or leading zeros.
func number(s string) (int, error) {
	if s == "" || (len(s) > 1 && s[0] == '0') || strings.ContainsAny(s, "+-") {
		return 0, strconv.ErrSyntax
	}
	return strconv.Atoi(s)
}

// MarshalJSON writes the version as the string "MAJOR.MINOR".
func (v Version) MarshalJSON() ([]byte, error) { return json.Marshal(v.String()) }

// UnmarshalJSON reads "MAJOR.MINOR", "MAJOR", or a bare number (earlier states and snapshots).
func (v *Version) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] != '"' {
		major, err := number(string(data))
		if err != nil {
			return fmt.Errorf("format version %s is not MAJOR.MINOR", data)
		}
		*v = Version{Major: major}
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	parsed, err := Parse(s)
	if err != nil {
		return err
	}
	*v = parsed
	return nil
}
