package plan

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
)

// Every rule of pruning, one live object each: which objects of the inventory are deleted (and
// why), kept (with a warning) or skipped.
func TestPruningRules(t *testing.T) {
	const comp = "component.manifests.a"
	// The landscape's objects carry its lineage, l-1.
	live := func(t *testing.T, u *unstructured.Unstructured, component string) *unstructured.Unstructured {
		u = live(t, u, component)
		inventory.SetLineage(u, "l-1")
		return u
	}
	lineageless := func(u *unstructured.Unstructured) *unstructured.Unstructured {
		labels := u.GetLabels()
		delete(labels, inventory.LineageLabel)
		u.SetLabels(labels)
		u.SetUID("uid-1")
		return u
	}
	recordedAs := func(uid string) func(*pruning) {
		return func(p *pruning) {
			p.tracked = func(string, object.Ref) bool { return true }
			p.recorded = map[object.Ref]RecordedObject{{Kind: "ConfigMap", Namespace: "apps", Name: "old"}: {Component: comp, APIVersion: "v1", UID: uid}}
		}
	}
	crd := func(group, kind string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": "things." + group},
			"spec":     map[string]any{"group": group, "names": map[string]any{"kind": kind}},
		}}
	}
	namespace := func(name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}
	}
	unstamped := func(u *unstructured.Unstructured, drop string) *unstructured.Unstructured {
		u = live(t, u, comp)
		ann := u.GetAnnotations()
		delete(ann, drop)
		u.SetAnnotations(ann)
		return u
	}
	controlled := live(t, cm("apps", "copied", nil), comp)
	controlled.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "1", Controller: ptr(true)}})
	// A project of an earlier version rendered its namespace and RBAC, which
	// gardener-controller-manager keeps now; its component declares them handed over.
	const project = "component.project.local"
	adopted := live(t, namespace("garden-local"), project)
	adopted.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "core.gardener.cloud/v1beta1", Kind: "Project", Name: "local", UID: "2", Controller: ptr(true)}})
	clusterRole := func(name, comp string) *unstructured.Unstructured {
		return live(t, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": name}}}, comp)
	}
	// gardenlet's publications for a shoot, which the engine applies itself with the Shoot as
	// their controller: the engine's field manager owns that owner reference.
	published := live(t, cm("garden-local", "dev.ca-cluster", nil), "shoot.dev.garden_publication")
	published.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot", Name: "dev", UID: "3", Controller: ptr(true)}})
	published.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: inventory.FieldManager, Operation: metav1.ManagedFieldsOperationApply,
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:ownerReferences":{"k:{\"uid\":\"3\"}":{}}}}`)}}})
	proxy := &Desired{Component: comp, Object: cm("apps", "proxy-v2", nil), Supersedes: regexp.MustCompile(`^proxy-v\d+$`)}
	wantedObj := cm("apps", "wanted", nil)

	// base is the pruning of a plan of the whole landscape that wants wantedObj and proxy-v2 (a
	// new version of proxy-v1), whose objects live in namespace apps and are of kind Thing.
	base := func() *pruning {
		return &pruning{
			cluster: "runtime", landscape: "test", lineage: "l-1", withState: true, pruneWithoutState: true,
			wanted:     map[object.Ref]*Desired{object.RefOf(wantedObj): {Component: comp, Object: wantedObj}, object.RefOf(proxy.Object): proxy},
			versioned:  []*Desired{proxy},
			namespaces: map[string]bool{"apps": true},
			kinds:      map[schema.GroupKind]bool{{Group: "example.com", Kind: "Thing"}: true},
			elsewhere:  map[object.Ref]bool{},
			rendered: map[config.InstanceAddress]*rendering.Rendered{
				comp:                       {},
				"component.manifests.late": {Deferred: []string{".objects"}},
				"shoot.trial": {Retired: &rendering.Retirement{Address: "shoot.trial"}, Predictions: []render.Prediction{{
					Actor: "gardener-controller-manager", Controller: "shoot-quota", Cluster: "runtime",
					APIVersion: "v1", Kind: "ConfigMap", Namespace: "apps", Name: "expired", Action: "delete",
				}}},
				"project.stale": {Retired: &rendering.Retirement{Address: "project.stale"}},
				project: {HandedOver: []render.Handover{
					{Cluster: "runtime", Kind: "Namespace", Name: regexp.MustCompile(`^garden-local$`), Controller: "gardener-controller-manager"},
					{Cluster: "runtime", Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: regexp.MustCompile(`^gardener\.cloud:system:project(-member|-uam|-viewer)?:local$`), Controller: "gardener-controller-manager"},
				}},
				"component.project.idle": {Retired: &rendering.Retirement{Address: "component.project.idle", EndedBy: "gardener-controller-manager"}},
			},
			protects: func(ref object.Ref, _ string) bool { return kinds.Protected(ref) },
		}
	}
	// renamed: the component renders namespace gw--a in place of gw--zone--a.
	renamed := func(p *pruning) {
		ns := &Desired{Component: comp, Object: namespace("gw--a"), Supersedes: regexp.MustCompile(`^gw--zone--a$`)}
		p.wanted[object.RefOf(ns.Object)] = ns
		p.versioned = append(p.versioned, ns)
	}
	targeting := func(addrs ...string) func(*pruning) {
		return func(p *pruning) {
			p.inOrder = map[string]bool{}
			for _, a := range addrs {
				p.inOrder[a] = true
			}
		}
	}
	tests := []struct {
		name   string
		live   *unstructured.Unstructured // nil: listed, but gone since
		ref    *unstructured.Unstructured // the inventory's reference, when live is nil
		adjust func(*pruning)
		want   verdict
	}{
		{name: "wanted by the plan", live: live(t, cm("apps", "wanted", nil), comp), want: verdict{fate: skipped}},
		{name: "rendered by an instance outside --target", live: live(t, cm("apps", "moved", nil), comp),
			adjust: func(p *pruning) { p.elsewhere[object.Ref{Kind: "ConfigMap", Namespace: "apps", Name: "moved"}] = true }, want: verdict{fate: skipped}},
		{name: "gone since it was listed", ref: cm("apps", "gone", nil), want: verdict{fate: skipped}},
		{name: "handed over by its component", live: clusterRole("gardener.cloud:system:project-uam:local", project),
			want: verdict{fate: released, component: project, reason: Reason{Kind: ReasonReleased, Detail: "gardener-controller-manager"}}},
		{name: "handed over, although desired objects live in it", live: live(t, namespace("garden-local"), project),
			adjust: func(p *pruning) { p.namespaces["garden-local"] = true },
			want:   verdict{fate: released, component: project, reason: Reason{Kind: ReasonReleased, Detail: "gardener-controller-manager"}}},
		{name: "handed over, destroyed", live: clusterRole("gardener.cloud:system:project:local", project),
			adjust: func(p *pruning) { p.destroy = true },
			want:   verdict{fate: released, component: project, reason: Reason{Kind: ReasonReleased, Detail: "gardener-controller-manager"}}},
		{name: "handed over, of a component outside --target", live: clusterRole("gardener.cloud:system:project:local", project),
			adjust: targeting("component.manifests.b"), want: verdict{fate: skipped}},
		{name: "handed over, not recorded in the state", live: clusterRole("gardener.cloud:system:project:local", project),
			adjust: func(p *pruning) { p.tracked = func(string, object.Ref) bool { return false } },
			want:   verdict{fate: kept, warning: "ClusterRole.rbac.authorization.k8s.io gardener.cloud:system:project:local in cluster runtime carries the label declarative-gardener.io/landscape=test but the state does not record it; it is left alone"}},
		{name: "of the same component, not handed over", live: clusterRole("unrelated", project),
			want: verdict{fate: deleted, component: project, reason: Reason{Kind: ReasonRemovedFromLandscape}}},
		{name: "controlled by a Gardener object", live: adopted,
			adjust: func(p *pruning) { p.rendered[project] = &rendering.Rendered{} }, // no declaration: the owner reference alone
			want:   verdict{fate: released, component: project, reason: Reason{Kind: ReasonReleased, Detail: "Project/local"}}},
		{name: "controlled by a Gardener object through the engine's own owner reference", live: published,
			adjust: func(p *pruning) { p.tracked = func(string, object.Ref) bool { return true } },
			want:   verdict{fate: deleted, component: "shoot.dev.garden_publication", reason: Reason{Kind: ReasonRemovedFromLandscape}}},
		{name: "of an instance whose lifetime a Gardener controller ends", live: live(t, cm("garden-idle", "x", nil), "component.project.idle"),
			want: verdict{fate: released, component: "component.project.idle", reason: Reason{Kind: ReasonReleased, Detail: "gardener-controller-manager"}}},
		{name: "a Namespace desired objects live in", live: live(t, namespace("apps"), comp),
			want: verdict{fate: kept, warning: "Namespace apps in cluster runtime is no longer rendered but objects of the landscape still live in it; it is kept"}},
		{name: "a CRD of a kind desired objects are of", live: live(t, crd("example.com", "Thing"), comp),
			want: verdict{fate: kept, warning: "CustomResourceDefinition.apiextensions.k8s.io things.example.com in cluster runtime is no longer rendered but the landscape still renders objects of its kind; it is kept"}},
		{name: "without the component annotation", live: unstamped(cm("apps", "labelled", nil), inventory.ComponentAnnotation),
			want: verdict{fate: kept, warning: "ConfigMap apps/labelled in cluster runtime carries the label declarative-gardener.io/landscape=test but was not applied by gardener; it is left alone"}},
		{name: "without the configuration hash", live: unstamped(cm("apps", "labelled", nil), inventory.ConfigHashAnnotation),
			want: verdict{fate: kept, warning: "ConfigMap apps/labelled in cluster runtime carries the label declarative-gardener.io/landscape=test but was not applied by gardener; it is left alone"}},
		{name: "with a controlling owner", live: controlled,
			want: verdict{fate: kept, warning: "ConfigMap apps/copied in cluster runtime carries the label declarative-gardener.io/landscape=test but was not applied by gardener; it is left alone"}},
		{name: "not recorded in the state", live: live(t, cm("apps", "forgotten", nil), comp),
			adjust: func(p *pruning) { p.tracked = func(string, object.Ref) bool { return false } },
			want:   verdict{fate: kept, warning: "ConfigMap apps/forgotten in cluster runtime carries the label declarative-gardener.io/landscape=test but the state does not record it; it is left alone"}},
		{name: "a controller's copy of an object its component renders elsewhere, not recorded", live: live(t, cm("seed-local2", "dns", nil), comp),
			adjust: func(p *pruning) {
				p.tracked = func(string, object.Ref) bool { return false }
				p.rendered[comp] = &rendering.Rendered{Objects: []render.Object{{Cluster: "runtime", Object: cm("garden", "dns", nil)}}}
			},
			want: verdict{fate: skipped}},
		{name: "of a part whose owner asked for its deletion", live: live(t, cm("shoot--local--mine", "x", nil), "seed.local.shoot__local__mine__kube_apiserver"),
			adjust: func(p *pruning) {
				p.tracked = func(string, object.Ref) bool { return true }
				p.rendered["seed.local"] = &rendering.Rendered{Requested: []render.RequestedDeletion{{PartPrefix: "shoot__local__mine__", Why: "Shoot garden-local/mine deleted through the API"}}}
			},
			want: verdict{fate: deleted, component: "seed.local.shoot__local__mine__kube_apiserver", reason: Reason{Kind: ReasonRequested, Detail: "Shoot garden-local/mine deleted through the API"}}},
		{name: "protected, of a part whose owner asked for its deletion", live: live(t, namespace("shoot--local--mine"), "seed.local.shoot__local__mine__namespace"),
			adjust: func(p *pruning) {
				p.tracked = func(string, object.Ref) bool { return true }
				p.rendered["seed.local"] = &rendering.Rendered{Requested: []render.RequestedDeletion{{PartPrefix: "shoot__local__mine__", Why: "Shoot garden-local/mine deleted through the API"}}}
			},
			want: verdict{fate: deleted, component: "seed.local.shoot__local__mine__namespace", reason: Reason{Kind: ReasonRequested, Detail: "Shoot garden-local/mine deleted through the API"}}},
		{name: "of another Shoot's part", live: live(t, cm("shoot--local--mine2", "x", nil), "seed.local.shoot__local__mine2__kube_apiserver"),
			adjust: func(p *pruning) {
				p.tracked = func(string, object.Ref) bool { return true }
				p.rendered["seed.local"] = &rendering.Rendered{Requested: []render.RequestedDeletion{{PartPrefix: "shoot__local__mine__", Why: "Shoot garden-local/mine deleted through the API"}}}
			},
			want: verdict{fate: deleted, component: "seed.local.shoot__local__mine2__kube_apiserver", reason: Reason{Kind: ReasonRemovedFromLandscape}}},
		{name: "recorded in the state", live: live(t, cm("apps", "old", nil), comp),
			adjust: func(p *pruning) { p.tracked = func(string, object.Ref) bool { return true } },
			want:   verdict{fate: deleted, component: comp, reason: Reason{Kind: ReasonRemovedFromLandscape}}},
		{name: "of a component rendered during apply", live: live(t, cm("apps", "later", nil), "component.manifests.late"), want: verdict{fate: skipped}},
		{name: "of a component rendered during apply, destroyed", live: live(t, cm("apps", "later", nil), "component.manifests.late"),
			adjust: func(p *pruning) { p.destroy = true },
			want:   verdict{fate: deleted, component: "component.manifests.late", reason: Reason{Kind: ReasonDestroy}}},
		{name: "of a component outside --target", live: live(t, cm("apps", "old", nil), comp),
			adjust: targeting("component.manifests.b"), want: verdict{fate: skipped}},
		{name: "of a targeted component", live: live(t, cm("apps", "old", nil), comp),
			adjust: targeting(comp), want: verdict{fate: deleted, component: comp, reason: Reason{Kind: ReasonRemovedFromLandscape}}},
		{name: "of a part of a targeted composite whose lifetime ended", live: live(t, cm("apps", "cp", nil), "shoot.trial.control_plane"),
			adjust: targeting("shoot.trial"), want: verdict{fate: deleted, component: "shoot.trial.control_plane", reason: Reason{Kind: ReasonLifetimeEnded}}},
		{name: "of a part of another composite whose lifetime ended", live: live(t, cm("apps", "cp", nil), "shoot.trial.control_plane"),
			adjust: targeting("shoot.other"), want: verdict{fate: skipped}},
		{name: "of a composite whose lifetime ended, predicted to be deleted by a Gardener controller", live: live(t, cm("apps", "expired", nil), "shoot.trial.shoot"),
			want: verdict{fate: skipped}},
		{name: "predicted to be deleted by a Gardener controller, destroyed", live: live(t, cm("apps", "expired", nil), "shoot.trial.shoot"),
			adjust: func(p *pruning) { p.destroy = true }, want: verdict{fate: deleted, component: "shoot.trial.shoot", reason: Reason{Kind: ReasonDestroy}}},
		{name: "of an instance whose lifetime ended", live: live(t, cm("apps", "project", nil), "project.stale"),
			want: verdict{fate: deleted, component: "project.stale", reason: Reason{Kind: ReasonLifetimeEnded}}},
		{name: "destroyed", live: live(t, cm("apps", "old", nil), comp),
			adjust: func(p *pruning) { p.destroy = true }, want: verdict{fate: deleted, component: comp, reason: Reason{Kind: ReasonDestroy}}},
		{name: "destroyed although a new version supersedes it", live: live(t, cm("apps", "proxy-v1", nil), comp),
			adjust: func(p *pruning) { p.destroy = true }, want: verdict{fate: deleted, component: comp, reason: Reason{Kind: ReasonDestroy}}},
		{name: "superseded by a new version", live: live(t, cm("apps", "proxy-v1", nil), comp),
			want: verdict{fate: deleted, component: comp, reason: Reason{Kind: ReasonSuperseded, Detail: "proxy-v2"}}},
		{name: "a renamed namespace", live: live(t, namespace("gw--zone--a"), comp), adjust: renamed,
			want: verdict{fate: deleted, component: comp, reason: Reason{Kind: ReasonSuperseded, Detail: "gw--a"}}},
		{name: "in a renamed namespace", live: live(t, cm("gw--zone--a", "x", nil), comp), adjust: renamed,
			want: verdict{fate: deleted, component: comp, reason: Reason{Kind: ReasonSuperseded, Detail: "gw--a"}}},
		{name: "in a renamed namespace, of another component", live: live(t, cm("gw--zone--a", "x", nil), "component.manifests.b"), adjust: renamed,
			want: verdict{fate: deleted, component: "component.manifests.b", reason: Reason{Kind: ReasonRemovedFromLandscape}}},
		{name: "superseded by a new version of a sibling part", live: live(t, cm("apps", "bootstrap", nil), "shoot.dev.bootstrap_tls"),
			adjust: func(p *pruning) {
				access := &Desired{Component: "shoot.dev.grm", Object: cm("apps", "access", nil), Supersedes: regexp.MustCompile(`^bootstrap$`)}
				p.rendered["shoot.dev.bootstrap_tls"], p.rendered["shoot.dev.grm"] = &rendering.Rendered{}, &rendering.Rendered{}
				p.wanted[object.RefOf(access.Object)], p.versioned = access, append(p.versioned, access)
			},
			want: verdict{fate: deleted, component: "shoot.dev.bootstrap_tls", reason: Reason{Kind: ReasonSuperseded, Detail: "access"}}},
		{name: "matching a new version of another composite's part", live: live(t, cm("apps", "bootstrap", nil), "shoot.other.bootstrap_tls"),
			adjust: func(p *pruning) {
				access := &Desired{Component: "shoot.dev.grm", Object: cm("apps", "access", nil), Supersedes: regexp.MustCompile(`^bootstrap$`)}
				p.rendered["shoot.other.bootstrap_tls"] = &rendering.Rendered{}
				p.wanted[object.RefOf(access.Object)], p.versioned = access, append(p.versioned, access)
			},
			want: verdict{fate: deleted, component: "shoot.other.bootstrap_tls", reason: Reason{Kind: ReasonRemovedFromLandscape}}},
		{name: "matching another component's new version", live: live(t, cm("apps", "proxy-v1", nil), "component.manifests.b"),
			want: verdict{fate: deleted, component: "component.manifests.b", reason: Reason{Kind: ReasonRemovedFromLandscape}}},
		{name: "matching a new version in another namespace", live: live(t, cm("other", "proxy-v1", nil), comp),
			want: verdict{fate: deleted, component: comp, reason: Reason{Kind: ReasonRemovedFromLandscape}}},
		{name: "protected, although a new version supersedes it", live: live(t, cm("apps", "proxy-v1", nil), comp),
			adjust: func(p *pruning) { p.protects = func(object.Ref, string) bool { return true } },
			want:   verdict{fate: deleted, component: comp, reason: Reason{Kind: ReasonRemovedFromLandscape}}},
		{name: "a Namespace no desired object lives in", live: live(t, namespace("old"), comp),
			want: verdict{fate: deleted, component: comp, reason: Reason{Kind: ReasonRemovedFromLandscape}}},
		{name: "a CRD of a kind no desired object is of", live: live(t, crd("example.com", "Gone"), comp),
			want: verdict{fate: deleted, component: comp, reason: Reason{Kind: ReasonRemovedFromLandscape}}},
		{name: "removed from the landscape", live: live(t, cm("apps", "old", nil), "component.manifests.removed"),
			want: verdict{fate: deleted, component: "component.manifests.removed", reason: Reason{Kind: ReasonRemovedFromLandscape}}},
		{name: "of another lineage", live: ofLineage(live(t, cm("apps", "old", nil), comp), "l-2"),
			adjust: recordedAs("uid-1"), want: verdict{fate: alien, lineage: "l-2"}},
		{name: "of another lineage, destroyed", live: ofLineage(live(t, cm("apps", "old", nil), comp), "l-2"),
			adjust: func(p *pruning) { p.destroy = true }, want: verdict{fate: alien, lineage: "l-2"}},
		{name: "of a lineage, planned before the landscape has one", live: live(t, cm("apps", "old", nil), comp),
			adjust: func(p *pruning) { p.lineage = "" }, want: verdict{fate: alien, lineage: "l-1"}},
		{name: "without a lineage, recorded in the state under its UID", live: lineageless(live(t, cm("apps", "old", nil), comp)),
			adjust: recordedAs("uid-1"), want: verdict{fate: deleted, component: comp, reason: Reason{Kind: ReasonRemovedFromLandscape}}},
		{name: "without a lineage, recorded in the state under another UID", live: lineageless(live(t, cm("apps", "old", nil), comp)),
			adjust: recordedAs("uid-0"),
			want:   verdict{fate: kept, warning: "ConfigMap apps/old in cluster runtime carries the label declarative-gardener.io/landscape=test but no lineage, and the state does not record it under its UID; it is left alone"}},
		{name: "without a lineage, recorded as pending", live: lineageless(live(t, cm("apps", "old", nil), comp)),
			adjust: recordedAs(""),
			want:   verdict{fate: kept, warning: "ConfigMap apps/old in cluster runtime carries the label declarative-gardener.io/landscape=test but no lineage, and the state does not record it under its UID; it is left alone"}},
		{name: "without a lineage, the state records nothing, --prune-without-state", live: lineageless(live(t, cm("apps", "old", nil), comp)),
			want: verdict{fate: deleted, component: comp, reason: Reason{Kind: ReasonRemovedFromLandscape}}},
		{name: "the state records nothing", live: live(t, cm("apps", "old", nil), comp),
			adjust: func(p *pruning) { p.pruneWithoutState = false }, want: verdict{fate: held}},
		{name: "the state records nothing, destroyed", live: live(t, cm("apps", "old", nil), comp),
			adjust: func(p *pruning) { p.pruneWithoutState, p.destroy = false, true }, want: verdict{fate: held}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := base()
			if tt.adjust != nil {
				tt.adjust(p)
			}
			ref := tt.ref
			if ref == nil {
				ref = tt.live
			}
			assert.Equal(t, tt.want, p.judge(object.RefOf(ref), tt.live))
		})
	}
}

// ofLineage labels a live object with a lineage.
func ofLineage(u *unstructured.Unstructured, lineage string) *unstructured.Unstructured {
	inventory.SetLineage(u, lineage)
	return u
}

// What pruning holds back is counted in one warning per cluster: objects it may not delete
// without a state, and objects of other lineages, by lineage.
func TestPruningSummarisesWhatItHoldsBack(t *testing.T) {
	const comp = "component.manifests.a"
	objects := []*unstructured.Unstructured{
		live(t, cm("apps", "a", nil), comp), live(t, cm("apps", "b", nil), comp),
		ofLineage(live(t, cm("apps", "c", nil), comp), "l-2"), ofLineage(live(t, cm("apps", "d", nil), comp), "l-2"),
		ofLineage(live(t, cm("apps", "e", nil), comp), "l-3"),
	}
	obs := &observe.Observed{Objects: map[object.Ref]*unstructured.Unstructured{}}
	for _, u := range objects {
		obs.Inventory = append(obs.Inventory, object.RefOf(u))
		obs.Objects[object.RefOf(u)] = u
	}
	for _, tt := range []struct {
		name    string
		p       pruning
		want    []string
		deleted []string
	}{
		{"an empty state", pruning{withState: true}, []string{
			"the landscape's state records nothing, so nothing is deleted: 2 object(s) in cluster runtime carry the label declarative-gardener.io/landscape=test and would be deleted; plan with --prune-without-state to delete those of this landscape's lineage",
			"2 object(s) in cluster runtime carry the label declarative-gardener.io/landscape=test with lineage l-2, not this landscape, which has no state yet: another landscape of the same name owns them, or this landscape's state was lost (then continue its lineage with --adopt-lineage l-2); they are left alone",
			"1 object(s) in cluster runtime carry the label declarative-gardener.io/landscape=test with lineage l-3, not this landscape, which has no state yet: another landscape of the same name owns them, or this landscape's state was lost (then continue its lineage with --adopt-lineage l-3); they are left alone",
		}, nil},
		{"a lineage adopted, --prune-without-state", pruning{withState: true, lineage: "l-3", pruneWithoutState: true}, []string{
			"2 object(s) in cluster runtime carry the label declarative-gardener.io/landscape=test with lineage l-2, not this landscape's lineage l-3: another landscape of the same name owns them, or this landscape's state was lost (then continue its lineage with --adopt-lineage l-2); they are left alone",
		}, []string{"a", "b", "e"}}, // its own lineage, and no lineage
		{"no state at all", pruning{}, []string{
			"the landscape's state records nothing, so nothing is deleted: 2 object(s) in cluster runtime carry the label declarative-gardener.io/landscape=test and would be deleted; plan with --prune-without-state to delete those of this landscape's lineage",
			"2 object(s) in cluster runtime carry the label declarative-gardener.io/landscape=test with lineage l-2, not this plan, which has no state: another landscape of the same name owns them, or this landscape's state was lost (then continue its lineage with --adopt-lineage l-2); they are left alone",
			"1 object(s) in cluster runtime carry the label declarative-gardener.io/landscape=test with lineage l-3, not this plan, which has no state: another landscape of the same name owns them, or this landscape's state was lost (then continue its lineage with --adopt-lineage l-3); they are left alone",
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			p.cluster, p.landscape = "runtime", "test"
			p.rendered = map[config.InstanceAddress]*rendering.Rendered{comp: {}}
			p.protects = func(object.Ref, string) bool { return false }
			deletions, warnings := p.prune(obs)
			assert.Equal(t, tt.want, warnings)
			var deleted []string
			for _, d := range deletions {
				deleted = append(deleted, d.Ref.Name)
			}
			assert.Equal(t, tt.deleted, deleted)
		})
	}
}

// Removed components go in reverse dependency order, recorded in the state when they were
// applied: a removed shoot's Shoot before its kube-apiserver, the etcds and the namespace last.
func TestDeletionOrderOfRemovedComponents(t *testing.T) {
	deps := map[string][]string{
		"shoot.ops.shoot":          {"shoot.ops.kube_apiserver", "shoot.ops.etcd_main", "shoot.ops.namespace"},
		"shoot.ops.kube_apiserver": {"shoot.ops.etcd_main", "shoot.ops.namespace"},
		"shoot.ops.etcd_main":      {"shoot.ops.namespace"},
		"shoot.ops.namespace":      {"seed.local"},
	}
	for _, tt := range []struct {
		name    string
		removed []string
		deps    map[string][]string
		want    []string
	}{
		{"dependents first", []string{"shoot.ops.etcd_main", "shoot.ops.kube_apiserver", "shoot.ops.namespace", "shoot.ops.shoot"}, deps,
			[]string{"shoot.ops.shoot", "shoot.ops.kube_apiserver", "shoot.ops.etcd_main", "shoot.ops.namespace"}},
		{"without recorded dependencies: reverse address order", []string{"a", "c", "b"}, nil, []string{"c", "b", "a"}},
		{"dependencies on components that stay are ignored", []string{"shoot.ops.namespace"}, deps, []string{"shoot.ops.namespace"}},
		{"a cycle falls back to address order", []string{"a", "b"}, map[string][]string{"a": {"b"}, "b": {"a"}}, []string{"b", "a"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, deletionOrder(tt.removed, tt.deps))
		})
	}
}

// What the state records but the landscape's inventory no longer holds is forgotten, as
// released, only where a Gardener controller owns it by its component's word: a project's
// built-in roles, whose labels gardener-controller-manager removes, or what a stale project's end
// by the controller leaves; anything else stays recorded.
func TestForgettingRecordedObjectsOutsideTheInventory(t *testing.T) {
	const project = "component.project.local"
	rbac := func(kind, name string) object.Ref {
		return object.Ref{Group: "rbac.authorization.k8s.io", Kind: kind, Name: name}
	}
	base := func() *pruning {
		return &pruning{
			cluster: "virtual", wanted: map[object.Ref]*Desired{}, elsewhere: map[object.Ref]bool{},
			rendered: map[config.InstanceAddress]*rendering.Rendered{
				project:                  {HandedOver: []render.Handover{{Cluster: "virtual", Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: regexp.MustCompile(`:local$`), Controller: "gardener-controller-manager"}}},
				"component.project.idle": {Retired: &rendering.Retirement{Address: "component.project.idle", EndedBy: "gardener-controller-manager"}},
				"component.manifests.a":  {},
			},
			protects: func(object.Ref, string) bool { return false },
		}
	}
	served := &observe.Observed{Resources: map[schema.GroupKind]observe.Resource{
		{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}: {}, {Group: "core.gardener.cloud", Kind: "Project"}: {}, {Kind: "ConfigMap"}: {},
	}}
	tests := []struct {
		name   string
		ref    object.Ref
		comp   string
		adjust func(*pruning, *observe.Observed)
		want   string // the released change's reason, "" for none
	}{
		{name: "handed over, its label gone", ref: rbac("ClusterRole", "gardener.cloud:system:project:local"), comp: project, want: "released:gardener-controller-manager"},
		{name: "handed over, still in the inventory (pruning judges it)", ref: rbac("ClusterRole", "gardener.cloud:system:project:local"), comp: project,
			adjust: func(_ *pruning, o *observe.Observed) {
				o.Inventory = []object.Ref{rbac("ClusterRole", "gardener.cloud:system:project:local")}
			}},
		{name: "handed over, but wanted again", ref: rbac("ClusterRole", "gardener.cloud:system:project:local"), comp: project,
			adjust: func(p *pruning, _ *observe.Observed) {
				p.wanted[rbac("ClusterRole", "gardener.cloud:system:project:local")] = &Desired{}
			}},
		{name: "handed over, of a component outside --target", ref: rbac("ClusterRole", "gardener.cloud:system:project:local"), comp: project,
			adjust: func(p *pruning, _ *observe.Observed) { p.inOrder = map[string]bool{"component.manifests.a": true} }},
		{name: "of a kind no longer served", ref: object.Ref{Group: "example.com", Kind: "Thing", Name: "x"}, comp: "component.project.idle"},
		{name: "of a project deleted by gardener-controller-manager", ref: object.Ref{Group: "core.gardener.cloud", Kind: "Project", Name: "idle"}, comp: "component.project.idle", want: "released:gardener-controller-manager"},
		{name: "not handed over: stays recorded", ref: rbac("ClusterRole", "other"), comp: project},
		{name: "of another component: stays recorded", ref: object.Ref{Kind: "ConfigMap", Namespace: "apps", Name: "gone"}, comp: "component.manifests.a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := base()
			obs := &observe.Observed{Resources: served.Resources}
			if tt.adjust != nil {
				tt.adjust(p, obs)
			}
			got := p.forget(map[object.Ref]RecordedObject{tt.ref: {Component: tt.comp, APIVersion: "v1"}}, obs)
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			assert.Equal(t, tt.comp, got[0].component)
			assert.Equal(t, Update, got[0].Action)
			assert.Equal(t, tt.want, got[0].Reason.String())
			assert.Empty(t, got[0].Changes, "nothing left to unmark")
		})
	}
}

// BenchmarkSuccessors names the successors of the earlier versions of 10,000 versioned objects,
// ten parts of each of 1,000 shoots (a plan after a change every shoot's ManagedResources
// follow): each looks at the versioned objects of its own composite.
func BenchmarkSuccessors(b *testing.B) {
	p := &pruning{}
	var olds []struct {
		comp string
		ref  object.Ref
	}
	for s := range 1000 {
		for part := range 10 {
			comp := fmt.Sprintf(`shoot.dev["shoot-%04d"].mr_%d`, s, part)
			ns := fmt.Sprintf("shoot--dev--%04d", s)
			name := fmt.Sprintf("managedresource-%d", part)
			p.versioned = append(p.versioned, &Desired{Component: config.InstanceAddress(comp), Object: cm(ns, name+"-bbbbbbbb", nil),
				Supersedes: regexp.MustCompile("^" + name + "(-[0-9a-f]{8})?$")})
			olds = append(olds, struct {
				comp string
				ref  object.Ref
			}{comp, object.RefOf(cm(ns, name+"-aaaaaaaa", nil))})
		}
	}
	for b.Loop() {
		p.versionedBy = nil
		for _, o := range olds {
			if successor(p.versionedNear(o.comp), o.comp, o.ref) == "" {
				b.Fatal("no successor")
			}
		}
	}
}
