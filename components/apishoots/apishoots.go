// Package apishoots renders the seed block as the catalog registers it: the seed's own parts
// (components/seed) and, on a seed the engine manages, the control planes of the Shoots that
// users created through the Gardener API (dashboard, gardenctl, kubectl) and that
// gardener-scheduler or the user assigned to it. gardenlet reconciles every Shoot whose
// spec.seedName names its seed (Gardener's "gardenlet" docs/concepts/gardenlet.md); the engine
// stands in for gardenlet on the seeds it manages, so it does the same for the Shoots no shoot
// block declares. Their spec comes from the API, never from HCL: each Shoot's control plane is
// rendered from the Shoot as gardener-apiserver holds it (shoot.RenderFromAPI) into parts of the
// seed named after the Shoot's technical ID, shoot__<project>__<name>__<part>, so that plans list
// them under their seed and `--target seed.<seed>.shoot--<project>--<name>` names one of them.
//
// The package is apart from components/seed because it renders shoots, whose package needs the
// seed's.
package apishoots

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/seed"
	"github.com/declarative-gardener/gardener/components/shoot"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Type is the seed block: components/seed's schema, rendered with the Shoots on the seed.
var Type = component.Define(seed.Type.Schema, renderSeed)

// renderSeed renders the seed's own parts, then the control planes of the API's Shoots on it.
func renderSeed(in render.Input, v seed.Values) (*render.Output, error) {
	out, err := seed.Type.Render(in, v)
	if err != nil {
		return nil, err
	}
	live, err := shootsOn(in, in.Name, v.Garden.VirtualCluster)
	if err != nil || len(live) == 0 {
		return out, err
	}
	if v.ManagedBy == seed.ManagedByGardenlet {
		// A gardenlet seed's Shoots are gardenlet's: what the engine deployed for them while it
		// managed the seed is released to gardenlet, which deploys the same objects.
		engine := v
		engine.ManagedBy = seed.ManagedByEngine
		if c, err := readContext(in, in.Name, engine); err == nil {
			before := &render.Output{}
			for _, s := range live {
				addShoot(in, before, s, c)
			}
			out.HandedOver = append(out.HandedOver, render.HandOver(before.Components, "gardenlet")...)
		}
		return out, nil
	}
	own := make([]string, 0, len(out.Components))
	for _, p := range out.Components {
		own = append(own, p.Name)
	}
	for i := range out.Reports {
		if len(out.Reports[i].Parts) == 0 {
			out.Reports[i].Parts = own // the Seed's operation is about the seed's parts, not its shoots'
		}
	}
	c, err := readContext(in, in.Name, v)
	if err != nil {
		return nil, err
	}
	for _, s := range live {
		addShoot(in, out, s, c)
	}
	return out, nil
}

// Prefix is the prefix of the names of the parts a seed renders for a Shoot created through the
// API, shoot__<project>__<name>__, with the names' dashes as underscores: part names are
// identifiers of lower-case letters, digits and underscores. Gardener forbids two hyphens in a
// row in project and Shoot names (pkg/apis/core/validation at v1.120.0), so a double underscore
// separates the names unambiguously.
func Prefix(project, name string) string {
	return "shoot__" + strings.ReplaceAll(project, "-", "_") + "__" + strings.ReplaceAll(name, "-", "_") + "__"
}

