package rendering

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/engine/secrets"
)

// Rendered is what rendering produced for one instance.
type Rendered struct {
	Address config.InstanceAddress
	Type    string
	Objects []render.Object
	// Deferred names the configuration paths known only after apply that keep the instance
	// from being rendered now; empty when it was rendered.
	Deferred []string
	// NoRenderer is set for types the catalog declares but cannot render yet.
	NoRenderer bool
	// Secrets are the sensitive strings of the configuration.
	Secrets []string
	// Generated says what the generator step did for a generated_secret ("reused: ...").
	Generated string
	// Warnings are what a reviewer of the plan must know about the rendering: key material
	// found in a generated Secret's place that is not the landscape's own and is not used
	// (secrets.Result.Foreign).
	Warnings []string
	// Parent is the composite instance (garden, seed, shoot) this part belongs to; empty for
	// instances declared in the landscape.
	Parent config.InstanceAddress
	// Parts are a composite instance's parts, in the order they were rendered.
	Parts []config.InstanceAddress
	// DependsOn are the sibling parts a part is applied after.
	DependsOn []config.InstanceAddress
	// Detached parts are not waited for by their composite (render.Component.Detached).
	Detached bool
	// Window holds a part's changes back until its maintenance window
	// (render.Component.Window).
	Window *render.MaintenanceWindow
	// DeletionDependsOn, when not nil, are the sibling parts a part is deleted before once its
	// composite is removed (render.Component.DeletionDependsOn), instead of DependsOn.
	DeletionDependsOn []config.InstanceAddress
	// Note says why a part renders as it does now (render.Component.Note).
	Note string
	// Await is set for a part whose objects follow an object another controller creates
	// (render.Component.Await): Deferred is set while it does not exist, and apply renders the
	// part then.
	Await *render.Await
	// StatusReports are the statuses the engine reports for objects other controllers own
	// (render.Component.StatusReports, render.Awaited.StatusReports).
	StatusReports []render.StatusReport
	// Revisit is when the instance's rendering changes by time alone (render.Output.Revisit).
	Revisit time.Time
	// Notices are the instance's notices for the plan (render.Output.Notices).
	Notices []string
	// Conditions are the instance's derived conditions (render.Output.Conditions).
	Conditions []render.Condition
	// Predictions are what Gardener's controllers will do about the instance's objects
	// (render.Output.Predictions).
	Predictions []render.Prediction
	// Reports are the status the engine keeps for the instance's Gardener objects
	// (render.Output.Reports).
	Reports []render.Report
	// HandedOver are objects the instance applied before that a Gardener controller owns now
	// (render.Output.HandedOver): pruning releases them instead of deleting them.
	HandedOver []render.Handover
	// Requested are the deletions of parts their objects' owner asked for
	// (render.Output.Requested).
	Requested []render.RequestedDeletion
	// Retired is set when the instance's lifetime ended (render.Output.Lifetime): none of its
	// parts is rendered, so that the plan deletes them.
	Retired *Retirement
}

