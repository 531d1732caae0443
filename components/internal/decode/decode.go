// Package decode fills a component's typed values from its evaluated configuration, so that
// render functions work on Go structs instead of walking cty values. Attribute names map to
// the struct's json tags; a null (unset) attribute leaves the field's zero value.
package decode

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Into decodes config into out, a pointer to a struct with json tags named like the schema's
// attributes and blocks. Cluster references decode into a struct with a Name field
// (`json:"name"`); nested blocks into nested structs or slices of them. Unknown attributes in
// the configuration are an error, so that a schema and its struct cannot drift apart unnoticed.
func Into(config cty.Value, out any) error {
	if config.IsNull() {
		return fmt.Errorf("configuration is null")
	}
	if !config.IsWhollyKnown() {
		return fmt.Errorf("configuration has values known only after apply")
	}
	data, err := ctyjson.SimpleJSONValue{Value: config}.MarshalJSON()
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	return nil
}

// Cluster is a reference to a cluster block (`cluster = cluster.runtime`) as configurations
// carry it: the evaluated cluster value, of which components need only the name.
type Cluster struct {
	Name string `json:"name"`
}

// UnmarshalJSON takes the name of an evaluated cluster and ignores its other attributes
// (kubeconfig, context, ...), which are the engine's business.
func (c *Cluster) UnmarshalJSON(data []byte) error {
	var v struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("cluster reference: %w", err)
	}
	c.Name = v.Name
	return nil
}
