// Package controllerregistration renders the controller_registration component: a
// ControllerRegistration (core.gardener.cloud/v1beta1, cluster-scoped, Gardener's
// ControllerRegistration in docs/api-reference/core.md) announcing an extension controller and the
// extension kinds and types it serves. Its ControllerDeployment is the separate
// controller_deployment component; Gardener turns both into ControllerInstallations per seed
// (Gardener's "ControllerRegistration" docs/extensions/registration.md). Shoots and seeds using an
// extension type need its primary registration first (Gardener's
// docs/concepts/apiserver-admission-plugins.md, Gardener's "APIServer Admission Plugins"
// docs/concepts/apiserver-admission-plugins.md).
package controllerregistration

import (
	"fmt"
	"github.com/zclconf/go-cty/cty"
	"strings"
	"time"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The API version and kind of the ControllerRegistration (Gardener's ControllerRegistration in
// docs/api-reference/core.md).
const (
	APIVersion = "core.gardener.cloud/v1beta1"
	Kind       = "ControllerRegistration"
)

// The deployment policies (Gardener's docs/extensions/registration.md); OnDemand is the default.
const (
	PolicyOnDemand             = "OnDemand"
	PolicyAlways               = "Always"
	PolicyAlwaysExceptNoShoots = "AlwaysExceptNoShoots"
)

// Policies lists the deployment policies.
var Policies = []string{PolicyOnDemand, PolicyAlways, PolicyAlwaysExceptNoShoots}

// The lifecycle strategies of an Extension resource (Gardener's ControllerResource in
// docs/api-reference/core.md); the CRD stand-in and Gardener know these three.
const (
	BeforeKubeAPIServer = "BeforeKubeAPIServer"
	AfterKubeAPIServer  = "AfterKubeAPIServer"
	AfterWorker         = "AfterWorker"
)

// Strategies lists the lifecycle strategies.
var Strategies = []string{BeforeKubeAPIServer, AfterKubeAPIServer, AfterWorker}

// KindExtension is the one kind whose resources may be globally enabled and have a reconcile
// timeout and lifecycle (Gardener's ControllerResource in docs/api-reference/core.md).
const KindExtension = "Extension"

// AnnotationPodSecurityEnforce sets the pod-security.kubernetes.io/enforce level of the extension's
// namespace in seeds (Gardener's "Conventions" docs/extensions/conventions.md).
const AnnotationPodSecurityEnforce = "security.gardener.cloud/pod-security-enforce"

// Values are the component's typed inputs.
type Values struct {
	// Cluster is the virtual garden.
	Cluster decode.Cluster `json:"cluster"`
	// Name is the registration's name; rendering defaults it to the instance name.
	Name string `json:"name"`
	// Resources are the extension kinds and types the controller serves.
	Resources []Resource `json:"resource"`
	// Policy says when the controller is deployed to seeds (Gardener's
	// docs/extensions/registration.md).
	Policy string `json:"policy"`
	// ControllerDeployment names the ControllerDeployment that deploys the controller; only one
	// is supported (Gardener's ControllerRegistrationDeployment in docs/api-reference/core.md).
	ControllerDeployment string `json:"controller_deployment"`
	// SeedSelector are labels a seed must carry to get the controller; only secondary controllers
	// may have one (Gardener's docs/extensions/registration.md).
	SeedSelector map[string]string `json:"seed_selector"`
	// PodSecurityEnforce is the Pod Security Standard enforced in the extension's namespace.
	PodSecurityEnforce string `json:"pod_security_enforce"`
}

// Resource is one extension kind and type the controller serves (ControllerResource,
// Gardener's ControllerRegistrationSpec in docs/api-reference/core.md).
type Resource struct {
	// Kind is the extension kind, such as Infrastructure, OperatingSystemConfig or Extension.
	Kind string `json:"kind"`
	// Type is the extension type, such as aws or shoot-dns-service.
	Type string `json:"type"`
	// Primary marks the controller that owns the kind/type's lifecycle (Gardener's
	// ControllerResource in docs/api-reference/core.md).
	Primary bool `json:"primary"`
	// GloballyEnabled enables an Extension for all shoots; only for kind Extension.
	GloballyEnabled *bool `json:"globally_enabled"`
	// ReconcileTimeout is how long Gardener waits for an Extension, such as 3m; only for kind
	// Extension.
	ReconcileTimeout string `json:"reconcile_timeout"`
	// WorkerlessSupported says whether an Extension supports shoots without workers.
	WorkerlessSupported *bool `json:"workerless_supported"`
	// Lifecycle orders an Extension relative to other shoot components; only for kind Extension.
	Lifecycle *Lifecycle `json:"lifecycle"`
}

// Lifecycle is when an Extension is reconciled, deleted and migrated (Gardener's
// ControllerResourceLifecycle in docs/api-reference/core.md).
type Lifecycle struct {
	Reconcile string `json:"reconcile"`
	Delete    string `json:"delete"`
	Migrate   string `json:"migrate"`
}

// Type is the controller_registration component type as the catalog registers it: its schema (schema.go) and its
// render function; its output is the registration's name.
var Type = component.Define(typeSchema, gardenapi.Object[Values]{
	What:    "controller registration",
	Meta:    func(v *Values) (*string, *string) { return &v.Name, nil },
	Objects: Objects,
}.Render)

// ResourceDefaults are the defaults of a resource block, for code that builds registrations in Go.
var ResourceDefaults = component.BlockDefaults[Resource](typeSchema, "resource")

// Objects renders the ControllerRegistration.
func Objects(v Values) ([]render.Object, error) {
	if err := gardenapi.ValidateName("controller registration", v.Name); err != nil {
		return nil, err
	}
	resources, allSecondary, err := resources(v.Resources)
	if err != nil {
		return nil, fmt.Errorf("controller registration %s: %w", v.Name, err)
	}
	deployment, err := deployment(v, allSecondary)
	if err != nil {
		return nil, fmt.Errorf("controller registration %s: %w", v.Name, err)
	}
	var annotations map[string]string
	switch v.PodSecurityEnforce {
	case "":
	case "privileged", "baseline", "restricted":
		annotations = map[string]string{AnnotationPodSecurityEnforce: v.PodSecurityEnforce}
	default:
		return nil, fmt.Errorf("controller registration %s: pod security level %q is not one of privileged, baseline, restricted", v.Name, v.PodSecurityEnforce)
	}
	u := kube.Custom(APIVersion, Kind, "", v.Name, nil, map[string]any{"spec": map[string]any{
		"resources":  resources,
		"deployment": deployment,
	}})
	if annotations != nil {
		u.SetAnnotations(annotations)
	}
	return kube.On(v.Cluster.Name, "", u), nil
}

// deployment renders spec.deployment.
func deployment(v Values, allSecondary bool) (map[string]any, error) {
	policy := v.Policy
	if !contains(Policies, policy) {
		return nil, fmt.Errorf("policy %q is not one of %s", policy, strings.Join(Policies, ", "))
	}
	out := map[string]any{"policy": policy}
	if v.ControllerDeployment != "" {
		out["deploymentRefs"] = []any{map[string]any{"name": v.ControllerDeployment}}
	}
	if len(v.SeedSelector) > 0 {
		// Gardener's docs/extensions/registration.md: a seed selector only for secondary controllers
		// (primary=false everywhere).
		if !allSecondary {
			return nil, fmt.Errorf("a seed selector is only allowed when every resource has primary = false")
		}
		out["seedSelector"] = gardenapi.MatchLabels(v.SeedSelector)
	}
	return out, nil
}

// resources renders spec.resources and reports whether every resource is secondary.
func resources(rs []Resource) ([]any, bool, error) {
	if len(rs) == 0 {
		return nil, false, fmt.Errorf("at least one resource is required")
	}
	out := make([]any, 0, len(rs))
	allSecondary := true
	seen := map[string]bool{}
	for _, r := range rs {
		if r.Kind == "" || r.Type == "" {
			return nil, false, fmt.Errorf("a resource needs a kind and a type")
		}
		id := r.Kind + "/" + r.Type
		if seen[id] {
			return nil, false, fmt.Errorf("resource %s is given twice", id)
		}
		seen[id] = true
		primary := r.Primary
		allSecondary = allSecondary && !primary
		m := map[string]any{"kind": r.Kind, "type": r.Type, "primary": primary}
		if r.Kind != KindExtension && (r.GloballyEnabled != nil || r.ReconcileTimeout != "" || r.Lifecycle != nil || r.WorkerlessSupported != nil) {
			// Gardener's ControllerResource in docs/api-reference/core.md describe these fields for kind
			// Extension only; gardener-apiserver refuses them for other kinds, which an operator expects
			// here too.
			return nil, false, fmt.Errorf("resource %s: globally_enabled, reconcile_timeout, workerless_supported and lifecycle are only for kind Extension", id)
		}
		if r.GloballyEnabled != nil {
			m["globallyEnabled"] = *r.GloballyEnabled
		}
		if r.WorkerlessSupported != nil {
			m["workerlessSupported"] = *r.WorkerlessSupported
		}
		if r.ReconcileTimeout != "" {
			d, err := time.ParseDuration(r.ReconcileTimeout)
			if err != nil || d <= 0 {
				return nil, false, fmt.Errorf("resource %s: reconcile timeout %q is not a positive duration such as 3m", id, r.ReconcileTimeout)
			}
			// The API server stores a metav1.Duration in Go's spelling (3m0s); render it so.
			m["reconcileTimeout"] = d.String()
		}
		if r.Lifecycle != nil {
			l, err := lifecycle(*r.Lifecycle)
			if err != nil {
				return nil, false, fmt.Errorf("resource %s: %w", id, err)
			}
			if len(l) > 0 {
				m["lifecycle"] = l
			}
		}
		out = append(out, m)
	}
	return out, allSecondary, nil
}

// lifecycle renders the strategies that are set.
func lifecycle(l Lifecycle) (map[string]any, error) {
	out := map[string]any{}
	for _, s := range []struct{ field, value string }{{"reconcile", l.Reconcile}, {"delete", l.Delete}, {"migrate", l.Migrate}} {
		if s.value == "" {
			continue
		}
		if !contains(Strategies, s.value) {
			return nil, fmt.Errorf("lifecycle %s %q is not one of %s", s.field, s.value, strings.Join(Strategies, ", "))
		}
		out[s.field] = s.value
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// LifecycleType is the object type of an Extension type's lifecycle as outputs carry it, with
// whether the type is enabled for every shoot and supports workerless ones (Gardener's "Extension"
// docs/extensions/resources/extension.md).
var LifecycleType = cty.Object(map[string]cty.Type{
	"reconcile": cty.String, "delete": cty.String, "migrate": cty.String,
	"globally_enabled": cty.Bool, "workerless_supported": cty.Bool,
})

// ExtensionLifecycles are the lifecycles of the Extension types among resources, with Gardener's
// defaults filled in (reconcile AfterKubeAPIServer, delete and migrate BeforeKubeAPIServer,
// Gardener's ControllerResource in docs/api-reference/core.md): shoots place their Extensions by
// them (Gardener's docs/extensions/registration.md).
func ExtensionLifecycles(resources []Resource) cty.Value {
	out := map[string]cty.Value{}
	for _, r := range resources {
		if r.Kind != KindExtension {
			continue
		}
		l := Lifecycle{}
		if r.Lifecycle != nil {
			l = *r.Lifecycle
		}
		or := func(s, def string) cty.Value {
			if s == "" {
				return cty.StringVal(def)
			}
			return cty.StringVal(s)
		}
		out[r.Type] = cty.ObjectVal(map[string]cty.Value{
			"reconcile":            or(l.Reconcile, "AfterKubeAPIServer"),
			"delete":               or(l.Delete, "BeforeKubeAPIServer"),
			"migrate":              or(l.Migrate, "BeforeKubeAPIServer"),
			"globally_enabled":     cty.BoolVal(r.GloballyEnabled != nil && *r.GloballyEnabled),
			"workerless_supported": cty.BoolVal(r.WorkerlessSupported != nil && *r.WorkerlessSupported),
		})
	}
	if len(out) == 0 {
		return cty.MapValEmpty(LifecycleType)
	}
	return cty.MapVal(out)
}
