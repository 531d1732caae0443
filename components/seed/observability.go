package seed

import (
	"fmt"

	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/observability"
	"github.com/declarative-gardener/gardener/engine/render"
)

// observability is the seed's observability block, or the block's defaults when it has none.
func (v Values) observability() Observability {
	if o := v.Observability; o != nil {
		return *o
	}
	return observabilityDefaults()
}

var observabilityDefaults = component.BlockDefaults[Observability](typeSchema, "observability")

// observabilityOn is whether the seed runs its observability stack: unless switched off.
func (v Values) observabilityOn() bool { return v.observability().Enabled }

// loggingOn is whether the seed stores logs in Vali.
func (v Values) loggingOn() bool { o := v.observability(); return o.Enabled && o.LoggingEnabled }

// observabilityStack: the seed's monitoring and logging in its garden namespace (Gardener's
// "Logging And Monitoring" docs/extensions/logging-and-monitoring.md, "Alerting"
// docs/monitoring/alerting.md), after nginx-ingress, whose IngressClass its Ingresses name. In the
// garden's runtime cluster the seed shares the garden's prometheus-operator, Plutono,
// kube-state-metrics and Vali (Gardener's "Gardener Operator" docs/concepts/operator.md), which
// must therefore run.
func (b *builder) observabilityStack() error {
	if !b.v.observabilityOn() {
		return nil
	}
	if b.runtimeAsSeed && !b.v.Garden.ObservabilityEnabled {
		return fmt.Errorf("observability: the seed shares the observability stack of garden %s in the runtime cluster, which is switched off; switch the seed's off too (observability { enabled = false })", b.v.Garden.Name)
	}
	ov := observability.SeedValues{
		Cluster: decode.Cluster{Name: b.cluster}, Namespace: GardenNamespace, SeedName: b.name, IngressDomain: b.v.Ingress.Domain,
		LoggingEnabled: b.v.loggingOn(), RuntimeIsGarden: b.runtimeAsSeed,
	}
	if o := b.v.Observability; o != nil {
		ov.Alerting, ov.PrometheusStorage, ov.ValiStorage = ptr.To(o.Alerting), o.PrometheusStorage, o.ValiStorage
	}
	deps := []string{"priority_classes"}
	if !b.runtimeAsSeed {
		// Plutono's admin password; in the runtime cluster the garden's Plutono serves the seed.
		ov.PlutonoAdminSecretName = observability.DefaultPlutonoAdminSecretName
		b.secret("plutono_admin", render.SecretSpec{Name: ov.PlutonoAdminSecretName, Class: "password"}, "")
		deps = []string{"gardener_resource_manager", "nginx_ingress", "plutono_admin"}
	}
	objs, err := observability.SeedObjects(ov)
	if err != nil {
		return fmt.Errorf("observability: %w", err)
	}
	b.add("observability", "observability", objs, deps...)
	return nil
}
