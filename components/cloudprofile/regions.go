package cloudprofile

import (
	"github.com/declarative-gardener/gardener/components/internal/kube"
)

import "fmt"

// Region is a region shoots may use, with its availability zones (Gardener's Region in
// docs/api-reference/core.md).
type Region struct {
	Name string `json:"name"`
	// Zones are the region's availability zones.
	Zones []string `json:"zones"`
	// Labels are operator-defined labels of the region, such as its quality.
	Labels map[string]string `json:"labels"`
}

// regions renders spec.regions; a profile offers at least one.
func regions(rs []Region) ([]any, error) {
	return named("region", func(r Region) string { return r.Name }, func(r Region) (any, error) {
		m := map[string]any{"name": r.Name}
		if len(r.Zones) > 0 {
			if d := unique(r.Zones); d != "" {
				return nil, fmt.Errorf("zone %s is given twice", d)
			}
			zones := make([]any, len(r.Zones))
			for j, z := range r.Zones {
				if z == "" {
					return nil, fmt.Errorf("a zone needs a name")
				}
				zones[j] = map[string]any{"name": z}
			}
			m["zones"] = zones
		}
		if len(r.Labels) > 0 {
			m["labels"] = kube.AnyMap(r.Labels)
		}
		return m, nil
	}).of(rs)
}
