// Package admission holds the landscape rules (schema.LandscapeRule) that refuse, when the
// landscape is loaded, what gardener-apiserver's admission plugins would refuse when the engine
// applies it: a Seed or Shoot that uses an extension type no extension of the landscape
// registers (plugin/pkg/global/extensionvalidation/admission.go at Gardener v1.120.0), a Shoot
// asking its cloud profile for a Kubernetes version, machine type, machine image, volume type,
// region or zone it does not offer (plugin/pkg/shoot/validator/admission.go), and references to
// cloud profiles, bindings and quotas the landscape does not declare
// (plugin/pkg/global/resourcereferencemanager/admission.go, plugin/pkg/shoot/quotavalidator).
//
// The rules read the decoded configuration of the seed and shoot blocks and of the cloud_profile,
// extension, controller_registration, credentials_binding, secret_binding, quota and project
// components; they know these schemas' attribute names, which is why the package lives beside
// them. A rule reports only what is certain: values known only after apply, and blocks that
// failed to evaluate, could be anything and are not judged. docs/landscapes.md ("What
// admission would refuse") describes the checks and when a finding is an error or a warning.
package admission
