package admission

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/schema"
)

// Component types and kinds the rules read.
const (
	typeCloudProfile           = "cloud_profile"
	typeExtension              = "extension"
	typeControllerRegistration = "controller_registration"
	typeCredentialsBinding     = "credentials_binding"
	typeSecretBinding          = "secret_binding"
	typeQuota                  = "quota"
	typeProject                = "project"

	// projectNamespacePrefix starts the namespace of a project without its own namespace.
	projectNamespacePrefix = "garden-"
)

// landscape answers the rules' questions about the view: which objects of a kind the landscape
// declares, with their names and namespaces resolved as far as they are certain.
type landscape struct {
	view *schema.LandscapeView
}

// healthy returns the instances of a kind and type that evaluated without errors.
func (l landscape) healthy(kind schema.Kind, typ string) []*schema.InstanceView {
	var out []*schema.InstanceView
	for _, inst := range l.view.Of(kind, typ) {
		if !inst.Failed {
			out = append(out, inst)
		}
	}
	return out
}

// object is a Gardener API object a component declares, with its name and namespace; a name or
// namespace that is not certain is marked unknown.
type object struct {
	inst                      *schema.InstanceView
	name, namespace           string
	nameKnown, namespaceKnown bool
}

// objects lists the declared objects of a component type. Namespaced objects resolve their
// namespace (namespaced is false for cluster-scoped kinds).
func (l landscape) objects(typ string, namespaced bool) []object {
	var out []object
	for _, inst := range l.view.Of(schema.KindComponent, typ) {
		o := object{inst: inst}
		if !inst.Failed {
			o.name, o.nameKnown = l.stringAt(inst, path("name"))
			if namespaced {
				o.namespace, o.namespaceKnown = l.stringAt(inst, path("namespace"))
			}
		}
		out = append(out, o)
	}
	return out
}

// stringAt resolves a string attribute of an instance to the value the object will have: the
// value written, or, for a name or namespace written as a reference to another Gardener API
// component's output (namespace = component.project.dev.namespace), what that component
// declares, because such outputs are known only after apply while the declaration is known now.
// Unset names and namespaces take their defaults (the instance name, and garden-<project> or
// garden). ok is false when the value is not certain.
func (l landscape) stringAt(inst *schema.InstanceView, p cty.Path) (string, bool) {
	return l.resolve(inst, p, 0)
}

// maxOriginDepth bounds how many references resolve follows; references cannot be cyclic, this
// only guards against surprises.
const maxOriginDepth = 4

func (l landscape) resolve(inst *schema.InstanceView, p cty.Path, depth int) (string, bool) {
	if inst == nil || inst.Failed || depth > maxOriginDepth {
		return "", false
	}
	if inst.Origin != nil {
		if target, output, ok := inst.Origin(p); ok {
			if s, ok := l.output(l.view.Instance(target), output, depth+1); ok {
				return s, true
			}
		}
	}
	v, err := p.Apply(inst.Config)
	if err != nil {
		// The attribute is not set in a nested block that is absent, or the path does not exist.
		return l.fallback(inst, p)
	}
	switch {
	case v.IsNull():
		return l.fallback(inst, p)
	case !v.IsKnown() || v.IsMarked() || !v.Type().Equals(cty.String):
		return "", false
	}
	return v.AsString(), true
}

// fallback is what an unset name or namespace of a Gardener API component renders as: the name
// is the instance's, a project's namespace garden-<name>. Bindings and quotas have no unset
// namespace: their schemas default it.
func (l landscape) fallback(inst *schema.InstanceView, p cty.Path) (string, bool) {
	if len(p) != 1 {
		return "", false
	}
	step, ok := p[0].(cty.GetAttrStep)
	if !ok || inst.Kind != schema.KindComponent {
		return "", false
	}
	switch {
	case step.Name == "name":
		return inst.Name, true
	case step.Name == "namespace" && inst.Type == typeProject:
		name, ok := l.resolve(inst, path("name"), 0)
		if !ok {
			return "", false
		}
		return projectNamespacePrefix + name, true
	}
	return "", false
}

// output is the value of a Gardener API component's name or namespace output, from what the
// component declares.
func (l landscape) output(inst *schema.InstanceView, output string, depth int) (string, bool) {
	if inst == nil || inst.Kind != schema.KindComponent {
		return "", false
	}
	switch inst.Type {
	case typeProject, typeCredentialsBinding, typeSecretBinding, typeQuota:
		if output == "name" || output == "namespace" {
			return l.resolve(inst, path(output), depth)
		}
	case typeCloudProfile, typeExtension, typeControllerRegistration:
		if output == "name" {
			return l.resolve(inst, path(output), depth)
		}
	}
	return "", false
}

// shootNamespace is the namespace of a shoot's Shoot, garden-<project>, where the shoot block
// renders it and where admission looks up its bindings.
func (l landscape) shootNamespace(shoot *schema.InstanceView) (string, bool) {
	project, ok := l.stringAt(shoot, path("project"))
	if !ok {
		return "", false
	}
	return projectNamespacePrefix + project, true
}
