// Package secretbinding renders the secret_binding component: a SecretBinding
// (core.gardener.cloud/v1beta1, Gardener's SecretBinding in docs/api-reference/core.md) that lets
// shoots of a project use a Secret with infrastructure credentials, optionally limited by Quotas.
// The Secret and the Quotas must exist first, and the binding must exist before any shoot names it
// (Gardener's docs/concepts/apiserver-admission-plugins.md, Gardener's "Gardener API Server"
// docs/concepts/apiserver.md).
package secretbinding

import (
	"fmt"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The API version and kind of the SecretBinding (Gardener's SecretBinding in
// docs/api-reference/core.md).
const (
	APIVersion = "core.gardener.cloud/v1beta1"
	Kind       = "SecretBinding"
)

// Values are the component's typed inputs.
type Values struct {
	// Cluster is the virtual garden.
	Cluster decode.Cluster `json:"cluster"`
	// Name is the binding's name; rendering defaults it to the instance name.
	Name string `json:"name"`
	// Namespace is the project namespace the binding lives in.
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

// QuotaRef names a Quota; its Namespace "" means the binding's.
type QuotaRef = gardenapi.Ref

// Type is the secret_binding component type as the catalog registers it: its schema (schema.go) and its
// render function; its outputs are the binding's name and namespace.
var Type = component.Define(typeSchema, gardenapi.Object[Values]{
	What:    "secret binding",
	Meta:    func(v *Values) (*string, *string) { return &v.Name, &v.Namespace },
	Objects: Objects,
}.Render)

// Objects renders the SecretBinding. A SecretBinding has no spec: secretRef, quotas and provider
// are top-level fields, all immutable (Gardener's SecretBinding in docs/api-reference/core.md).
func Objects(v Values) ([]render.Object, error) {
	ns := v.Namespace
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
	quotas, err := gardenapi.QuotaRefs(v.Quotas, ns)
	if err != nil {
		return nil, fmt.Errorf("secret binding %s: %w", v.Name, err)
	}
	if quotas != nil {
		fields["quotas"] = quotas
	}
	if err := gardenapi.ValidateNamespaced("secret binding", v.Name, ns); err != nil {
		return nil, err
	}
	u := kube.Custom(APIVersion, Kind, ns, v.Name, nil, fields)
	return kube.On(v.Cluster.Name, "", u), nil
}
