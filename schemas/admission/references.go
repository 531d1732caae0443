package admission

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// Quota scopes as admission counts them: a binding may use one quota of each
// (ensureBindingReferences in plugin/pkg/global/resourcereferencemanager/admission.go at
// v1.120.0); Secret and WorkloadIdentity quotas both limit credentials.
const (
	scopeProject     = "project"
	scopeCredentials = "credentials"
)

// checkReferences reports references admission resolves and the landscape does not declare: a
// shoot's cloud profile and credentials or secret binding (ShootValidator and
// ResourceReferenceManager refuse a Shoot whose referenced objects do not exist), and a binding's
// quotas (ResourceReferenceManager refuses the binding, ShootQuotaValidator the Shoot). It also
// compares a binding's provider type with the shoot's, and refuses two quotas of one scope on a
// binding.
//
// Whether a missing object is an error or a warning depends on whether the landscape clearly
// manages its kind where admission looks for it: an error when the landscape declares at least
// one object of that kind there (any cloud profile, as CloudProfiles are cluster-scoped; a
// binding or quota in that namespace), a warning otherwise, since the object may be created
// outside the landscape.
func checkReferences(v *schema.LandscapeView) []schema.Finding {
	l := landscape{view: v}
	var out []schema.Finding
	profiles := l.profiles()
	bindings := map[string][]object{
		typeCredentialsBinding: l.objects(typeCredentialsBinding, true),
		typeSecretBinding:      l.objects(typeSecretBinding, true),
	}
	for _, shoot := range l.healthy(schema.KindShoot, string(schema.KindShoot)) {
		out = append(out, shootProfileReference(l, profiles, shoot)...)
		if isWorkerless(shoot) {
			continue // a workerless Shoot sends no binding (validation/shoot.go forbids one)
		}
		namespace, nsOK := l.shootNamespace(shoot)
		for _, typ := range []string{typeCredentialsBinding, typeSecretBinding} {
			name, set, ok := obj{shoot.Config}.str(typ)
			if !ok || !set || !nsOK {
				continue
			}
			found, state := lookup(bindings[typ], name, namespace)
			switch state {
			case lookupMissing, lookupMissingUnmanaged:
				out = append(out, missing(shoot.Addr, path(typ), state, kindName(typ), name, namespace, bindings[typ],
					"gardener-apiserver's ShootValidator and ResourceReferenceManager admission plugins refuse a Shoot whose binding does not exist."))
			case lookupFound:
				out = append(out, bindingProviderType(shoot, typ, found)...)
			}
		}
	}
	quotas := l.objects(typeQuota, true)
	for _, typ := range []string{typeCredentialsBinding, typeSecretBinding} {
		for _, b := range bindings[typ] {
			out = append(out, bindingQuotas(l, b, quotas)...)
		}
	}
	return out
}

// kindName is the API kind a component type declares, for messages.
func kindName(typ string) string {
	switch typ {
	case typeCredentialsBinding:
		return "CredentialsBinding"
	case typeSecretBinding:
		return "SecretBinding"
	case typeQuota:
		return "Quota"
	case typeCloudProfile:
		return "CloudProfile"
	}
	return typ
}

// shootProfileReference reports a cloud profile the landscape does not declare.
func shootProfileReference(l landscape, profiles []declaredProfile, shoot *schema.InstanceView) []schema.Finding {
	_, state := l.shootProfile(profiles, shoot)
	if state != profileMissing {
		return nil
	}
	name, _ := l.stringAt(shoot, path("cloud_profile"))
	var names []string
	for _, d := range profiles {
		names = append(names, d.name)
	}
	if len(profiles) == 0 {
		return []schema.Finding{{
			Instance: shoot.Addr, Path: path("cloud_profile"), Severity: schema.SeverityWarning,
			Summary: "Cloud profile not declared",
			Detail: fmt.Sprintf("The landscape declares no cloud_profile component, so cloud profile %q must exist in the virtual garden already. "+
				"gardener-apiserver's ShootValidator admission plugin refuses a Shoot whose CloudProfile does not exist; nothing of the shoot is checked against the profile.", name),
		}}
	}
	return []schema.Finding{{
		Instance: shoot.Addr, Path: path("cloud_profile"), Severity: schema.SeverityError,
		Summary: "Cloud profile not declared",
		Detail: fmt.Sprintf("No cloud_profile component of the landscape is named %q (it declares %s). "+
			"gardener-apiserver's ShootValidator admission plugin refuses a Shoot whose CloudProfile does not exist.%s", name, quoteList(names), diag.DidYouMean(name, names)),
	}}
}

// lookupState is the outcome of looking up a namespaced object by name and namespace.
type lookupState int

const (
	// lookupFound: the landscape declares it.
	lookupFound lookupState = iota
	// lookupUncertain: some object's name or namespace is not certain; nothing is judged.
	lookupUncertain
	// lookupMissing: not declared, and the landscape declares objects of the kind in that
	// namespace, so it manages them there.
	lookupMissing
	// lookupMissingUnmanaged: not declared, and the landscape declares none of the kind in that
	// namespace; it may exist outside the landscape.
	lookupMissingUnmanaged
)

