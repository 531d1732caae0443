package garden

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/components/seed"
	"github.com/declarative-gardener/gardener/components/shoot"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/render"
)

// orphanReports report the Shoots nobody serves: those assigned (by their user, since
// gardener-scheduler picks only seeds whose gardenlet is ready) to a Seed that no engine manages
// (it carries no landscape label, which a seed block's Seed has) and whose gardenlet is not ready
// (its GardenletReady condition, which gardenlet keeps True and gardener-controller-manager turns
// Unknown when its heartbeat stops, Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md, is not True), and whose status nobody but the engine ever
// wrote (a Shoot a gardenlet reconciled before is that gardenlet's, also while it is down). Such a
// Shoot gets lastOperation Error with the reason, as an unserved Shoot would otherwise show
// nowhere; once its user deletes it, the engine ends the deletion of the Shoot it reported, which
// has no control plane to delete. A gardenlet that comes up takes over: the Seed's GardenletReady
// turns True and the engine reports no more.
func orphanReports(in render.Input, virtual string) ([]render.Report, error) {
	list := func(resource string) ([]unstructured.Unstructured, error) {
		items, err := in.Listed(render.ListRef{Cluster: virtual, Group: "core.gardener.cloud", Version: "v1beta1", Resource: resource})
		if err != nil {
			return nil, fmt.Errorf("list the %s: %w", resource, err)
		}
		return items, nil
	}
	seeds, err := list("seeds")
	if err != nil || len(seeds) == 0 {
		return nil, err
	}
	served := map[string]bool{}
	for _, s := range seeds {
		_, byEngine := s.GetLabels()[inventory.LandscapeLabel]
		served[s.GetName()] = byEngine || gardenletReady(&s)
	}
	shoots, err := list("shoots")
	if err != nil {
		return nil, err
	}
	var out []render.Report
	for _, s := range shoots {
		seedName, _, _ := unstructured.NestedString(s.Object, "spec", "seedName")
		if seedName == "" || served[seedName] {
			continue
		}
		if _, known := served[seedName]; !known {
			continue // gardener-apiserver admits no Shoot on a Seed that does not exist
		}
		if statusByOthers(&s) {
			continue // a gardenlet reconciled it (and may be down for a while): its Shoot, not the engine's
		}
		r := render.Report{
			Cluster: virtual, APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot", Namespace: s.GetNamespace(), Name: s.GetName(),
			Operation: shoot.Operation,
		}
		if s.GetDeletionTimestamp() != nil {
			r.Finalize = true
		} else {
			r.Error = fmt.Sprintf("seed %s is managed neither by the engine nor by a gardenlet that is ready, so nothing deploys the Shoot's control plane", seedName)
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b render.Report) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return out, nil
}

// statusByOthers reports whether anyone but the engine's report writer wrote the Shoot's status:
// a gardenlet that served it once keeps it, and its finalizer, until its delete flow is done.
func statusByOthers(s *unstructured.Unstructured) bool {
	for _, m := range s.GetManagedFields() {
		if m.Subresource == "status" && m.Manager != inventory.ReportFieldManager {
			return true
		}
	}
	return false
}

// gardenletReady reports whether the Seed's GardenletReady condition is True.
func gardenletReady(s *unstructured.Unstructured) bool {
	c, ok := gardenapi.LiveCondition(s, seed.ConditionGardenletReady)
	return ok && c.Status == "True"
}
