package formatversion

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionJSON(t *testing.T) {
	data, err := json.Marshal(struct {
		V Version `json:"format_version"`
	}{Version{1, 10}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"format_version":"1.10"}`, string(data))
}

func TestVersionReadsEveryStyle(t *testing.T) {
	tests := []struct {
		in   string
		want Version
		err  string
	}{
		{`"1.10"`, Version{1, 10}, ""},
		{`"2.0"`, Version{2, 0}, ""},
		{`"1"`, Version{1, 0}, ""},
		{`1`, Version{1, 0}, ""},
		{`"1.x"`, Version{}, `format version "1.x" is not MAJOR.MINOR`},
		{`"-1.0"`, Version{}, `format version "-1.0" is not MAJOR.MINOR`},
		{`"01.0"`, Version{}, `format version "01.0" is not MAJOR.MINOR`},
		{`1.5`, Version{}, `format version 1.5 is not MAJOR.MINOR`},
		{`""`, Version{}, `format version "" is not MAJOR.MINOR`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var v Version
			err := json.Unmarshal([]byte(tt.in), &v)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, v)
		})
	}
}

func TestReadsSameMajorOnly(t *testing.T) {
	v := Version{1, 2}
	assert.True(t, v.Reads(Version{1, 0}))
	assert.True(t, v.Reads(Version{1, 7}), "a newer minor version only adds fields")
	assert.False(t, v.Reads(Version{2, 0}))
	assert.False(t, v.Reads(Version{}))
}

func TestRewritesNoNewerMinor(t *testing.T) {
	v := Version{1, 2}
	assert.True(t, v.Rewrites(Version{1, 0}))
	assert.True(t, v.Rewrites(Version{1, 2}))
	assert.False(t, v.Rewrites(Version{1, 3}), "writing it back would drop the fields of 1.3")
	assert.False(t, v.Rewrites(Version{2, 0}))
}
