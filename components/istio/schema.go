package istio

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for istiod and the istio-ingressgateways that expose
// kube-apiservers by TLS SNI (Gardener's "Gardener Operator" docs/concepts/operator.md, "Istio"
// docs/operations/istio.md).
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "istio",
		Description: "Istio as Gardener runs it: the networking.istio.io CRDs (Gateway, VirtualService, DestinationRule, EnvoyFilter), istiod, and " +
			"one istio-ingressgateway per ingress_gateway block, each in its own namespace behind a Service of type LoadBalancer. " +
			"The garden exposes virtual-garden-kube-apiserver through the gateway in namespace virtual-garden-istio-ingress; seeds " +
			"add zonal gateways. Without the injector, telemetry or an egress gateway, and with Services and VirtualServices not " +
			"exported unless they ask to be. The Gateway and VirtualService objects of an exposed API server belong to that server's component.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("cluster", schema.RefCluster, "The cluster Istio runs in: the garden's runtime cluster, or a seed."),
				{Name: "namespace", Type: cty.String, Default: cty.StringVal(DefaultNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of istiod."},
				{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (istio-istiod, istio-proxy) by image name: \"repository:tag\", \"repository@sha256:...\" or a bare tag."},
				{Name: "high_availability", Type: cty.Bool, Default: cty.False, Description: "Whether istiod runs with 2 replicas, spread over nodes and zones, instead of 1; the gateways always autoscale from 2."},
				{Name: "trust_domain", Type: cty.String, Default: cty.StringVal(DefaultTrustDomain), Checks: attr.Checks(schema.DNSName()), Description: "The mesh's SPIFFE trust domain."},
				{Name: "zones", Type: cty.List(cty.String), Description: "The cluster's availability zones: the gateways that no zone pins are spread over them, with 2 to 6 replicas per zone on more than one (2 to 9 otherwise)."},
				{Name: "priority_class_name", Type: cty.String, Default: cty.StringVal(priorityclasses.GardenSystemCritical), Checks: attr.Checks(schema.ObjectName()), Description: "The PriorityClass of istiod and the gateways: gardener-garden-system-critical in a garden runtime cluster, gardener-system-critical in a seed."},
			},
			Blocks: []schema.Block{{
				Name: "ingress_gateway", Nesting: schema.NestingList, Labels: []string{"namespace"},
				Description: "An istio-ingressgateway in the namespace of the label, e.g. ingress_gateway \"virtual-garden-istio-ingress\" { }. " +
					"Each gateway needs its own namespace and its own labels.",
				Body: schema.Body{
					Attributes: []schema.Attribute{
						{Name: "name", Type: cty.String, Default: cty.StringVal(DefaultIngressGatewayName), Checks: attr.Checks(schema.DNSLabel()), Description: "The name of the gateway's Deployment, Service and ServiceAccount."},
						{Name: "labels", Type: cty.Map(cty.String), Description: "The labels of the gateway's pods, by which its Service and Istio Gateway objects select them; unset means app = istio-ingressgateway, istio = ingressgateway."},
						{Name: "service_type", Type: cty.String, Default: cty.StringVal("LoadBalancer"), AllowedValues: []string{"LoadBalancer", "NodePort", "ClusterIP"}, Description: "The type of the gateway's Service."},
						{Name: "load_balancer_annotations", Type: cty.Map(cty.String), Description: "Annotations of the gateway's Service, for the cloud-controller-manager (the Garden's .spec.runtimeCluster.settings.loadBalancerServices.annotations)."},
						{Name: "zone", Type: cty.String, Description: "The availability zone the gateway's pods are pinned to; unset spreads them over all zones."},
						{Name: "vpn", Type: cty.Bool, Default: cty.False, Description: "Whether the gateway carries the shoots' reversed VPN on port 8132 (a seed's gateways): its Istio Gateway, the EnvoyFilters that route HTTP CONNECT requests to the VPN servers, and the pods' egress to them."},
						{Name: "network_policy_labels", Type: cty.Map(cty.String), Description: "Further egress labels of the gateway's pods, such as networking.resources.gardener.cloud/to-all-shoots-kube-apiserver-tcp-443 for the API servers it forwards to."},
					},
					Blocks: []schema.Block{{
						Name: "port", Nesting: schema.NestingList, Labels: []string{"name"},
						Description: "A Service port of the gateway, named by the label (an IANA service name such as tls); none means one port tcp, 443 to 9443, for kube-apiservers by TLS SNI.",
						Body: schema.Body{Attributes: []schema.Attribute{
							{Name: "port", Type: cty.Number, Required: true, Checks: attr.Checks(schema.Range(1, 65535)), Description: "The Service (load balancer) port; Istio Gateway servers name this number."},
							{Name: "target_port", Type: cty.Number, Checks: attr.Checks(schema.Range(1, 65535)), Description: "The port Envoy listens on; unset means the Service port. Ports below 1024 need a target port of 1024 or more, since the proxy does not run as root."},
						}},
					}},
				},
			}},
		},
		Outputs: []schema.Output{
			{Name: "ingress_gateway_namespaces", Type: cty.List(cty.String), Description: "The gateways' namespaces, in configuration order."},
		},
	}
}