// shootsOn lists the Shoots on the seed that no landscape declares: a shoot block's Shoot
// carries the landscape label of the engine that applies it, and its control plane is that
// block's. A Shoot whose deletion finished its control plane's (the engine removed its finalizer)
// is on its way out and left alone.
func shootsOn(in render.Input, seedName, virtual string) ([]unstructured.Unstructured, error) {
	items, err := in.Listed(render.ListRef{Cluster: virtual, Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"})
	if err != nil {
		return nil, fmt.Errorf("seed %s: list the Shoots: %w", seedName, err)
	}
	var out []unstructured.Unstructured
	for _, s := range items {
		if n, _, _ := unstructured.NestedString(s.Object, "spec", "seedName"); n != seedName {
			continue
		}
		if _, declared := s.GetLabels()[inventory.LandscapeLabel]; declared {
			continue
		}
		if s.GetDeletionTimestamp() != nil && !slices.Contains(s.GetFinalizers(), shootFinalizer) {
			continue
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b unstructured.Unstructured) int {
		return strings.Compare(a.GetNamespace()+"/"+a.GetName(), b.GetNamespace()+"/"+b.GetName())
	})
	return out, nil
}

// shootFinalizer is gardenlet's finalizer on the Shoots it reconciles, which the engine keeps as
// it does.
var shootFinalizer = kinds.ReportFinalizer(schema.GroupKind{Group: "core.gardener.cloud", Kind: "Shoot"})

// apiContext is what the Shoots' control planes read besides the Shoots, once per seed.
type apiContext struct {
	seed          shoot.SeedRef
	virtual       string
	internal, def *shoot.DNSDomain
	lifecycles    map[string]shoot.ExtensionLifecycle
	registered    map[string]bool // kind/type of every ControllerRegistration's resources
	projects      map[string]string
	exposureClass map[string]string // handler by ExposureClass name
	// profiles are the CloudProfiles ("<name>") and NamespacedCloudProfiles ("<namespace>/<name>")
	// as the extensions Cluster embeds them (cloudProfileObject).
	profiles map[string]map[string]any
}

// readContext reads what gardenlet reads from its seed and garden: the seed's own outputs (as a
// shoot block reads seed.<name>), the garden's domains, the ControllerRegistrations, the
// Projects and the ExposureClasses.
func readContext(in render.Input, name string, v seed.Values) (*apiContext, error) {
	c := &apiContext{virtual: v.Garden.VirtualCluster, lifecycles: map[string]shoot.ExtensionLifecycle{}, registered: map[string]bool{},
		projects: map[string]string{}, exposureClass: map[string]string{}, profiles: map[string]map[string]any{}}
	outputs := seed.Outputs(name, v)
	data, err := ctyjson.Marshal(cty.ObjectVal(outputs), cty.ObjectVal(outputs).Type())
	if err != nil {
		return nil, fmt.Errorf("seed %s: its outputs: %w", name, err)
	}
	if err := json.Unmarshal(data, &c.seed); err != nil {
		return nil, fmt.Errorf("seed %s: its outputs: %w", name, err)
	}
	list := func(group, resource, namespace, selector string) ([]unstructured.Unstructured, error) {
		items, err := in.Listed(render.ListRef{Cluster: c.virtual, Group: group, Version: versionOf(group), Resource: resource, Namespace: namespace, LabelSelector: selector})
		if err != nil {
			return nil, fmt.Errorf("seed %s: list the %s: %w", name, resource, err)
		}
		return items, nil
	}
	for role, target := range map[string]**shoot.DNSDomain{"internal-domain": &c.internal, "default-domain": &c.def} {
		secrets, err := list("", "secrets", seed.GardenNamespace, "gardener.cloud/role="+role)
		if err != nil {
			return nil, err
		}
		slices.SortFunc(secrets, func(a, b unstructured.Unstructured) int { return strings.Compare(a.GetName(), b.GetName()) })
		for _, s := range secrets {
			// Only the metadata: the provider and domain are annotations (Gardener's
			// "Configuration" docs/operations/configuration.md); the credentials stay in the
			// Secret, which the shoot's DNS record copies into its control plane.
			a := s.GetAnnotations()
			if a["dns.gardener.cloud/domain"] == "" {
				continue
			}
			*target = &shoot.DNSDomain{Domain: a["dns.gardener.cloud/domain"], ProviderType: a["dns.gardener.cloud/provider"], SecretRef: s.GetName()}
			break
		}
	}
	registrations, err := list("core.gardener.cloud", "controllerregistrations", "", "")
	if err != nil {
		return nil, err
	}
	for _, r := range registrations {
		resources, _, _ := unstructured.NestedSlice(r.Object, "spec", "resources")
		for _, res := range resources {
			m, _ := res.(map[string]any)
			kind, _ := m["kind"].(string)
			typ, _ := m["type"].(string)
			c.registered[kind+"/"+typ] = true
			if kind == "Extension" {
				c.lifecycles[typ] = lifecycle(m)
			}
		}
	}
	projects, err := list("core.gardener.cloud", "projects", "", "")
	if err != nil {
		return nil, err
	}
	for _, p := range projects {
		if ns, _, _ := unstructured.NestedString(p.Object, "spec", "namespace"); ns != "" {
			c.projects[ns] = p.GetName()
		}
	}
	classes, err := list("core.gardener.cloud", "exposureclasses", "", "")
	if err != nil {
		return nil, err
	}
	for _, e := range classes {
		handler, _, _ := unstructured.NestedString(e.Object, "handler")
		c.exposureClass[e.GetName()] = handler
	}
	for _, resource := range []string{"cloudprofiles", "namespacedcloudprofiles"} {
		profiles, err := list("core.gardener.cloud", resource, "", "")
		if err != nil {
			return nil, err
		}
		for _, p := range profiles {
			key := p.GetName()
			if p.GetNamespace() != "" {
				key = p.GetNamespace() + "/" + key
			}
			c.profiles[key] = cloudProfileObject(p)
		}
	}
	return c, nil
}

// cloudProfileObject is a live (Namespaced)CloudProfile as the extensions Cluster of a Shoot
// embeds it, as gardenlet embeds the profile it reads from the garden (pkg/extensions/cluster.go
// at Gardener v1.120.0): its kind, name and specification, without the fields the API server
// keeps (uid, resourceVersion, managed fields, status), which would rewrite every Cluster on the
// seed whenever the profile's status moves.
func cloudProfileObject(p unstructured.Unstructured) map[string]any {
	meta := map[string]any{"name": p.GetName()}
	if p.GetNamespace() != "" {
		meta["namespace"] = p.GetNamespace()
	}
	out := map[string]any{"apiVersion": p.GetAPIVersion(), "kind": p.GetKind(), "metadata": meta}
	if spec, ok := p.Object["spec"]; ok {
		out["spec"] = runtime.DeepCopyJSONValue(spec)
	}
	return out
}

// cloudProfileOf is the profile a Shoot names (spec.cloudProfile, else spec.cloudProfileName), nil
// when the garden has none of that name.
func (c *apiContext) cloudProfileOf(live *unstructured.Unstructured) map[string]any {
	kind, _, _ := unstructured.NestedString(live.Object, "spec", "cloudProfile", "kind")
	name, _, _ := unstructured.NestedString(live.Object, "spec", "cloudProfile", "name")
	if name == "" {
		name, _, _ = unstructured.NestedString(live.Object, "spec", "cloudProfileName")
	}
	if kind == "NamespacedCloudProfile" {
		return c.profiles[live.GetNamespace()+"/"+name]
	}
	return c.profiles[name]
}

func versionOf(group string) string {
	if group == "" {
		return "v1"
	}
	return "v1beta1"
}

// lifecycle is an Extension type's lifecycle as its ControllerRegistration declares it, with
// Gardener's defaults (reconcile AfterKubeAPIServer, delete and migrate BeforeKubeAPIServer,
// ControllerResource in Gardener's docs/api-reference/core.md).
func lifecycle(res map[string]any) shoot.ExtensionLifecycle {
	l := shoot.ExtensionLifecycle{Reconcile: "AfterKubeAPIServer", Delete: "BeforeKubeAPIServer", Migrate: "BeforeKubeAPIServer"}
	if lc, ok := res["lifecycle"].(map[string]any); ok {
		for key, target := range map[string]*string{"reconcile": &l.Reconcile, "delete": &l.Delete, "migrate": &l.Migrate} {
			if s, _ := lc[key].(string); s != "" {
				*target = s
			}
		}
	}
	l.GloballyEnabled, _ = res["globallyEnabled"].(bool)
	l.WorkerlessSupported, _ = res["workerlessSupported"].(bool)
	return l
}

// addShoot renders one Shoot's control plane into out as parts of the seed, or, for a Shoot the
// engine cannot serve, an Error report saying why, so that nothing else is blocked.
func addShoot(in render.Input, out *render.Output, live unstructured.Unstructured, c *apiContext) {
	project, why := c.project(live.GetNamespace())
	prefix := Prefix(project, live.GetName())
	if live.GetDeletionTimestamp() != nil {
		// Deleted by its owner (with Gardener's confirmation annotation, which
		// gardener-apiserver demands): nothing of its control plane is rendered, so the plan
		// deletes what the seed applied for it in the delete flow's order, and once that is gone
		// the engine finishes the deletion as gardenlet does, removing its finalizer.
		out.Reports = append(out.Reports, deletingReport(&live, c.virtual, prefix))
		out.Requested = append(out.Requested, render.RequestedDeletion{
			PartPrefix: prefix,
			Why:        fmt.Sprintf("Shoot %s/%s deleted through the API", live.GetNamespace(), live.GetName()),
		})
		return
	}
	ctx, why := c.shootContext(&live, project, why)
	if why != "" {
		out.Reports = append(out.Reports, failedReport(&live, c.virtual, why))
		return
	}
	sub := in
	sub.Name = live.GetName()
	rendered, err := shoot.RenderFromAPI(sub, &live, ctx)
	if err != nil {
		out.Reports = append(out.Reports, failedReport(&live, c.virtual, err.Error()))
		return
	}
	names := make([]string, 0, len(rendered.Components))
	for _, p := range rendered.Components {
		names = append(names, prefix+p.Name)
	}
	for _, p := range rendered.Components {
		p.Name = prefix + p.Name
		p.DependsOn = prefixed(prefix, p.DependsOn)
		if len(p.DependsOn) == 0 {
			// gardenlet reconciles a Shoot on a seed that is ready; the Seed part waits for
			// the seed's system components.
			p.DependsOn = []string{"seed"}
		}
		if p.DeletionDependsOn != nil {
			p.DeletionDependsOn = prefixed(prefix, p.DeletionDependsOn)
		}
		out.Components = append(out.Components, p)
	}
	for _, r := range rendered.Reports {
		r.Parts = names
		for i := range r.Conditions {
			r.Conditions[i].Parts = prefixed(prefix, r.Conditions[i].Parts)
		}
		out.Reports = append(out.Reports, r)
	}
	out.Predictions = append(out.Predictions, rendered.Predictions...)
	out.Notices = append(out.Notices, rendered.Notices...)
	out.Revisit = render.Earliest(out.Revisit, rendered.Revisit)
}

// shootContext is the context the Shoot's control plane is rendered with, or why the engine
// cannot serve the Shoot.
func (c *apiContext) shootContext(live *unstructured.Unstructured, project, why string) (shoot.APIContext, string) {
	if why == "" {
		why = c.unserved(live)
	}
	if why != "" {
		return shoot.APIContext{}, why
	}
	ctx := shoot.APIContext{Project: project, Seed: c.seed, InternalDomain: c.internal, DefaultDomain: c.def, ExtensionLifecycles: c.lifecycles,
		CloudProfile: c.cloudProfileOf(live)}
	if class, _, _ := unstructured.NestedString(live.Object, "spec", "exposureClassName"); class != "" {
		ctx.ExposureClassHandler = c.exposureClass[class]
	}
	return ctx, ""
}

// ShootContext is what the seed block renders the control plane of a Shoot on it with besides
// the Shoot (shoot.RenderFromAPI): the seed's outputs and what it reads of the garden (the
// domains, the ControllerRegistrations, the Projects, the ExposureClasses). in is the seed's
// input, v its values. An error says why the engine cannot serve the Shoot.
func ShootContext(in render.Input, v seed.Values, live *unstructured.Unstructured) (shoot.APIContext, error) {
	c, err := readContext(in, in.Name, v)
	if err != nil {
		return shoot.APIContext{}, err
	}
	project, why := c.project(live.GetNamespace())
	ctx, why := c.shootContext(live, project, why)
	if why != "" {
		return shoot.APIContext{}, fmt.Errorf("shoot %s/%s: %s", live.GetNamespace(), live.GetName(), why)
	}
	return ctx, nil
}

func prefixed(prefix string, names []string) []string {
	if names == nil {
		return nil
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// project is the project whose namespace holds the Shoot, or why the engine cannot serve it: its
// control plane's namespace, shoot--<project>--<name>, and the namespace the shoot component
// publishes to are Gardener's naming of garden-<project>.
func (c *apiContext) project(namespace string) (string, string) {
	name, ok := c.projects[namespace]
	if !ok {
		if p, isProject := shoot.ProjectOfNamespace(namespace); isProject {
			return p, ""
		}
		return "", fmt.Sprintf("namespace %s belongs to no Project", namespace)
	}
	if shoot.ProjectNamespace(name) != namespace {
		return "", fmt.Sprintf("the engine serves Shoots in the namespaces garden-<project>; project %s has namespace %s", name, namespace)
	}
	return name, ""
}

// unserved says why the engine cannot serve the Shoot's types: one no ControllerRegistration
// registers (gardener-apiserver refuses such a Shoot on creation; a registration removed later
// leaves it unserved).
func (c *apiContext) unserved(live *unstructured.Unstructured) string {
	var missing []string
	need := func(kind, typ string) {
		if typ != "" && !c.registered[kind+"/"+typ] {
			missing = append(missing, kind+"/"+typ)
		}
	}
	provider, _, _ := unstructured.NestedString(live.Object, "spec", "provider", "type")
	workers, _, _ := unstructured.NestedSlice(live.Object, "spec", "provider", "workers")
	if len(workers) > 0 {
		need("Infrastructure", provider)
		need("ControlPlane", provider)
		need("Worker", provider)
		network, _, _ := unstructured.NestedString(live.Object, "spec", "networking", "type")
		need("Network", network)
	}
	exts, _, _ := unstructured.NestedSlice(live.Object, "spec", "extensions")
	for _, e := range exts {
		m, _ := e.(map[string]any)
		typ, _ := m["type"].(string)
		if disabled, _ := m["disabled"].(bool); !disabled {
			need("Extension", typ)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	slices.Sort(missing)
	return "no ControllerRegistration registers " + strings.Join(slices.Compact(missing), ", ")
}

// failedReport reports a Shoot the engine cannot serve: lastOperation Error with the reason.
func failedReport(live *unstructured.Unstructured, virtual, why string) render.Report {
	return render.Report{
		Cluster: virtual, APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot", Namespace: live.GetNamespace(), Name: live.GetName(),
		Operation: shoot.Operation, Error: why,
	}
}

// deletingReport reports a Shoot in deletion until its control plane is gone, then finishes its
// deletion (render.Report.Finalize).
func deletingReport(live *unstructured.Unstructured, virtual, prefix string) render.Report {
	return render.Report{
		Cluster: virtual, APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot", Namespace: live.GetNamespace(), Name: live.GetName(),
		Operation: shoot.Operation, Finalize: true, FinalizeAfter: prefix,
	}
}