// Renderer renders instances during evaluation: it is the config.Hooks.Instance of a plan.
type Renderer struct {
	Registry  render.Registry
	Landscape string
	Dir       string
	// Paths reads the files configurations name, under the operator's policy; the hooks take
	// it from the parsed landscape.
	Paths *landscapefs.Dir
	// Rendered collects the results by instance address.
	Rendered map[config.InstanceAddress]*Rendered
	// addresses are the keys of Rendered, sorted (sortedAddresses).
	addresses []config.InstanceAddress
	// Lookup reads a live Secret for generator steps; nil generates without reusing.
	Lookup func(cluster cty.Value, namespace, name string) (*unstructured.Unstructured, error)
	// Provenance says what the landscape knows about a generated Secret of a cluster block, by
	// which the generator step tells the landscape's own key material from foreign material
	// (secrets.Provenance); nil means a plan without state.
	Provenance func(cluster, namespace, name string) (secrets.Provenance, error)
	// Get reads a live object (nil when it does not exist) for Secret copies whose source the
	// landscape does not render; nil finds only rendered sources.
	Get func(cluster cty.Value, gvr k8sschema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error)
	// List reads the live objects of a resource for render functions (render.Input.List); nil
	// lists nothing.
	List func(cluster cty.Value, gvr k8sschema.GroupVersionResource, namespace, labelSelector string) ([]unstructured.Unstructured, error)
	// Now and Rotate steer generated secrets (renewal, rotation on request).
	Now    time.Time
	Rotate map[string]bool
	// ObservedAt is when the live objects were read, when a plan is made for a later time Now
	// (render.Input.ObservedAt); zero means Now.
	ObservedAt time.Time
	// Placeholders records generated secrets without generating them, for uses that make no
	// plan (the graph): their material reads as a placeholder.
	Placeholders bool
	// DeferSecrets plans generated secrets without generating new material (secrets.Defer), for
	// plans that are not made against the live clusters and so are never applied as they are
	// (`--offline`, `--observed`): existing material is reused as always, new material reads as
	// secrets.DeferredValue, and the plan stays the same from run to run.
	DeferSecrets bool
	// Retired, when set, returns the state's record of an instance whose lifetime ended in an
	// earlier apply (nil when there is none); it is asked only for instances with a lifetime.
	Retired func(addr config.InstanceAddress) (*Retirement, error)
	// generated holds the material of generated secrets by "cluster/namespace/name", for the
	// certificates they sign.
	generated map[string]*secrets.Material
	// generatedByName is the first key of generated in sorted order by "namespace/name", for
	// markers that name no cluster (recordGenerated).
	generatedByName map[string]string
	// live caches the objects render.LiveValue markers refer to, by cluster and identity.
	live map[string]*unstructured.Unstructured
	// lists caches the lists render functions read, by render.ListRef.Key.
	lists map[string][]unstructured.Unstructured
	// listed are the lists render functions read, by render.ListRef.Key (Listed).
	listed map[string]render.ListRef
}

// NewRenderer returns a renderer for the landscape in dir; it learns the landscape's name when
// the landscape is parsed.
func NewRenderer(reg render.Registry, dir string) *Renderer {
	return &Renderer{Registry: reg, Dir: dir, Rendered: map[config.InstanceAddress]*Rendered{}}
}

// Hooks returns the evaluation hooks that render each instance.
func (r *Renderer) Hooks() config.Hooks {
	return config.Hooks{
		Parsed:   func(l *config.Landscape) { r.Landscape, r.Paths = l.Name, l.Paths },
		Instance: r.instance,
		Now:      r.Now,
	}
}

