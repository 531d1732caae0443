package decode

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Object is a Kubernetes object (or any JSON object) passed between blocks as an output: a
// block's rendered object that another block embeds, such as the Seed and the CloudProfile the
// extensions Cluster of a shoot carries. Numbers decode as int64 where they are whole, as
// Kubernetes objects hold them, and float64 otherwise.
type Object map[string]any

// UnmarshalJSON decodes an object with whole numbers as int64.
func (o *Object) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("object: %w", err)
	}
	*o = numbers(m).(map[string]any)
	return nil
}

// numbers turns json.Numbers into int64 or float64, recursively.
func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64() // the decoder only produces valid numbers
		return f
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	}
	return v
}

// Value turns a JSON-shaped object into the cty value of an output that carries it, typed by
// its content.
func Value(object map[string]any) (cty.Value, error) {
	data, err := json.Marshal(object)
	if err != nil {
		return cty.NilVal, fmt.Errorf("object output: %w", err)
	}
	ty, err := ctyjson.ImpliedType(data)
	if err != nil {
		return cty.NilVal, fmt.Errorf("object output: %w", err)
	}
	v, err := ctyjson.Unmarshal(data, ty)
	if err != nil {
		return cty.NilVal, fmt.Errorf("object output: %w", err)
	}
	return v, nil
}
