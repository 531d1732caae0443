// Package gardeneradmissioncontroller renders the gardener_admission_controller component: the
// HTTPS server whose handlers the virtual garden's kube-apiserver and gardener-apiserver call as
// admission webhooks (kubeconfig, namespace, resource size and configuration validators,
// SeedRestriction) and as the SeedAuthorizer authorization webhook (S4:12006-12091,
// 20525-20748, 27843). gardener-operator runs it in the garden runtime cluster.
//
// It can only start once gardener-apiserver serves, which in turn needs the virtual
// kube-apiserver (S4:20639): the composite applies it after gardener_apiserver. The SeedAuthorizer
// is enabled by the virtual kube-apiserver's flags, with the webhook at
// https://gardener-admission-controller.garden/webhooks/auth/seed (S4:20604-20616); this component
// serves it but registers no object for it.
package gardeneradmissioncontroller

import (
	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
)

// Name is the name of the Deployment, the Service and the virtual garden ServiceAccount.
const Name = "gardener-admission-controller"

// Values are the component's typed inputs; the zero value of every optional field means the
// documented default.
type Values struct {
	gardenercontrolplane.Common

	// TLSSecretName names the serving certificate Secret (keys tls.crt, tls.key); "" means
	// "gardener-admission-controller-tls". Its names must include
	// gardener-admission-controller.<namespace> and gardener-admission-controller.<namespace>.svc.
	TLSSecretName string `json:"tls_secret_name"`
	// CABundle is the CA that signed the serving certificate, for the webhook configurations:
	// PEM, base64 or an engine marker of a generated certificate. Empty omits caBundle.
	CABundle string `json:"ca_bundle"`
	// AdmissionWebhooks registers the ValidatingWebhookConfiguration in the virtual garden; nil
	// means true.
	AdmissionWebhooks *bool `json:"admission_webhooks"`
	// SeedRestriction adds the SeedRestriction webhook, which belongs with an active SeedAuthorizer
	// (S4:20748); nil means true, as gardener-operator always runs both.
	SeedRestriction *bool `json:"seed_restriction"`
	// ResourceSizeMode is block (when empty) or log (S4:9497, 12072, 12079).
	ResourceSizeMode string `json:"resource_size_mode"`
	// ResourceSizeLimits are the maximum sizes of resources (S4:12049-12060); without any, neither
	// the resource size configuration nor its webhook is rendered.
	ResourceSizeLimits []ResourceLimit `json:"resource_size_limit"`
	// UnrestrictedSubjects are exempt from the size limits (S4:12061-12071); when empty, the
	// group of all gardenlets, gardener.cloud:system:seeds, is, as S4:12062, 12077 recommend.
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

// Subject is a user, group or ServiceAccount ("*" as name matches all, S4:12077).
type Subject struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}
