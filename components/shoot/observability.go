package shoot

import (
	"fmt"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/observability"
	"github.com/declarative-gardener/gardener/engine/render"
)

// PurposeTesting is the purpose of shoots that get no monitoring (Gardener's "Shoot Cluster
// Purposes" docs/usage/shoot/shoot_purposes.md).
const PurposeTesting = "testing"

// observabilityStack: the control plane's monitoring (prometheus-shoot, blackbox-exporter,
// Plutono, kube-state-metrics) and, where the seed stores logs, Vali and the event-logger
// (Gardener's "Logging And Monitoring" docs/extensions/logging-and-monitoring.md, "Logging"
// docs/usage/observability/logging.md), once the kube-apiserver, the access Secrets and the shoot's
// resource manager (which applies its RBAC inside the shoot) are there. A shoot of purpose testing
// gets none (Gardener's docs/usage/shoot/shoot_purposes.md), nor does a shoot on a seed without
// observability, whose prometheus-operator would run it. Hibernated, it scales to zero with the
// control plane.
func (b *builder) observabilityStack() error {
	if b.v.Purpose == PurposeTesting || !b.seed.Observability.Enabled {
		return nil
	}
	b.secret("plutono_admin", render.SecretSpec{Name: observability.DefaultPlutonoAdminSecretName, Class: "password"}, "")
	// blackbox-exporter probes the API server's internal domain, as gardenlet has it do
	// (DefaultBlackboxExporterControlPlane in pkg/gardenlet/operation/botanist/blackboxexporter.go of
	// Gardener v1.120.0), the shoot's domain without an internal domain.
	apiServerHost := "api." + b.domain()
	if d := b.v.InternalDomain; d != nil && d.Domain != "" {
		apiServerHost = "api." + b.name + "." + b.v.Project + "." + d.Domain
	}
	objs, err := observability.ShootObjects(observability.ShootValues{
		Cluster: decode.Cluster{Name: b.seed.Cluster}, Namespace: b.ns, Project: b.v.Project, Name: b.name,
		IngressDomain: b.seed.IngressDomain, PlutonoAdminSecretName: observability.DefaultPlutonoAdminSecretName,
		CASecretName: secretCA, EtcdCASecretName: secretEtcdCA, EtcdClientSecretName: secretEtcdClient,
		GenericKubeconfigSecretName: secretGenericToken, APIServerHost: apiServerHost,
		LoggingEnabled: b.seed.Observability.LoggingEnabled, Hibernated: b.hibernated,
	})
	if err != nil {
		return fmt.Errorf("observability: %w", err)
	}
	b.addScaled("observability", "observability", objs, "kube_apiserver", "access", "gardener_resource_manager", "plutono_admin")
	return nil
}
