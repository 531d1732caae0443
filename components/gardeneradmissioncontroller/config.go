package gardeneradmissioncontroller

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
)

// Ports of the admission controller's servers. Gardener's documentation gives the metrics port
// (Gardener's "Profiling" docs/monitoring/profiling.md); the webhook and health probe ports are
// Gardener's neighbouring defaults.
const (
	WebhookPort     = 2721
	HealthProbePort = 2722
	MetricsPort     = 2723
)

// certDir holds the serving certificate (tls.crt, tls.key), as the webhook server expects them.
const certDir = "/etc/gardener-admission-controller/srv/gardener-admission-controller"

// seedsGroup is the group of all gardenlets (Gardener's "Gardener Admission Controller"
// docs/concepts/admission-controller.md, "gardenlet" docs/concepts/gardenlet.md).
const seedsGroup = "gardener.cloud:system:seeds"

func (r resolved) subjects() []map[string]any {
	subjects := r.Values.UnrestrictedSubjects
	if len(subjects) == 0 {
		subjects = []Subject{{Kind: "Group", Name: seedsGroup}}
	}
	out := make([]map[string]any, 0, len(subjects))
	for _, s := range subjects {
		m := map[string]any{"kind": s.Kind, "name": s.Name}
		if s.Kind == "ServiceAccount" {
			m["apiGroup"] = ""
			m["namespace"] = s.Namespace
		} else {
			m["apiGroup"] = "rbac.authorization.k8s.io"
		}
		out = append(out, m)
	}
	return out
}

// config is the AdmissionControllerConfiguration (Gardener's docs/concepts/admission-controller.md,
// docs/monitoring/profiling.md).
func (r resolved) config() map[string]any {
	server := map[string]any{
		"webhooks":     map[string]any{"port": WebhookPort, "tls": map[string]any{"serverCertDir": certDir}},
		"healthProbes": map[string]any{"port": HealthProbePort},
		"metrics":      map[string]any{"port": MetricsPort},
	}
	if len(r.Values.ResourceSizeLimits) > 0 {
		limits := make([]map[string]any, 0, len(r.Values.ResourceSizeLimits))
		for _, l := range r.Values.ResourceSizeLimits {
			limits = append(limits, map[string]any{
				"apiGroups": l.APIGroups, "apiVersions": l.APIVersions, "resources": l.Resources, "size": l.Size,
			})
		}
		server["resourceAdmissionConfiguration"] = map[string]any{
			"limits":               limits,
			"unrestrictedSubjects": r.subjects(),
			"operationMode":        r.Values.ResourceSizeMode,
		}
	}
	return map[string]any{
		"apiVersion":             "admissioncontroller.config.gardener.cloud/v1alpha1",
		"kind":                   "AdmissionControllerConfiguration",
		"gardenClientConnection": gardenercontrolplane.ClientConnection(),
		"logLevel":               r.LogLevel,
		"logFormat":              "json",
		"server":                 server,
	}
}

func validateLimits(limits []ResourceLimit) error {
	for i, l := range limits {
		if len(l.Resources) == 0 {
			return fmt.Errorf("resource size limit %d names no resources", i+1)
		}
		if len(l.APIVersions) == 0 {
			return fmt.Errorf("resource size limit %d names no API versions", i+1)
		}
		if _, err := resource.ParseQuantity(l.Size); err != nil {
			return fmt.Errorf("resource size limit %d: size %q: %w", i+1, l.Size, err)
		}
	}
	return nil
}

func validateSubjects(subjects []Subject) error {
	for i, s := range subjects {
		switch s.Kind {
		case "User", "Group":
		case "ServiceAccount":
			if s.Namespace == "" {
				return fmt.Errorf("unrestricted subject %d: a ServiceAccount needs a namespace", i+1)
			}
		default:
			return fmt.Errorf("unrestricted subject %d: kind %q is not one of User, Group, ServiceAccount", i+1, s.Kind)
		}
		if s.Name == "" {
			return fmt.Errorf("unrestricted subject %d has no name", i+1)
		}
	}
	return nil
}
