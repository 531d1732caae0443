// Package secretbinding renders the secret_binding component: a SecretBinding
// (core.gardener.cloud/v1beta1, S4:979-1013) that lets shoots of a project use a Secret with
// infrastructure credentials, optionally limited by Quotas. The Secret and the Quotas must exist
// first, and the binding must exist before any shoot names it (digest §2.2, S4:12145-12153).
package secretbinding

import (
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The API version and kind of the SecretBinding (S4:979-995).
const (
	APIVersion = "core.gardener.cloud/v1beta1"
	Kind       = "SecretBinding"
)

// defaultNamespace is where the binding lives when no namespace is given: the garden project's
// namespace, as for the other namespaced components of the catalog.
const defaultNamespace = "garden"

// Values are the component's typed inputs.
type Values struct {
	// Cluster is the virtual garden.
	Cluster decode.Cluster `json:"cluster"`
	// Name is the binding's name; Render defaults it to the instance name.
	Name string `json:"name"`
	// Namespace is the project namespace the binding lives in; "" means garden.
	Namespace string `json:"namespace"`
	// SecretRef names the Secret with the credentials.
	SecretRef string `json:"secret_ref"`
	// SecretNamespace is the Secret's namespace; "" means the binding's.
	SecretNamespace string `json:"secret_namespace"`
	// ProviderType is the infrastructure provider the credentials are for, such as aws or local.
	ProviderType string `json:"provider_type"`
	// Quotas limit the shoots that use the binding.
	Quotas []QuotaRef `json:"quota"`
}

// QuotaRef names a Quota.
type QuotaRef struct {
	Name string `json:"name"`
	// Namespace is the Quota's namespace; "" means the binding's.
	Namespace string `json:"namespace"`
}

// Render renders one secret_binding instance; its outputs are the binding's name and namespace.
func Render(in render.Input) (*render.Output, error) {
	var v Values
	if err := decode.Into(in.Config, &v); err != nil {
		return nil, err
	}
	if v.Name == "" {
		v.Name = in.Name
	}
	if strings.Contains(v.Name+v.Namespace, render.UnknownString) {
		return nil, fmt.Errorf("secret binding name or namespace %w", render.ErrDeferred)
	}
	objs, err := Objects(v)
	if err != nil {
		return nil, err
	}
	return &render.Output{Objects: objs, Outputs: map[string]cty.Value{
		"name":      cty.StringVal(v.Name),
		"namespace": cty.StringVal(namespace(v)),
	}}, nil
}

func namespace(v Values) string {
	if v.Namespace == "" {
		return defaultNamespace
	}
	return v.Namespace
}

// Objects renders the SecretBinding. A SecretBinding has no spec: secretRef, quotas and provider
// are top-level fields, all immutable (S4:979-1013).
func Objects(v Values) ([]render.Object, error) {
	ns := namespace(v)
	if v.SecretRef == "" {
		return nil, fmt.Errorf("secret binding %s: secret_ref is required", v.Name)
	}
	if v.ProviderType == "" {
		return nil, fmt.Errorf("secret binding %s: provider_type is required", v.Name)
	}
	secretNS := v.SecretNamespace
	if secretNS == "" {
		secretNS = ns
	}
	fields := map[string]any{
		"secretRef": map[string]any{"name": v.SecretRef, "namespace": secretNS},
		"provider":  map[string]any{"type": v.ProviderType},
	}
	quotas, err := quotaRefs(v.Quotas, ns)
	if err != nil {
		return nil, fmt.Errorf("secret binding %s: %w", v.Name, err)
	}
	if quotas != nil {
		fields["quotas"] = quotas
	}
	if errs := validation.IsDNS1123Subdomain(v.Name); len(errs) > 0 {
		return nil, fmt.Errorf("secret binding name %q is invalid: %s", v.Name, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return nil, fmt.Errorf("secret binding %s: namespace %q is invalid: %s", v.Name, ns, strings.Join(errs, "; "))
	}
	u := kube.Custom(APIVersion, Kind, ns, v.Name, nil, fields)
	return kube.On(v.Cluster.Name, "", u), nil
}

// quotaRefs renders the quota references as ObjectReferences with name and namespace.
func quotaRefs(qs []QuotaRef, ns string) ([]any, error) {
	if len(qs) == 0 {
		return nil, nil
	}
	out := make([]any, 0, len(qs))
	seen := map[QuotaRef]bool{}
	for _, q := range qs {
		if q.Name == "" {
			return nil, fmt.Errorf("quota reference without a name")
		}
		if q.Namespace == "" {
			q.Namespace = ns
		}
		if seen[q] {
			return nil, fmt.Errorf("quota %s/%s is referenced twice", q.Namespace, q.Name)
		}
		seen[q] = true
		out = append(out, map[string]any{"name": q.Name, "namespace": q.Namespace})
	}
	return out, nil
}
