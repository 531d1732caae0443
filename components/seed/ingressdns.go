package seed

import (
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/istio"
	"github.com/declarative-gardener/gardener/components/nginxingress"
	"github.com/declarative-gardener/gardener/engine/render"
)

// IngressDNSRecordName names the seed's wildcard DNSRecord in its garden namespace (Gardener's
// "Cluster" docs/extensions/cluster.md); Gardener's documentation gives no name, "seed-ingress" is
// the one gardenlet uses.
const IngressDNSRecordName = "seed-ingress"

// IngressDNSSecretName is the DNSRecord's copy of the seed's DNS provider credentials, named
// like the shoots' record Secrets, dnsrecord-<record> (Gardener's "DNS Record"
// docs/extensions/resources/dnsrecord.md).
const IngressDNSSecretName = "dnsrecord-" + IngressDNSRecordName

// ingressDNS: "Gardener creates a wildcard DNS record pointing to the load balancer of the
// ingress controller" (Gardener's docs/extensions/resources/dnsrecord.md) as a DNSRecord in the
// seed's garden namespace, which has no Cluster (Gardener's docs/extensions/cluster.md). Its value
// is the address the cloud provider gives nginx-ingress's Service, known only once the Service
// exists: the engine reads it when it applies the record. The credentials are the seed's DNS
// provider Secret (.spec.dns.provider.secretRef) copied from the virtual garden. Like the
// BackupBucket, the record is reconciled by an extension installed only once the Seed is
// registered: it comes after the Seed, which does not wait for it.
func (b *builder) ingressDNS() error {
	if b.v.Ingress.Domain == "" || b.v.DNS.Provider.Type == "" {
		return nil
	}
	b.copySecret("ingress_dns_secret", IngressDNSSecretName, b.v.DNS.Provider.SecretRef)
	// The record points at the seed's default Istio ingress gateway, which passes the ingress
	// domain's TLS through to nginx-ingress (deployNginxIngressAndWaitForIstioServiceAndGetDNSComponent
	// in pkg/gardenlet/controller/seed/seed/reconciler_reconcile.go). In the garden runtime cluster
	// the garden's nginx-ingress serves the seed from its own load balancer, as the engine renders
	// the garden's so far.
	address := render.LoadBalancerAddress(b.cluster, IngressNamespace, istio.DefaultIngressGatewayName)
	if b.runtimeAsSeed {
		address = render.LoadBalancerAddress(b.cluster, GardenNamespace, nginxingress.ControllerName)
	}
	record := kube.Custom("extensions.gardener.cloud/v1alpha1", "DNSRecord", GardenNamespace, IngressDNSRecordName, nil, map[string]any{"spec": map[string]any{
		"type":       b.v.DNS.Provider.Type,
		"secretRef":  map[string]any{"name": IngressDNSSecretName, "namespace": GardenNamespace},
		"name":       "*." + b.v.Ingress.Domain,
		"recordType": render.LiveValue(address.WithAs(render.AsRecordType)),
		"values":     []any{render.LiveValue(address)},
	}})
	recordDeps := []string{"extension_crds", "ingress_dns_secret", "seed"}
	if !b.runtimeAsSeed {
		recordDeps = append(recordDeps, "nginx_ingress", "istio")
	}
	b.parts = append(b.parts, render.Component{Name: "ingress_dns_record", Type: "manifests", Detached: true,
		DependsOn: recordDeps, Objects: kube.On(b.cluster, GardenNamespace, record)})
	return nil
}
