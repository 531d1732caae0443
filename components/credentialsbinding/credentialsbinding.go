// Package credentialsbinding renders the credentials_binding component: a CredentialsBinding
// (security.gardener.cloud/v1alpha1, Gardener's "Security" docs/api-reference/security.md) that
// lets shoots of a project use a Secret or a WorkloadIdentity as infrastructure credentials,
// optionally limited by Quotas. The credentials and Quotas must exist first, and the binding before
// any shoot names it (Gardener's docs/concepts/apiserver-admission-plugins.md, Gardener's "Gardener
// Controller Manager" docs/concepts/controller-manager.md).
package credentialsbinding

import (
	"fmt"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The API version and kind of the CredentialsBinding (Gardener's CredentialsBinding in
// docs/api-reference/security.md).
const (
	APIVersion = "security.gardener.cloud/v1alpha1"
	Kind       = "CredentialsBinding"
)

// The kinds of credentials a binding may reference (Gardener's CredentialsBinding in
// docs/api-reference/security.md).
const (
	KindSecret           = "Secret"
	KindWorkloadIdentity = "WorkloadIdentity"
)

// credentialsAPIVersions are the API versions of the referenced kinds: core/v1 Secret and
// security.gardener.cloud/v1alpha1 WorkloadIdentity (Gardener's CredentialsBinding in
// docs/api-reference/security.md).
var credentialsAPIVersions = map[string]string{
	KindSecret:           "v1",
	KindWorkloadIdentity: "security.gardener.cloud/v1alpha1",
}

// Values are the component's typed inputs.
type Values struct {
	// Cluster is the virtual garden.
	Cluster decode.Cluster `json:"cluster"`
	// Name is the binding's name; rendering defaults it to the instance name.
	Name string `json:"name"`
	// Namespace is the project namespace the binding lives in.
	Namespace string `json:"namespace"`
	// ProviderType is the infrastructure provider the credentials are for, such as aws or local.
	ProviderType string `json:"provider_type"`
	// Credentials references the Secret or WorkloadIdentity.
	Credentials CredentialsRef `json:"credentials_ref"`
	// Quotas limit the shoots that use the binding.
	Quotas []QuotaRef `json:"quota"`
}

// CredentialsRef references the object that holds the credentials.
type CredentialsRef struct {
	// Kind is Secret or WorkloadIdentity.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Namespace is the object's namespace; "" means the binding's.
	Namespace string `json:"namespace"`
}

// QuotaRef names a Quota; its Namespace "" means the binding's.
type QuotaRef = gardenapi.Ref

// Type is the credentials_binding component type as the catalog registers it: its schema (schema.go) and its
// render function; its outputs are the binding's name and namespace.
var Type = component.Define(typeSchema, gardenapi.Object[Values]{
	What:    "credentials binding",
	Meta:    func(v *Values) (*string, *string) { return &v.Name, &v.Namespace },
	Objects: Objects,
}.Render)

// Objects renders the CredentialsBinding. It has no spec: provider, credentialsRef and quotas are
// top-level fields, all immutable (Gardener's CredentialsBinding in
// docs/api-reference/security.md).
func Objects(v Values) ([]render.Object, error) {
	ns := v.Namespace
	if err := gardenapi.ValidateNamespaced("credentials binding", v.Name, ns); err != nil {
		return nil, err
	}
	if v.ProviderType == "" {
		return nil, fmt.Errorf("credentials binding %s: provider_type is required", v.Name)
	}
	ref := v.Credentials
	apiVersion, ok := credentialsAPIVersions[ref.Kind]
	if !ok {
		return nil, fmt.Errorf("credentials binding %s: credentials kind %q is not one of Secret, WorkloadIdentity", v.Name, ref.Kind)
	}
	if ref.Name == "" {
		return nil, fmt.Errorf("credentials binding %s: the credentials need a name", v.Name)
	}
	if ref.Namespace == "" {
		ref.Namespace = ns
	}
	fields := map[string]any{
		"provider": map[string]any{"type": v.ProviderType},
		"credentialsRef": map[string]any{
			"apiVersion": apiVersion,
			"kind":       ref.Kind,
			"name":       ref.Name,
			"namespace":  ref.Namespace,
		},
	}
	quotas, err := gardenapi.QuotaRefs(v.Quotas, ns)
	if err != nil {
		return nil, fmt.Errorf("credentials binding %s: %w", v.Name, err)
	}
	if quotas != nil {
		fields["quotas"] = quotas
	}
	u := kube.Custom(APIVersion, Kind, ns, v.Name, nil, fields)
	return kube.On(v.Cluster.Name, "", u), nil
}
