package garden

import (
	"fmt"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/etcddruid"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/istio"
	"github.com/declarative-gardener/gardener/components/namespace"
	"github.com/declarative-gardener/gardener/components/nginxingress"
	"github.com/declarative-gardener/gardener/components/observability"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/components/resourcemanager"
	"github.com/declarative-gardener/gardener/components/vpa"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The Secrets the garden generates in the runtime cluster's garden namespace. The CA names
// follow gardener-operator's (Gardener's "Gardener Operator" docs/concepts/operator.md: a general
// CA, ca-garden-runtime for runtime webhooks).
const (
	secretRuntimeCA        = "ca-garden-runtime"
	secretCA               = "ca"
	secretClientCA         = "ca-client"
	secretFrontProxyCA     = "ca-front-proxy"
	secretEtcdCA           = "ca-etcd"
	secretEtcdPeerCA       = "ca-etcd-peer"
	secretGardenerCA       = "ca-gardener"
	secretEtcdClient       = "etcd-client"
	secretKubeAPIServer    = "kube-apiserver"
	secretKubeAggregator   = "kube-aggregator"
	secretServiceAccount   = "service-account-key"
	secretKAPIEncryption   = "kube-apiserver-etcd-encryption-configuration"
	secretGAPIEncryption   = "gardener-apiserver-etcd-encryption-configuration"
	secretResourceManager  = "gardener-resource-manager-server"
	secretGardenerAPI      = "gardener-apiserver-tls"
	secretGardenerAdmssion = "gardener-admission-controller-tls"
	plutonoAdmin           = "plutono-admin"
	// kcmAccess is the virtual kube-controller-manager's token-requestor Secret (Gardener's
	// docs/concepts/operator.md).
	kcmAccess = "shoot-access-kube-controller-manager"
	// kcmServer is the virtual kube-controller-manager's serving certificate
	// (pkg/component/kubernetes/controllermanager/controllermanager.go at Gardener v1.120.0).
	kcmServer = "kube-controller-manager-server"
)

// observability is the garden's observability block, or the block's defaults when it has none:
// observability is on unless switched off, as in a Garden (Gardener's docs/concepts/operator.md).
func (g *builder) observability() Observability {
	if o := g.v.Observability; o != nil {
		return *o
	}
	return observabilityDefaults()
}

var observabilityDefaults = component.BlockDefaults[Observability](typeSchema, "observability")

// runtimeBase: the garden namespace, the PriorityClasses and the CAs everything else is signed by.
func (g *builder) runtimeBase() error {
	nsVals := namespace.Type.Defaults()
	nsVals.Cluster, nsVals.Name = decode.Cluster{Name: g.runtime}, Namespace
	// The namespace of system components the GRM high-availability webhook acts on (Gardener's
	// "Gardener Resource Manager" docs/concepts/resource-manager.md).
	nsVals.Labels = map[string]string{"high-availability-config.resources.gardener.cloud/consider": "true"}
	ns, err := namespace.Objects(nsVals)
	if err != nil {
		return err
	}
	g.add("garden_namespace", "namespace", ns)
	pcVals := priorityclasses.Type.Defaults()
	pcVals.Cluster, pcVals.Set = decode.Cluster{Name: g.runtime}, priorityclasses.Garden
	pcs, err := priorityclasses.Objects(pcVals)
	if err != nil {
		return err
	}
	g.add("priority_classes", "priority_classes", pcs)
	g.secret("ca_garden_runtime", render.SecretSpec{Name: secretRuntimeCA, Class: "ca", CommonName: "garden-runtime"}, "")
	return nil
}

// systemComponents: gardener-resource-manager first, then VPA, etcd-druid, Istio and
// nginx-ingress once it runs (Gardener's docs/concepts/operator.md).
func (g *builder) systemComponents() error {
	runtime := decode.Cluster{Name: g.runtime}
	ha := g.v.VirtualCluster.HighAvailability
	images := g.images()
	runtimeCA := render.GeneratedRef(Namespace, secretRuntimeCA, "ca.crt", true)

	g.secret("gardener_resource_manager_tls", render.SecretSpec{Name: secretResourceManager, Class: "server-cert", CommonName: "gardener-resource-manager", DNSNames: resourcemanager.ServiceDNSNames(Namespace), CA: secretRuntimeCA}, "ca_garden_runtime")
	grmVals := resourcemanager.Type.Defaults()
	grmVals.Cluster, grmVals.Namespace, grmVals.Images, grmVals.HighAvailability = runtime, Namespace, images, ha
	grmVals.AdmissionWebhooks, grmVals.CABundle, grmVals.ServerTLSSecretName = g.v.AdmissionWebhooks, runtimeCA, secretResourceManager
	grm, err := resourcemanager.Objects(grmVals)
	if err != nil {
		return fmt.Errorf("gardener-resource-manager: %w", err)
	}
	g.add("gardener_resource_manager", "gardener_resource_manager", grm, "garden_namespace", "priority_classes", "gardener_resource_manager_tls")

	system := []string{}
	if g.vpaEnabled() {
		g.secret("vpa_admission_controller_tls", render.SecretSpec{Name: vpa.DefaultTLSSecretName, Class: "server-cert", CommonName: vpa.WebhookServiceName + "." + Namespace + ".svc", DNSNames: kube.ServiceDNSNames(vpa.WebhookServiceName, Namespace), CA: secretRuntimeCA}, "ca_garden_runtime")
		vpaVals := vpa.Type.Defaults()
		vpaVals.Cluster, vpaVals.Namespace, vpaVals.Images, vpaVals.HighAvailability = runtime, Namespace, images, ha
		vpaVals.AdmissionWebhooks, vpaVals.CABundle, vpaVals.TLSSecretName = g.v.AdmissionWebhooks, runtimeCA, vpa.DefaultTLSSecretName
		vpaVals.CASecretName, vpaVals.GardenRuntime = secretRuntimeCA, true
		objs, err := vpa.Objects(vpaVals)
		if err != nil {
			return fmt.Errorf("vpa: %w", err)
		}
		g.add("vpa", "vpa", objs, "gardener_resource_manager", "vpa_admission_controller_tls")
		system = append(system, "vpa")
	}
	g.secret("etcd_druid_webhook_tls", render.SecretSpec{Name: etcddruid.DefaultWebhookTLSSecretName, Class: "server-cert", CommonName: etcddruid.Name + "." + Namespace + ".svc", DNSNames: kube.ServiceDNSNames(etcddruid.Name, Namespace), CA: secretRuntimeCA}, "ca_garden_runtime")
	druidVals := etcddruid.Type.Defaults()
	druidVals.Cluster, druidVals.Namespace, druidVals.Images, druidVals.HighAvailability = runtime, Namespace, images, ha
	druidVals.AdmissionWebhooks, druidVals.CABundle = g.v.AdmissionWebhooks, runtimeCA
	druid, err := etcddruid.Objects(druidVals)
	if err != nil {
		return fmt.Errorf("etcd-druid: %w", err)
	}
	g.add("etcd_druid", "etcd_druid", druid, "gardener_resource_manager", "etcd_druid_webhook_tls")

	gw := istio.VirtualGardenGateway(g.loadBalancerAnnotations())
	istioVals := istio.Type.Defaults()
	istioVals.Cluster, istioVals.Images, istioVals.HighAvailability, istioVals.IngressGateways = runtime, images, ha, []istio.Gateway{gw}
	if p := g.v.RuntimeCluster.Provider; p != nil {
		istioVals.Zones = p.Zones
	}
	ist, err := istio.Objects(istioVals)
	if err != nil {
		return fmt.Errorf("istio: %w", err)
	}
	g.add("istio", "istio", ist, "gardener_resource_manager")

	ngxVals := nginxingress.Type.Defaults()
	ngxVals.Cluster, ngxVals.Namespace, ngxVals.Images = runtime, Namespace, images
	ngxVals.LoadBalancerAnnotations = g.loadBalancerAnnotations()
	ngx, err := nginxingress.Objects(ngxVals)
	if err != nil {
		return fmt.Errorf("nginx-ingress: %w", err)
	}
	g.add("nginx_ingress", "nginx_ingress", ngx, "gardener_resource_manager")
	system = append(system, "etcd_druid", "istio", "nginx_ingress")

	// Observability is on unless switched off, as in a Garden (Gardener's docs/concepts/operator.md);
	// Plutono's admin password is generated.
	if o := g.observability(); o.Enabled {
		// prometheus-operator serves every namespace: a seed in the runtime cluster shares it for
		// its own and its shoots' Prometheus instances (Gardener's docs/concepts/operator.md).
		ov := observability.Type.Defaults()
		ov.Cluster, ov.Namespace, ov.Images, ov.PlutonoAdminSecretName, ov.WatchAllNamespaces = runtime, Namespace, images, plutonoAdmin, true
		ov.Longterm, ov.Alerting = o.Longterm, o.Alerting
		component.Override(&ov.PrometheusStorage, o.PrometheusStorage)
		component.Override(&ov.ValiStorage, o.ValiStorage)
		if d := g.v.RuntimeCluster.Ingress.Domains; len(d) > 0 {
			ov.IngressDomain = d[0]
		}
		g.secret("plutono_admin", render.SecretSpec{Name: plutonoAdmin, Class: "password"}, "")
		objs, err := observability.Objects(ov)
		if err != nil {
			return fmt.Errorf("observability: %w", err)
		}
		// After nginx-ingress, whose IngressClass Plutono's Ingress names.
		g.add("observability", "observability", objs, "gardener_resource_manager", "nginx_ingress", "plutono_admin")
	}
	g.systemParts = system
	return nil
}
