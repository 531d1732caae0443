package project

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/projectcontroller"
)

// ResourceQuotaName is the name of the ResourceQuota the project controller keeps in the project
// namespace (ResourceQuotaName in pkg/controllermanager/controller/project/project/reconciler.go
// at Gardener v1.120.0).
const ResourceQuotaName = "gardener"

// quotaChange is what the project controller will do to the ResourceQuota gardener: its
// limits, labels and annotations after the controller's write, and the keys it adds, changes
// and removes.
type quotaChange struct {
	hard                   map[string]string
	labels, annotations    map[string]string
	added, removed, kept   []string
	labelsOrAnnotationsNew bool
}

// quotaFor applies the template to the live ResourceQuota (nil when there is none) by the project
// controller's rules (createOrUpdateResourceQuota in
// pkg/controllermanager/controller/project/project/reconciler.go at v1.120.0): the limits are the
// template's keys, where a limit the quota already has keeps its value (raised by hand); limits the
// template does not list are removed; labels and annotations are merged into those the quota has.
func quotaFor(tmpl *projectcontroller.Quota, live *unstructured.Unstructured) quotaChange {
	var liveHard, liveLabels, liveAnnotations map[string]string
	if live != nil {
		liveHard, _, _ = unstructured.NestedStringMap(live.Object, "spec", "hard")
		liveLabels, liveAnnotations = live.GetLabels(), live.GetAnnotations()
	}
	c := quotaChange{hard: map[string]string{}, labels: maps.Clone(liveLabels), annotations: maps.Clone(liveAnnotations)}
	for k, v := range tmpl.Hard {
		if have, ok := liveHard[k]; ok {
			c.hard[k] = have
			if have != v {
				c.kept = append(c.kept, k)
			}
			continue
		}
		c.hard[k] = v
		c.added = append(c.added, k)
	}
	for k := range liveHard {
		if _, ok := tmpl.Hard[k]; !ok {
			c.removed = append(c.removed, k)
		}
	}
	merge := func(into *map[string]string, from map[string]string) {
		for k, v := range from {
			if *into == nil {
				*into = map[string]string{}
			}
			if (*into)[k] != v {
				(*into)[k] = v
				c.labelsOrAnnotationsNew = true
			}
		}
	}
	merge(&c.labels, tmpl.Labels)
	merge(&c.annotations, tmpl.Annotations)
	slices.Sort(c.added)
	slices.Sort(c.removed)
	slices.Sort(c.kept)
	return c
}

// changes reports whether the controller's write changes the live ResourceQuota.
func (c quotaChange) changes() bool {
	return len(c.added)+len(c.removed) > 0 || c.labelsOrAnnotationsNew
}

// description says what the controller writes, for a prediction.
func (c quotaChange) description(created bool) string {
	limits := make([]string, 0, len(c.hard))
	for _, k := range slices.Sorted(maps.Keys(c.hard)) {
		limits = append(limits, k+"="+c.hard[k])
	}
	if created {
		return fmt.Sprintf("creates the ResourceQuota from its configuration's template (controllers.project.quotas): %s", strings.Join(limits, ", "))
	}
	var parts []string
	if len(c.added) > 0 {
		parts = append(parts, "adds "+strings.Join(c.added, ", "))
	}
	if len(c.removed) > 0 {
		parts = append(parts, "removes "+strings.Join(c.removed, ", ")+", which the template does not list")
	}
	if c.labelsOrAnnotationsNew {
		parts = append(parts, "merges the template's labels and annotations")
	}
	what := strings.Join(parts, "; ")
	if len(c.kept) > 0 {
		what += fmt.Sprintf(" (keeps the live values of %s)", strings.Join(c.kept, ", "))
	}
	return "updates the ResourceQuota from its configuration's template (controllers.project.quotas): " + what
}
