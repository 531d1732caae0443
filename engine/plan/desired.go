package plan

import (
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
	gschema "github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/engine/secrets"
)

// Desired is a rendered object the plan wants in a cluster, stamped with its inventory label.
type Desired struct {
	Cluster   string
	Component config.InstanceAddress
	Resource  observe.Resource
	Object    *unstructured.Unstructured
	// Consume are the live object's annotations this plan carries out and apply removes
	// (render.Object.Consume).
	Consume map[string]string
	// Supersedes matches the names of the earlier versions this object replaces
	// (render.Object.Supersedes).
	Supersedes *regexp.Regexp
	// Yield are the fields apply never takes over from another field manager
	// (render.Object.Yield).
	Yield []string
	// Sensitive marks what of the object depends on sensitive values (render.Object.Sensitive):
	// plans, saved plans, the configuration hash and messages hide it.
	Sensitive *render.Sensitivity
	// Import is the ID of the import block that adopts the live object into the landscape
	// (Options.Imports), set by the comparison when the plan imports it: apply then takes over
	// the fields other field managers own, as the import block says it may.
	Import string
	// shown is the object's reference as plans show it (ObjectChange.Shown).
	shown object.Ref
	// redactor is the plan's (Result.Redactor), for RedactError.
	redactor *render.Redactor
}

// Shown is the object's reference as plans and messages show it: a name or namespace that
// depends on a sensitive value hidden.
func (d *Desired) Shown() object.Ref {
	if d.shown == (object.Ref{}) {
		return object.RefOf(d.Object)
	}
	return d.shown
}

// addComponents adds a component to the plan for every instance of opts.Order that was
// rendered, in graph order, with a note where it needs one, and the instances' secrets,
// retirements and notices; it returns the components by address.
func addComponents(opts Options, res *Result) map[string]*Component {
	components := map[string]*Component{}
	for _, addr := range opts.Order {
		rd := opts.Rendered[addr]
		if rd == nil {
			continue
		}
		res.Redactor.Add(rd.Secrets...)
		c := &Component{Address: string(addr), Type: rd.Type, Objects: []*ObjectChange{}}
		for _, dep := range opts.DependsOn[addr] {
			c.DependsOn = append(c.DependsOn, string(dep))
		}
		sort.Strings(c.DependsOn)
		switch {
		case rd.NoRenderer:
			c.Note = unrenderedNote(rd.Type)
			res.Plan.Warnings = append(res.Plan.Warnings, fmt.Sprintf("%s is not planned: %s", addr, c.Note))
		case rd.Generated != "" && !strings.HasPrefix(rd.Generated, string(secrets.Reused)):
			c.Note = generatedNote(rd.Generated)
		case len(rd.Deferred) > 0 && !opts.Destroy && rd.Await != nil:
			c.Action = Read
			c.Note = awaitingNote(rd.Await.For)
		case len(rd.Deferred) > 0 && !opts.Destroy:
			c.Action = Read
			c.Note = deferredNote(rd.Deferred)
		case rd.Retired != nil:
			composite := rd.Type == string(gschema.KindGarden) || rd.Type == string(gschema.KindSeed) || rd.Type == string(gschema.KindShoot)
			c.Note = retiredNote(rd.Retired.Ended, composite)
			res.Plan.Retired = append(res.Plan.Retired, Retirement(*rd.Retired))
		case rd.Note != "":
			c.Note = textNote(rd.Note)
		}
		res.Plan.Notices = append(res.Plan.Notices, rd.Notices...)
		res.Plan.Warnings = append(res.Plan.Warnings, rd.Warnings...)
		for _, pr := range rd.Predictions {
			res.Plan.Predictions = append(res.Plan.Predictions, predictionOf(string(addr), pr))
		}
		components[string(addr)] = c
		res.Plan.Components = append(res.Plan.Components, c)
	}
	return components
}