func (r *Renderer) instance(inst *config.Instance) (cty.Value, hcl.Diagnostics) {
	typ := inst.Block.Type
	if inst.Block.Kind != schema.KindComponent {
		typ = string(inst.Block.Kind)
	}
	rd := &Rendered{Address: inst.Addr, Type: typ}
	r.setRendered(inst.Addr, rd)
	fn, ok := r.Registry[typ]
	if !ok && typ != GeneratedSecretType {
		// Not an error: the plan lists the instance with a warning and plans nothing for it.
		rd.NoRenderer = true
		return cty.NilVal, nil
	}
	prep := prepare(inst.Config, config.SensitiveMark)
	rd.Secrets = prep.Secrets
	if len(prep.Deferred) > 0 {
		for _, p := range prep.Deferred {
			rd.Deferred = append(rd.Deferred, pathString(p))
		}
		sort.Strings(rd.Deferred)
		return cty.NilVal, nil
	}
	if typ == GeneratedSecretType {
		return r.generate(inst, rd, prep) // the engine's own step: it reads the live Secret
	}
	clusters := clusterValues(inst)
	in := render.Input{
		Landscape: r.Landscape, Address: string(inst.Addr), Name: inst.Name, Dir: r.Dir, Paths: r.Paths, Config: prep.Config,
		Now: r.Now, ObservedAt: r.ObservedAt, Observe: r.observer(clusters), List: r.lister(clusters, true),
	}
	out, err := fn(in)
	if errors.Is(err, render.ErrDeferred) {
		rd.Deferred = []string{err.Error()}
		return cty.NilVal, nil
	}
	var sensitiveOutputs map[string]bool
	if inst.Block.Schema != nil {
		prep.Marked = traceable(prep.Marked, inst.Block.Schema.Body.Attributes)
	}
	if err == nil && len(prep.Marked) > 0 {
		// What the rendering made of the sensitive values is found by rendering it again with
		// others (trace.go); the second rendering's lists are not the landscape's to watch.
		in.List = r.lister(clusters, false)
		t := trace(fn, in, prep, out)
		t.apply(out)
		sensitiveOutputs = t.outputs
		for _, s := range t.derived {
			rd.Secrets = appendNew(rd.Secrets, encodings(s)...)
		}
		if t.untraced != nil {
			out.Notices = append(out.Notices, fmt.Sprintf("%s: every value of its objects is hidden, since what it makes of its sensitive values could not be traced (rendering it with other values failed: %s)",
				inst.Addr, render.NewRedactor(rd.Secrets).Redact(t.untraced.Error())))
		}
	}
	// rd.Secrets grows with the secrets of generated parts, which errors must not show either.
	fail := func(err error) (cty.Value, hcl.Diagnostics) {
		return cty.NilVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Component cannot be rendered",
			Detail:   fmt.Sprintf("Rendering %s failed: %s.", inst.Addr, render.NewRedactor(rd.Secrets).Redact(err.Error())),
			Subject:  inst.Block.DeclRange.Ptr(),
		}}
	}
	if err != nil {
		return fail(err)
	}
	if out.Lifetime != nil {
		if rd.Retired, err = r.retirement(inst.Addr, out.Lifetime); err != nil {
			return fail(err)
		}
		if rd.Retired != nil {
			// Nothing of the instance is rendered; what it applied before is deleted. Outputs
			// that only its parts' material resolves are known only after apply.
			out.Components, out.Objects, out.Revisit = nil, nil, time.Time{}
			deleted := "what it applied is deleted"
			if by := rd.Retired.EndedBy; by != "" {
				deleted = "what it applied is " + by + "'s to delete and is released to it"
			}
			out.Notices = []string{fmt.Sprintf("%s: its lifetime ended at %s (%s): %s, and it is not created again while its block stays; "+
				"remove the block, or run gardener state rm DIR %s to create it anew", inst.Addr, rd.Retired.Ended, rd.Retired.Reason, deleted, inst.Addr)}
			out.Outputs = r.resolveOutputs(out.Outputs)
		}
	}
	if len(out.Components) > 0 {
		if err := r.expand(inst, rd, out.Components); err != nil {
			return fail(err)
		}
		out.Outputs = r.resolveOutputs(out.Outputs)
	}
	rd.Revisit, rd.Notices, rd.Conditions, rd.Predictions, rd.Reports, rd.HandedOver = out.Revisit, out.Notices, out.Conditions, out.Predictions, out.Reports, out.HandedOver
	rd.Requested = out.Requested
	if out.Outputs, err = r.resolveLiveOutputs(out.Outputs, clusters); err != nil {
		return fail(err)
	}
	if out.Objects, err = r.resolveLive(out.Objects, clusters); err != nil {
		return fail(err)
	}
	if d := unknownIdentity(out.Objects); d != "" {
		rd.Deferred = []string{d}
		return instanceValue(inst, out.Outputs, sensitiveOutputs), nil
	}
	rd.Objects = out.Objects
	return instanceValue(inst, out.Outputs, sensitiveOutputs), nil
}

// retirement decides whether an instance with a lifetime is retired: an earlier apply began
// deleting it (the state's record, which keeps the end it recorded), or its lifetime ended by the
// plan's time. It returns nil for an instance that lives on.
func (r *Renderer) retirement(addr config.InstanceAddress, l *render.Lifetime) (*Retirement, error) {
	if r.Retired != nil {
		rec, err := r.Retired(addr)
		if err != nil {
			return nil, fmt.Errorf("read the state's record of ended lifetimes: %w", err)
		}
		if rec != nil {
			return rec, nil
		}
	}
	if l.Ends.IsZero() || l.Ends.After(r.Now) {
		return nil, nil
	}
	return &Retirement{Address: string(addr), Ended: l.Ends.UTC().Format(time.RFC3339), Reason: l.Reason, EndedBy: l.EndedBy}, nil
}

// observer reads live objects for a render function (render.Input.Observe) through liveLookup,
// so that an object many instances read (the CloudProfile of every shoot) is read once per plan;
// each caller gets its own copy, which it may keep or change.
func (r *Renderer) observer(clusters map[string]cty.Value) func(render.LiveRef) (*unstructured.Unstructured, error) {
	lookup := r.liveLookup(clusters)
	return func(ref render.LiveRef) (*unstructured.Unstructured, error) {
		u, err := lookup(ref)
		if u != nil {
			u = u.DeepCopy()
		}
		return u, err
	}
}

