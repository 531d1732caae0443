package nginxingress

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for the nginx-ingress-controller that serves the Ingresses
// of a runtime cluster's own components under its ingress domains (Gardener's Ingress in
// docs/api-reference/operator.md, IngressController in docs/api-reference/core.md, "Priority
// Classes" docs/development/priority-classes.md).
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "nginx_ingress",
		Description: "The nginx-ingress-controller Gardener manages for a garden runtime cluster or a seed (the only ingress controller kind is nginx), as " +
			"gardenlet and gardener-operator deploy it: the controller (2 replicas) behind a Service nginx-ingress-controller of type LoadBalancer, its IngressClass, " +
			"content-addressed configuration, RBAC, PodDisruptionBudget and VerticalPodAutoscaler, and the default backend that answers requests no Ingress " +
			"matches. A seed puts the controller behind its Istio ingress gateway instead. DNS records for the ingress domains are not part of the component.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The cluster the controller runs in: the garden's runtime cluster, or a seed."),
			{Name: "namespace", Type: cty.String, Default: cty.StringVal(DefaultNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of the controller and its default backend."},
			{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (nginx-ingress-controller, ingress-default-backend) by image name: \"repository:tag\", \"repository@sha256:...\" or a bare tag."},
			{Name: "load_balancer_annotations", Type: cty.Map(cty.String), Description: "Annotations of the controller's Service, for the cloud-controller-manager (the Garden's .spec.runtimeCluster.settings.loadBalancerServices.annotations)."},
			{Name: "ingress_class", Type: cty.String, Default: cty.StringVal(DefaultIngressClass), Checks: attr.Checks(schema.ObjectName()), Description: "The IngressClass the controller serves; Ingresses name it in spec.ingressClassName. Its controller value is k8s.io/<ingress_class>."},
			{Name: "config", Type: cty.Map(cty.String), Description: "Entries of the controller's ConfigMap (ingress-nginx configuration options), added to or replacing the defaults allow-snippet-annotations = true, annotations-risk-level = Critical, server-name-hash-bucket-size = 256, use-proxy-protocol = false, worker-processes = 2."},
			{Name: "priority_class_name", Type: cty.String, Default: cty.StringVal(priorityclasses.GardenSystem300), Checks: attr.Checks(schema.ObjectName()), Description: "The PriorityClass of the controller and the default backend: gardener-garden-system-300 in a garden runtime cluster, gardener-system-600 in a seed."},
		}},
	}
}
