package views

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// documentedFields reads docs/plan-format.md: for each "## <Type>" section, the fields of its
// table with their types.
func documentedFields(t *testing.T) map[string]map[string]string {
	t.Helper()
	f, err := os.Open("../../docs/plan-format.md")
	require.NoError(t, err)
	defer f.Close()
	out := map[string]map[string]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			section = strings.Fields(strings.TrimPrefix(line, "## "))[0]
			continue
		}
		if !strings.HasPrefix(line, "| `") || section == "" {
			continue
		}
		cells := strings.Split(line, "|")
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		if out[section] == nil {
			out[section] = map[string]string{}
		}
		out[section][name] = strings.TrimSpace(cells[2])
	}
	require.NoError(t, sc.Err())
	return out
}

// conforms checks a decoded JSON value against the documented type named typ.
func conforms(t *testing.T, docs map[string]map[string]string, typ, path string, v any) {
	t.Helper()
	switch {
	case typ == "any":
		return
	case typ == "string":
		_, ok := v.(string)
		assert.True(t, ok, "%s: want string, got %T", path, v)
	case typ == "boolean":
		_, ok := v.(bool)
		assert.True(t, ok, "%s: want boolean, got %T", path, v)
	case typ == "number":
		_, ok := v.(float64)
		assert.True(t, ok, "%s: want number, got %T", path, v)
	case strings.HasPrefix(typ, "array of "):
		arr, ok := v.([]any)
		if !assert.True(t, ok, "%s: want array, got %T", path, v) {
			return
		}
		for i, e := range arr {
			conforms(t, docs, strings.TrimPrefix(typ, "array of "), path+"["+string(rune('0'+i%10))+"]", e)
		}
	default:
		fields, ok := docs[typ]
		if !assert.True(t, ok, "%s: type %s is not documented", path, typ) {
			return
		}
		obj, ok := v.(map[string]any)
		if !assert.True(t, ok, "%s: want object %s, got %T", path, typ, v) {
			return
		}
		for k, e := range obj {
			ft, ok := fields[k]
			if assert.True(t, ok, "%s.%s is not documented in section %s of docs/plan-format.md", path, k, typ) {
				conforms(t, docs, ft, path+"."+k, e)
			}
		}
	}
}

func TestPlanJSONConformsToTheDocumentation(t *testing.T) {
	docs := documentedFields(t)
	require.Contains(t, docs, "Plan")
	for _, pl := range []string{"full", "empty"} {
		t.Run(pl, func(t *testing.T) {
			var buf bytes.Buffer
			p := samplePlan()
			if pl == "empty" {
				p.Components = nil
				p.Outputs = nil
				p.Summarise()
			}
			require.NoError(t, PlanJSON(&buf, p))
			var doc any
			require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
			conforms(t, docs, "Plan", "", doc)
			assert.Equal(t, "1.12", doc.(map[string]any)["format_version"])
		})
	}
}
