package project

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/inventory"
)

// ResourceQuotaName is the name of the ResourceQuota the Project controller maintains in the
// project namespace (Gardener's "Gardener Controller Manager" docs/concepts/controller-manager.md).
const ResourceQuotaName = "gardener"

// ResourceQuota is the template of the project namespace's default ResourceQuota, as the Project
// controller's controllers.project.quotas[].config holds it (Gardener's
// docs/concepts/controller-manager.md).
type ResourceQuota struct {
	Hard        map[string]string `json:"hard"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// quotaOutcome is the ResourceQuota to apply and what the plan should say about it.
type quotaOutcome struct {
	object *unstructured.Unstructured
	notice string
}

// resourceQuota renders the ResourceQuota gardener from the template by the Project
// controller's rules (Gardener's docs/concepts/controller-manager.md): a new one takes the
// template; on an existing one only the limits it does not have yet are set, so that limits raised
// by hand stay. Labels and annotations are merged with those already there, as a server-side apply
// does anyway. Limits the template does not list are removed from the object: those this landscape
// set go with the next apply; limits another field manager (a person with kubectl) added stay and
// are named in a notice, since an apply can only give up fields it owns.
func resourceQuota(ns string, tmpl *ResourceQuota, live *unstructured.Unstructured) quotaOutcome {
	hard := map[string]any{}
	var liveHard map[string]string
	if live != nil {
		liveHard, _, _ = unstructured.NestedStringMap(live.Object, "spec", "hard")
	}
	for k, v := range tmpl.Hard {
		if have, ok := liveHard[k]; ok {
			hard[k] = have
		} else {
			hard[k] = v
		}
	}
	ours := ownedHardLimits(live, inventory.FieldManager)
	var foreign []string
	for k := range liveHard {
		if _, ok := tmpl.Hard[k]; !ok && !ours[k] {
			foreign = append(foreign, k)
		}
	}
	slices.Sort(foreign)
	u := kube.Custom("v1", "ResourceQuota", ns, ResourceQuotaName, tmpl.Labels, map[string]any{"spec": map[string]any{"hard": hard}})
	if len(tmpl.Annotations) > 0 {
		u.SetAnnotations(maps.Clone(tmpl.Annotations))
	}
	out := quotaOutcome{object: u}
	if len(foreign) > 0 {
		out.notice = fmt.Sprintf("ResourceQuota %s/%s has limits the template does not list, set by someone else: %s; Gardener's Project controller removes them, gardener cannot (remove them with kubectl edit)",
			ns, ResourceQuotaName, strings.Join(foreign, ", "))
	}
	return out
}

// ownedHardLimits returns, from a live object's managed fields, the spec.hard limits the field
// manager manager owns.
func ownedHardLimits(live *unstructured.Unstructured, manager string) map[string]bool {
	owned := map[string]bool{}
	if live == nil {
		return owned
	}
	for _, mf := range live.GetManagedFields() {
		if mf.Manager != manager || mf.FieldsV1 == nil {
			continue
		}
		var fields map[string]any
		if err := json.Unmarshal(mf.FieldsV1.Raw, &fields); err != nil {
			continue
		}
		hard, _, _ := unstructured.NestedMap(fields, "f:spec", "f:hard")
		for k := range hard {
			if name, ok := strings.CutPrefix(k, "f:"); ok {
				owned[name] = true
			}
		}
	}
	return owned
}