// lister reads live lists for a render function (render.Input.List), each list once per plan
// (every extension lists the same Shoots); each caller gets its own copies. With record, the
// list is one the rendering depends on (Listed).
func (r *Renderer) lister(clusters map[string]cty.Value, record bool) func(render.ListRef) ([]unstructured.Unstructured, error) {
	return func(ref render.ListRef) ([]unstructured.Unstructured, error) {
		items, ok := r.lists[ref.Key()]
		if !ok {
			if r.List == nil {
				return nil, nil
			}
			value, known := clusters[ref.Cluster]
			if !known {
				return nil, fmt.Errorf("cluster %q is no cluster block of the landscape", ref.Cluster)
			}
			var err error
			if items, err = r.List(value, ref.GVR(), ref.Namespace, ref.LabelSelector); err != nil {
				return nil, err
			}
			if r.lists == nil {
				r.lists = map[string][]unstructured.Unstructured{}
			}
			r.lists[ref.Key()] = items
		}
		if record {
			if r.listed == nil {
				r.listed = map[string]render.ListRef{}
			}
			r.listed[ref.Key()] = ref
		}
		out := make([]unstructured.Unstructured, len(items))
		for i := range items {
			out[i] = *items[i].DeepCopy()
		}
		return out, nil
	}
}

// Listed are the lists render functions read, sorted by key: what a rendering depends on
// besides its configuration and the objects it observes (the Shoots on a seed), which the
// daemon watches to render again when they change.
func (r *Renderer) Listed() []render.ListRef {
	out := make([]render.ListRef, 0, len(r.listed))
	for _, k := range slices.Sorted(maps.Keys(r.listed)) {
		out = append(out, r.listed[k])
	}
	return out
}

// unknownIdentity names the first object whose identity is not known yet, which can then not
// be observed or diffed; empty when all are known.
func unknownIdentity(objects []render.Object) string {
	for i, o := range objects {
		u := o.Object
		for _, field := range []string{u.GetAPIVersion(), u.GetKind(), u.GetName(), u.GetNamespace(), o.DefaultNamespace, o.Cluster} {
			if render.Unknown(field) {
				return fmt.Sprintf("the identity of object %d", i+1)
			}
		}
	}
	return ""
}

// instanceValue is what references to an instance see: the outputs rendering computed, unknown
// for the others, the name always known. Outputs the schema declares sensitive, and those that
// depend on the instance's sensitive values (sensitive), are marked sensitive.
func instanceValue(inst *config.Instance, outputs map[string]cty.Value, sensitive map[string]bool) cty.Value {
	if len(inst.Block.Schema.Outputs) == 0 {
		return inst.Value
	}
	attrs := inst.Value.AsValueMap()
	for _, o := range inst.Block.Schema.Outputs {
		v, ok := outputs[o.Name]
		if !ok || v == cty.NilVal {
			continue
		}
		conv, err := convertOutput(v, o.Type)
		if err != nil {
			// A render function returning the wrong type is a bug of its component; the value
			// stays unknown, which is safe.
			continue
		}
		if o.Sensitive || sensitive[o.Name] {
			conv = conv.Mark(config.SensitiveMark)
		}
		attrs[o.Name] = conv
	}
	return cty.ObjectVal(attrs)
}

func convertOutput(v cty.Value, ty cty.Type) (cty.Value, error) {
	conv, err := convert.Convert(v, ty)
	if err != nil {
		return cty.NilVal, fmt.Errorf("output of type %s where %s was declared: %w", v.Type().FriendlyName(), ty.FriendlyName(), err)
	}
	return conv, nil
}

// pathString renders a cty path as ".a.b[0]".
func pathString(p cty.Path) string {
	var b strings.Builder
	for _, s := range p {
		switch s := s.(type) {
		case cty.GetAttrStep:
			b.WriteString("." + s.Name)
		case cty.IndexStep:
			if s.Key.Type() == cty.String {
				fmt.Fprintf(&b, "[%q]", s.Key.AsString())
			} else {
				fmt.Fprintf(&b, "[%s]", s.Key.AsBigFloat().Text('f', -1))
			}
		}
	}
	return b.String()
}
