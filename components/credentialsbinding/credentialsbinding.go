// Package credentialsbinding renders the credentials_binding component: a CredentialsBinding
// (security.gardener.cloud/v1alpha1, S4:10080-10123) that lets shoots of a project use a Secret or
// a WorkloadIdentity as infrastructure credentials, optionally limited by Quotas. The credentials
// and Quotas must exist first, and the binding before any shoot names it (digest §2.2,
// S4:12259-12265).
package credentialsbinding

import (
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The API version and kind of the CredentialsBinding (S4:10090-10100).
const (
	APIVersion = "security.gardener.cloud/v1alpha1"
	Kind       = "CredentialsBinding"
)

// The kinds of credentials a binding may reference (S4:10113-10116).
const (
	KindSecret           = "Secret"
	KindWorkloadIdentity = "WorkloadIdentity"
)

// credentialsAPIVersions are the API versions of the referenced kinds: core/v1 Secret and
// security.gardener.cloud/v1alpha1 WorkloadIdentity (S4:10113-10116).
var credentialsAPIVersions = map[string]string{
	KindSecret:           "v1",
	KindWorkloadIdentity: "security.gardener.cloud/v1alpha1",
}

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
	// ProviderType is the infrastructure provider the credentials are for, such as aws or local.
	ProviderType string `json:"provider_type"`
	// Credentials references the Secret or WorkloadIdentity.
	Credentials CredentialsRef `json:"credentials_ref"`
	// Quotas limit the shoots that use the binding.
	Quotas []QuotaRef `json:"quota"`
}

// CredentialsRef references the object that holds the credentials.
type CredentialsRef struct {
	// Kind is Secret or WorkloadIdentity; "" means Secret.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Namespace is the object's namespace; "" means the binding's.
	Namespace string `json:"namespace"`
}

// QuotaRef names a Quota.
type QuotaRef struct {
	Name string `json:"name"`
	// Namespace is the Quota's namespace; "" means the binding's.
	Namespace string `json:"namespace"`
}

// Render renders one credentials_binding instance; its outputs are the binding's name and
// namespace.
func Render(in render.Input) (*render.Output, error) {
	var v Values
	if err := decode.Into(in.Config, &v); err != nil {
		return nil, err
	}
	if v.Name == "" {
		v.Name = in.Name
	}
	if strings.Contains(v.Name+v.Namespace, render.UnknownString) {
		return nil, fmt.Errorf("credentials binding name or namespace %w", render.ErrDeferred)
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

// Objects renders the CredentialsBinding. It has no spec: provider, credentialsRef and quotas are
// top-level fields, all immutable (S4:10108-10122).
func Objects(v Values) ([]render.Object, error) {
	ns := namespace(v)
	if errs := validation.IsDNS1123Subdomain(v.Name); len(errs) > 0 {
		return nil, fmt.Errorf("credentials binding name %q is invalid: %s", v.Name, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return nil, fmt.Errorf("credentials binding %s: namespace %q is invalid: %s", v.Name, ns, strings.Join(errs, "; "))
	}
	if v.ProviderType == "" {
		return nil, fmt.Errorf("credentials binding %s: provider_type is required", v.Name)
	}
	ref := v.Credentials
	if ref.Kind == "" {
		ref.Kind = KindSecret
	}
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
	quotas, err := quotaRefs(v.Quotas, ns)
	if err != nil {
		return nil, fmt.Errorf("credentials binding %s: %w", v.Name, err)
	}
	if quotas != nil {
		fields["quotas"] = quotas
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
