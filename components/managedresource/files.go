package managedresource

import (
	"fmt"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Inline are objects given inline in the configuration. They decode with whole numbers as
// int64, as the API server reads them, so that 1000000 is not packed as 1e+06, and with an
// error naming the element that is not an object.
type Inline []map[string]any

// UnmarshalJSON takes a JSON list of objects; null is no objects.
func (in *Inline) UnmarshalJSON(data []byte) error {
	var v any
	if err := utiljson.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("objects: %w", err)
	}
	if v == nil {
		*in = nil
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("objects must be a list of objects")
	}
	out := make(Inline, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return fmt.Errorf("objects[%d] is not an object", i)
		}
		out = append(out, m)
	}
	*in = out
	return nil
}
