package shoot

import (
	"strings"

	"github.com/declarative-gardener/gardener/components/istio"
	"github.com/declarative-gardener/gardener/components/seed"
	"github.com/declarative-gardener/gardener/components/shootextensions"
	"github.com/declarative-gardener/gardener/engine/render"
)

// dnsRecords: the shoot's internal record api.<name>.<project>.<internal domain>, pointing at the
// load balancer of the seed's Istio ingress gateway that exposes the API server by SNI (Gardener's
// "Control Plane Endpoints And Ports" docs/usage/advanced/control-plane-endpoints-and-ports.md,
// "DNS Record" docs/extensions/resources/dnsrecord.md), and its external record api.<domain>, a
// CNAME of the internal one (Gardener's docs/extensions/resources/dnsrecord.md). The load
// balancer's address is known only once the seed's gateway has it: the engine reads it when it
// plans, or, on a new seed, when it applies the record. Each record's DNS provider credentials are
// copied into the control-plane namespace as dnsrecord-<shoot>-<internal|external> (Gardener's
// docs/extensions/resources/dnsrecord.md): the internal domain's and default domain's from the
// virtual garden's garden namespace (Gardener's "Configuration" docs/operations/configuration.md),
// the shoot's own provider's from its project namespace.
func (b *builder) dnsRecords() error {
	internal := b.v.InternalDomain
	if internal == nil || internal.Domain == "" {
		return nil
	}
	gwNamespace, _ := b.ingressGateway()
	address := render.LoadBalancerAddress(b.seed.Cluster, gwNamespace, istio.DefaultIngressGatewayName)
	dns := shootextensions.DNS{
		InternalDomain: internal.Domain, InternalProviderType: internal.ProviderType,
		Address: render.LiveValue(address), RecordType: render.LiveValue(address.WithAs(render.AsRecordType)),
	}
	b.copySecret("dns_internal_secret", shootextensions.DNSRecordSecretName(b.name, "internal"), seed.GardenNamespace, internal.SecretRef)
	// The records wait for their Secrets and, in flowOrder, for the kube-apiserver Service, not
	// for the kube-apiserver nor each other, as gardenlet deploys them (flow.go).
	deps := map[string][]string{"internal": {"cluster", "dns_internal_secret"}}
	if providerType, namespace, secret := b.externalDNSProvider(); providerType != "" {
		dns.Domain, dns.ProviderType = b.domain(), providerType
		b.copySecret("dns_external_secret", shootextensions.DNSRecordSecretName(b.name, "external"), namespace, secret)
		deps["external"] = []string{"cluster", "dns_external_secret"}
	}
	ev, err := b.extValues()
	if err != nil {
		return err
	}
	ev.DNS = dns
	objs, err := shootextensions.DNSRecords(ev)
	if err != nil {
		return err
	}
	for _, which := range []string{"internal", "external"} {
		if d, ok := deps[which]; ok {
			b.add("dns_record_"+which, "manifests", objsNamed(objs, shootextensions.DNSRecordName(b.name, which)), d...)
		}
	}
	return nil
}

// externalDNSProvider is the provider of the external record: the shoot's own (its Secret in the
// project namespace) or, for a domain below the default domain, the default domain's. None means
// no external record, like .spec.dns.provider=unmanaged (Gardener's
// docs/extensions/resources/dnsrecord.md).
func (b *builder) externalDNSProvider() (providerType, namespace, secret string) {
	if p := b.v.DNSProvider; p != nil {
		return p.Type, ProjectNamespace(b.v.Project), p.SecretRef
	}
	if d := b.v.DefaultDomain; d != nil && d.Domain != "" && (b.v.DNSDomain == "" || strings.HasSuffix(b.v.DNSDomain, "."+d.Domain)) {
		return d.ProviderType, seed.GardenNamespace, d.SecretRef
	}
	return "", "", ""
}

// copySecret adds a part copying a Secret of the virtual garden into the control-plane namespace.
func (b *builder) copySecret(part, name, fromNamespace, fromName string) {
	b.parts = append(b.parts, render.Component{Name: part, Type: "secret_copy", DependsOn: []string{"namespace"}, Copy: &render.CopySpec{
		Cluster: b.seed.Cluster, Namespace: b.ns, Name: name,
		FromCluster: b.seed.VirtualCluster, FromNamespace: fromNamespace, FromName: fromName,
	}})
}

// objsNamed are the objects of objs called name.
func objsNamed(objs []render.Object, name string) []render.Object {
	var out []render.Object
	for _, o := range objs {
		if o.Object.GetName() == name {
			out = append(out, o)
		}
	}
	return out
}