// desiredObjects collects by cluster the objects the instances of opts.Order rendered, their
// metadata copied (metadataCopy), with their default namespace set (cleared again for cluster-scoped kinds). A destroy plan
// wants none of them; it collects their kinds instead, which it lists to find every object of
// them that it owns.
func desiredObjects(opts Options) (byCluster map[string][]*Desired, renderedKinds map[string][]schema.GroupKind, err error) {
	byCluster = map[string][]*Desired{}
	renderedKinds = map[string][]schema.GroupKind{}
	for _, addr := range opts.Order {
		rd := opts.Rendered[addr]
		if rd == nil || len(rd.Deferred) > 0 {
			continue
		}
		for _, o := range rd.Objects {
			if _, ok := opts.Clusters[o.Cluster]; !ok {
				return nil, nil, fmt.Errorf("component %s renders %s for cluster %q, which the landscape does not declare", addr, o.Object.GetName(), o.Cluster)
			}
			if opts.Destroy {
				renderedKinds[o.Cluster] = append(renderedKinds[o.Cluster], o.Object.GroupVersionKind().GroupKind())
				continue
			}
			obj := metadataCopy(o.Object)
			if o.DefaultNamespace != "" && obj.GetNamespace() == "" {
				obj.SetNamespace(o.DefaultNamespace) // cleared by resolveDesired for cluster-scoped kinds
			}
			byCluster[o.Cluster] = append(byCluster[o.Cluster], &Desired{Cluster: o.Cluster, Component: addr, Object: obj, Consume: o.Consume, Supersedes: o.Supersedes, Yield: o.Yield, Sensitive: o.Sensitive})
		}
	}
	return byCluster, renderedKinds, nil
}

// metadataCopy copies what planning changes of a rendered object, its metadata map, and shares
// the rest with the rendering: spec, data and the like are nearly all of an object's size, and
// nothing changes them in place (apply changes copies, live values are resolved copy-on-write).
// The metadata is copied one level deep: planning sets the namespace in the copy and gives the
// labels and annotations new maps (stamping, the sensitive identity), never changing the
// rendering's maps in place. A full plan holds every object at once; copying each whole held the
// landscape twice, and copies of the labels and annotations, which stamping replaces, were held
// for every object of the landscape until its cluster was stamped.
func metadataCopy(u *unstructured.Unstructured) *unstructured.Unstructured {
	out := make(map[string]any, len(u.Object))
	maps.Copy(out, u.Object)
	if md, ok := u.Object["metadata"].(map[string]any); ok {
		out["metadata"] = maps.Clone(md)
	}
	return &unstructured.Unstructured{Object: out}
}

// desiredSet is one cluster's desired objects once resolved.
type desiredSet struct {
	byRef map[object.Ref]*Desired
	// refs are the objects' references in the order they were rendered.
	refs []object.Ref
	// kinds are the kinds of the objects.
	kinds map[schema.GroupKind]bool
}

// resolveDesired gives each desired object of a cluster its resource (as the cluster serves it,
// or as a CustomResourceDefinition among them defines it), a namespace only if its kind is
// namespaced, and the landscape's stamp, and adds it to res.Desired. An object of a kind
// nothing serves, a namespaced one without a namespace and an object rendered twice fail the
// plan.
func resolveDesired(opts Options, name string, desired []*Desired, served, pending map[schema.GroupKind]observe.Resource, res *Result) (desiredSet, error) {
	set := desiredSet{byRef: map[object.Ref]*Desired{}, kinds: map[schema.GroupKind]bool{}}
	for _, d := range desired {
		gvk := d.Object.GroupVersionKind()
		gk := gvk.GroupKind()
		r, ok := served[gk]
		if !ok {
			p, isPending := pending[gk]
			if !isPending {
				return set, fmt.Errorf("cluster %s does not serve %s (used by %s %s) and no component of the landscape defines it", name, object.GroupKindString(gk), d.Component, d.Object.GetName())
			}
			r = p
		}
		d.Resource = r
		if !r.Namespaced {
			d.Object.SetNamespace("")
		} else if d.Object.GetNamespace() == "" {
			return set, fmt.Errorf("component %s renders %s %s without a namespace", d.Component, object.GroupKindString(gk), d.Object.GetName())
		}
		ref := object.RefOf(d.Object)
		d.redactor = res.Redactor
		d.shown = newMarks(d, res.Redactor).shownRef(ref)
		if which := SensitiveIdentity(ref, d.shown); which != "" {
			// Messages must not quote the name either, and a later plan that deletes the object
			// must hide it without knowing the value (hiddenIdentity).
			hideName(res.Redactor, ref, d.shown)
			annotations := d.Object.GetAnnotations()
			if annotations == nil {
				annotations = map[string]string{}
			}
			annotations[SensitiveIdentityAnnotation] = which
			d.Object.SetAnnotations(annotations)
		}
		if err := res.stamp(d, opts.Landscape); err != nil {
			return set, err
		}
		if other, dup := set.byRef[ref]; dup {
			return set, fmt.Errorf("%s in cluster %s is rendered twice, by %s and %s", ref, name, other.Component, d.Component)
		}
		set.byRef[ref] = d
		set.refs = append(set.refs, ref)
		set.kinds[gk] = true
		res.Desired = append(res.Desired, d)
	}
	return set, nil
}

