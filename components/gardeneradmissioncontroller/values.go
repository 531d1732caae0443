// Package gardeneradmissioncontroller renders the gardener_admission_controller component: the
// HTTPS server whose handlers the virtual garden's kube-apiserver and gardener-apiserver call as
// admission webhooks (kubeconfig, namespace, resource size and configuration validators,
// SeedRestriction) and as the SeedAuthorizer authorization webhook (Gardener's "Gardener Admission
// Controller" docs/concepts/admission-controller.md, "Scoped API Access for gardenlets and
// Extensions" docs/deployment/gardenlet_api_access.md, "Topology Aware Routing"
// docs/operations/topology_aware_routing.md). gardener-operator runs it in the garden runtime
// cluster.
//
// It can only start once gardener-apiserver serves, which in turn needs the virtual
// kube-apiserver (Gardener's docs/deployment/gardenlet_api_access.md): the composite applies it
// after gardener_apiserver. The SeedAuthorizer is enabled by the virtual kube-apiserver's flags,
// with the webhook at https://gardener-admission-controller.garden/webhooks/auth/seed (Gardener's
// docs/deployment/gardenlet_api_access.md); this component serves it but registers no object for
// it.
package gardeneradmissioncontroller

import (
	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
)

// Name is the name of the Deployment, the Service and the virtual garden ServiceAccount.
const Name = "gardener-admission-controller"

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	gardenercontrolplane.Common

	// TLSSecretName names the serving certificate Secret (keys tls.crt, tls.key). Its names must
	// include
	// gardener-admission-controller.<namespace> and gardener-admission-controller.<namespace>.svc.
	TLSSecretName string `json:"tls_secret_name"`
	// CABundle is the CA that signed the serving certificate, for the webhook configurations:
	// PEM, base64 or an engine marker of a generated certificate. Empty omits caBundle.
	CABundle string `json:"ca_bundle"`
	// AdmissionWebhooks registers the ValidatingWebhookConfiguration in the virtual garden.
	AdmissionWebhooks bool `json:"admission_webhooks"`
	// SeedRestriction adds the SeedRestriction webhook, which belongs with an active SeedAuthorizer
	// (Gardener's docs/deployment/gardenlet_api_access.md); gardener-operator always runs both.
	SeedRestriction bool `json:"seed_restriction"`
	// ResourceSizeMode is block or log (Gardener's ResourceAdmissionConfiguration in
	// docs/api-reference/operator.md, docs/concepts/admission-controller.md).
	ResourceSizeMode string `json:"resource_size_mode"`
	// ResourceSizeLimits are the maximum sizes of resources (Gardener's
	// docs/concepts/admission-controller.md); without any, neither the resource size configuration nor
	// its webhook is rendered.
	ResourceSizeLimits []ResourceLimit `json:"resource_size_limit"`
	// UnrestrictedSubjects are exempt from the size limits (Gardener's
	// docs/concepts/admission-controller.md); when empty, the group of all gardenlets,
	// gardener.cloud:system:seeds, is, as Gardener's docs/concepts/admission-controller.md recommend.
	UnrestrictedSubjects []Subject `json:"unrestricted_subject"`
}

// ResourceLimit is the maximum size of the resources it matches.
type ResourceLimit struct {
	APIGroups   []string `json:"api_groups"`
	APIVersions []string `json:"api_versions"`
	Resources   []string `json:"resources"`
	// Size is a quantity such as 100k.
	Size string `json:"size"`
}

// Subject is a user, group or ServiceAccount ("*" as name matches all, Gardener's
// docs/concepts/admission-controller.md).
type Subject struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}