// lookup finds an object by name and namespace among the declared ones.
func lookup(objects []object, name, namespace string) (object, lookupState) {
	uncertain, managed := false, false
	for _, o := range objects {
		if o.inst.Failed || !o.nameKnown || !o.namespaceKnown {
			uncertain = true
			continue
		}
		if o.namespace != namespace {
			continue
		}
		managed = true
		if o.name == name {
			return o, lookupFound
		}
	}
	switch {
	case uncertain:
		return object{}, lookupUncertain
	case managed:
		return object{}, lookupMissing
	}
	return object{}, lookupMissingUnmanaged
}

// missing is the finding for a namespaced object the landscape does not declare.
// refusal is the sentence naming what admission refuses.
func missing(instance string, p cty.Path, state lookupState, kind, name, namespace string, declared []object, refusal string) schema.Finding {
	if state == lookupMissingUnmanaged {
		return schema.Finding{
			Instance: instance, Path: p, Severity: schema.SeverityWarning,
			Summary: kind + " not declared",
			Detail: fmt.Sprintf("The landscape declares no %s in namespace %s, so %s %q must be created there outside the landscape. %s",
				kind, namespace, kind, name, refusal),
		}
	}
	var names []string
	for _, o := range declared {
		if o.namespace == namespace {
			names = append(names, o.name)
		}
	}
	return schema.Finding{
		Instance: instance, Path: p, Severity: schema.SeverityError,
		Summary: kind + " not declared",
		Detail: fmt.Sprintf("The landscape declares no %s %q in namespace %s (it declares %s there). %s%s",
			kind, name, namespace, quoteList(names), refusal, diag.DidYouMean(name, names)),
	}
}

// bindingProviderType reports a binding for another provider than the shoot's
// (validateProviderType in plugin/pkg/shoot/validator/admission.go at v1.120.0).
func bindingProviderType(shoot *schema.InstanceView, typ string, b object) []schema.Finding {
	provider, set, ok := obj{shoot.Config}.block("provider")
	if !ok || !set {
		return nil
	}
	shootType, set, ok := provider.str("type")
	if !ok || !set {
		return nil
	}
	bindingType, set, ok := obj{b.inst.Config}.str("provider_type")
	if !ok || !set || bindingType == shootType {
		return nil
	}
	// A SecretBinding may be for several providers, comma-separated (SecretBindingHasType in
	// pkg/apis/core/helper at v1.120.0).
	if typ == typeSecretBinding && slices.Contains(strings.Split(bindingType, ","), shootType) {
		return nil
	}
	return []schema.Finding{{
		Instance: shoot.Addr, Path: path("provider", "type"), Severity: schema.SeverityError,
		Summary: "Provider type differs from the binding's",
		Detail: fmt.Sprintf("The shoot's provider type %q is not the provider type %q of %s %q (%s). %s refuses a Shoot whose binding is for another provider.",
			shootType, bindingType, kindName(typ), b.name, b.inst.Addr, validator),
	}}
}

// bindingQuotas reports a binding's quotas the landscape does not declare, and a second quota of
// one scope.
func bindingQuotas(l landscape, b object, quotas []object) []schema.Finding {
	if b.inst.Failed || !b.namespaceKnown {
		return nil
	}
	refs, ok := obj{b.inst.Config}.blocks("quota")
	if !ok {
		return nil
	}
	var out []schema.Finding
	seen := map[string]int{}
	for i := range refs {
		name, ok := l.stringAt(b.inst, path("quota", i, "name"))
		if !ok {
			continue
		}
		// A quota without a namespace is in the binding's.
		namespace := b.namespace
		if _, set, ok := refs[i].str("namespace"); !ok || set {
			var resolved bool
			if namespace, resolved = l.stringAt(b.inst, path("quota", i, "namespace")); !resolved {
				continue
			}
		}
		q, state := lookup(quotas, name, namespace)
		switch state {
		case lookupMissing, lookupMissingUnmanaged:
			out = append(out, missing(b.inst.Addr, path("quota", i, "name"), state, "Quota", name, namespace, quotas,
				"gardener-apiserver's ResourceReferenceManager admission plugin refuses a binding whose Quota does not exist, and the ShootQuotaValidator every Shoot using the binding."))
			continue
		case lookupUncertain:
			continue
		}
		scope, set, ok := obj{q.inst.Config}.str("scope")
		if !ok || !set {
			continue
		}
		class := scopeCredentials
		if scope == "Project" {
			class = scopeProject
		}
		if first, dup := seen[class]; dup {
			out = append(out, schema.Finding{
				Instance: b.inst.Addr, Path: path("quota", i), Severity: schema.SeverityError,
				Summary: "Second quota of one scope",
				Detail: fmt.Sprintf("Quota %s/%s limits the %s scope like the binding's quota block %d; a binding may use one quota per scope (project or credentials). "+
					"gardener-apiserver's ResourceReferenceManager admission plugin refuses the binding.", namespace, name, class, first+1),
			})
			continue
		}
		seen[class] = i
	}
	return out
}