// stamp labels and annotates a desired object as the landscape's, with its configuration hash
// computed without secrets, and labels it with the landscape's lineage where the plan knows it.
func (r *Result) stamp(d *Desired, landscape string) error {
	redact := func(obj map[string]any) {
		redactInPlace(obj, r.Redactor, d.Sensitive)
		// When a generated secret was issued is as random as its value: leaving it out keeps a
		// saved plan that generates one from going stale on re-planning.
		if md, ok := obj["metadata"].(map[string]any); ok {
			if ann, ok := md["annotations"].(map[string]any); ok {
				delete(ann, secrets.IssuedAtAnnotation)
				delete(ann, secrets.ValidUntilAnnotation)
			}
		}
	}
	if !r.hashRedacts(d, landscape) {
		redact = nil // nothing to replace: the hash needs no copy of the object
	}
	if err := inventory.Stamp(d.Object, landscape, string(d.Component), redact); err != nil {
		return fmt.Errorf("component %s: %w", d.Component, err)
	}
	if r.lineage != "" {
		inventory.SetLineage(d.Object, r.lineage)
	}
	return nil
}

// hashRedacts reports whether the hash of d, once stamped, has anything to replace: a value or
// key holding one of the landscape's secrets, a part its sensitivity marks, the annotations of
// when a generated secret was issued. Conservative: any sensitivity mark at all counts, and so
// does a secret within what stamping adds.
func (r *Result) hashRedacts(d *Desired, landscape string) bool {
	red := r.Redactor
	return d.Sensitive.Any() || issuedAt(d.Object) ||
		red.Sensitive(landscape) || red.Sensitive(string(d.Component)) ||
		red.Sensitive(inventory.LandscapeLabel) || red.Sensitive(inventory.ComponentAnnotation) ||
		wouldRedact(d.Object.Object, red, nil)
}

// issuedAt reports whether an object carries the annotations of when a generated secret was
// issued, which the hash leaves out.
func issuedAt(u *unstructured.Unstructured) bool {
	md, _ := u.Object["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	_, issued := ann[secrets.IssuedAtAnnotation]
	_, valid := ann[secrets.ValidUntilAnnotation]
	return issued || valid
}

// Restamp computes a desired object's configuration hash again after apply changed it: the
// values apply reads from live objects (render.LiveValue) belong in the hash the next plan
// compares with, or an edit of such a field would count as a change of the landscape rather
// than drift.
func (r *Result) Restamp(d *Desired) error { return r.stamp(d, r.Plan.Landscape) }

// predictionOf is the plan's form of a prediction the instance at addr made.
func predictionOf(addr string, p render.Prediction) Prediction {
	gv, _ := schema.ParseGroupVersion(p.APIVersion)
	out := Prediction{
		Address: addr, Actor: p.Actor, Controller: p.Controller, Cluster: p.Cluster,
		Ref:    object.Ref{Group: gv.Group, Kind: p.Kind, Namespace: p.Namespace, Name: p.Name},
		Action: p.Action, Description: p.Description,
	}
	if !p.At.IsZero() {
		out.At = p.At.UTC().Format(time.RFC3339)
	}
	if !p.Until.IsZero() {
		out.Until = p.Until.UTC().Format(time.RFC3339)
	}
	return out
}
