package seed

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/components/clusterautoscaler"
	"github.com/declarative-gardener/gardener/components/crds"
	"github.com/declarative-gardener/gardener/components/dependencywatchdog"
	"github.com/declarative-gardener/gardener/components/etcddruid"
	"github.com/declarative-gardener/gardener/components/gardenlet"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/istio"
	"github.com/declarative-gardener/gardener/components/machinecontrollermanager"
	"github.com/declarative-gardener/gardener/components/namespace"
	"github.com/declarative-gardener/gardener/components/nginxingress"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/components/reserveexcesscapacity"
	"github.com/declarative-gardener/gardener/components/resourcemanager"
	"github.com/declarative-gardener/gardener/components/vpa"
	"github.com/declarative-gardener/gardener/engine/render"
	"sigs.k8s.io/yaml"
)

// The seed's generated Secrets in its garden namespace.
const (
	secretSeedCA          = "ca-seed"
	secretResourceManager = "gardener-resource-manager-server"
)

// IngressNamespace is the namespace of the seed's default Istio ingress gateway (Gardener's "Istio"
// docs/operations/istio.md).
const IngressNamespace = "istio-ingress"

// ZoneIngressNamespace is the namespace of the gateway pinned to one zone (Gardener's
// docs/operations/istio.md).
func ZoneIngressNamespace(zone string) string { return ZoneGatewayNamespace(IngressNamespace, zone) }

// ZoneGatewayNamespace is the namespace of a gateway's variant pinned to a zone, for control
// planes in that zone (Gardener's docs/operations/istio.md): <namespace>--<zone>, or, when that is
// longer than a DNS label allows, <namespace>--<the first five hex digits of the zone's SHA-256>
// (GetIstioNamespaceForZone in pkg/component/shared/istio.go at Gardener v1.120.0).
func ZoneGatewayNamespace(namespace, zone string) string {
	if ns := namespace + "--" + zone; len(ns) <= validation.DNS1035LabelMaxLength {
		return ns
	}
	sum := sha256.Sum256([]byte(zone))
	return namespace + "--" + hex.EncodeToString(sum[:])[:5]
}

// ZoneGatewayLabels are the pod labels of a gateway's variant pinned to a zone: the gateway's
// labels with the zone appended as --zone--<zone> to its istio label, else to its
// gardener.cloud/role label (an ExposureClass handler's), else istio=ingressgateway--zone--<zone>
// (GetIstioZoneLabels in pkg/component/shared/istio.go at Gardener v1.120.0).
func ZoneGatewayLabels(labels map[string]string, zone string) map[string]string {
	key, value := "istio", "ingressgateway"
	if v, ok := labels["istio"]; ok {
		value = v
	} else if v, ok := labels["gardener.cloud/role"]; ok {
		key, value = "gardener.cloud/role", v
	}
	return merge(labels, map[string]string{key: value + "--zone--" + zone})
}

// base: PriorityClasses, the garden namespace, the extension CRDs and the seed CA.
func (b *builder) base() error {
	if err := b.priorityClasses(func(string) bool { return true }); err != nil {
		return err
	}
	if err := b.gardenNamespace(map[string]string{"high-availability-config.resources.gardener.cloud/consider": "true"}); err != nil {
		return err
	}
	// The CRDs of the extension resources shoots and the seed itself are made of (Gardener's
	// "gardenlet" docs/concepts/gardenlet.md), and the machine.sapcloud.io kinds the shoots'
	// machine-controller-managers work on (Gardener's "Architecture" docs/concepts/architecture.md:
	// "machine CRDs" come before the shoots' machines).
	var names []string
	for _, n := range crds.Names() {
		if strings.HasSuffix(n, ".extensions.gardener.cloud") || slices.Contains(machinecontrollermanager.CRDNames, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var typed []runtime.Object
	for _, n := range names {
		crd, err := crds.Object(n)
		if err != nil {
			return err
		}
		typed = append(typed, crd)
	}
	objs, err := kube.Typed(b.cluster, typed...)
	if err != nil {
		return err
	}
	b.add("extension_crds", "manifests", objs)
	// The VPA's CRDs come with the seed's other CRDs, before gardener-resource-manager
	// (reconciler_reconcile.go: "Deploying VPA-related custom resource definitions", unless the
	// seed brings its own VPA).
	if !b.runtimeAsSeed && b.settings().VerticalPodAutoscalerEnabled {
		vpaCRDs, err := vpa.CRDObjects(b.cluster)
		if err != nil {
			return err
		}
		b.add("vpa_crds", "manifests", vpaCRDs)
	}
	if !b.runtimeAsSeed { // signs the webhooks of the seed's own resource manager and VPA
		b.secret("ca_seed", render.SecretSpec{Name: secretSeedCA, Class: "ca", CommonName: "seed-" + b.name}, "")
	}
	return nil
}

// systemComponents: gardener-resource-manager first, then the components it brings up in
// Gardener (Gardener's docs/concepts/gardenlet.md), each left out where the garden already runs it.
func (b *builder) systemComponents() error {
	cluster := decode.Cluster{Name: b.cluster}
	s := b.settings()
	first := []string{"priority_classes"}
	if !b.runtimeAsSeed {
		first = append(first, "garden_namespace")
		b.secret("gardener_resource_manager_tls", render.SecretSpec{Name: secretResourceManager, Class: "server-cert",
			CommonName: "gardener-resource-manager", DNSNames: resourcemanager.ServiceDNSNames(GardenNamespace), CA: secretSeedCA}, "ca_seed")
		grmVals := resourcemanager.Type.Defaults()
		grmVals.Cluster, grmVals.Namespace, grmVals.Class = cluster, GardenNamespace, "seed"
		grmVals.CABundle, grmVals.ServerTLSSecretName = render.GeneratedRef(GardenNamespace, secretSeedCA, "ca.crt", true), secretResourceManager
		// The seed's own classes (Gardener's "Priority Classes" docs/development/priority-classes.md);
		// the garden's exist only in the runtime cluster.
		grmVals.PriorityClassName, grmVals.AdmissionWebhooks = priorityclasses.SystemCritical, b.v.AdmissionWebhooks
		grm, err := resourcemanager.Objects(grmVals)
		if err != nil {
			return fmt.Errorf("gardener-resource-manager: %w", err)
		}
		b.add("gardener_resource_manager", "gardener_resource_manager", grm, append(first, "gardener_resource_manager_tls")...)
		first = []string{"gardener_resource_manager"}

		b.secret("etcd_druid_webhook_tls", render.SecretSpec{Name: etcddruid.DefaultWebhookTLSSecretName, Class: "server-cert",
			CommonName: etcddruid.Name + "." + GardenNamespace + ".svc", DNSNames: kube.ServiceDNSNames(etcddruid.Name, GardenNamespace), CA: secretSeedCA}, "ca_seed")
		druidVals := etcddruid.Type.Defaults()
		druidVals.Cluster, druidVals.Namespace, druidVals.PriorityClassName = cluster, GardenNamespace, priorityclasses.System800
		druidVals.AdmissionWebhooks, druidVals.CABundle = b.v.AdmissionWebhooks, render.GeneratedRef(GardenNamespace, secretSeedCA, "ca.crt", true)
		druid, err := etcddruid.Objects(druidVals)
		if err != nil {
			return fmt.Errorf("etcd-druid: %w", err)
		}
		b.add("etcd_druid", "etcd_druid", druid, append(first, "etcd_druid_webhook_tls")...)
		if s.VerticalPodAutoscalerEnabled {
			b.secret("vpa_admission_controller_tls", render.SecretSpec{Name: vpa.DefaultTLSSecretName, Class: "server-cert",
				CommonName: vpa.WebhookServiceName + "." + GardenNamespace + ".svc", DNSNames: kube.ServiceDNSNames(vpa.WebhookServiceName, GardenNamespace), CA: secretSeedCA}, "ca_seed")
			vpaVals := vpa.Type.Defaults()
			vpaVals.Cluster, vpaVals.Namespace = cluster, GardenNamespace
			vpaVals.CABundle, vpaVals.TLSSecretName, vpaVals.CASecretName = render.GeneratedRef(GardenNamespace, secretSeedCA, "ca.crt", true), vpa.DefaultTLSSecretName, secretSeedCA
			vpaVals.PriorityClasses, vpaVals.AdmissionWebhooks = vpa.SeedPriorityClass, b.v.AdmissionWebhooks
			vpaVals.OmitCRDs = true
			objs, err := vpa.Objects(vpaVals)
			if err != nil {
				return fmt.Errorf("vpa: %w", err)
			}
			b.add("vpa", "vpa", objs, append(first, "vpa_crds", "vpa_admission_controller_tls")...)
		}
		// nginx-ingress behind the seed's Istio ingress gateway, which passes TLS for the ingress
		// domain through to it (newNginxIngressController in
		// pkg/gardenlet/controller/seed/seed/components.go); the Istio objects need Istio's CRDs.
		ngxVals := nginxingress.Type.Defaults()
		ngxVals.Cluster, ngxVals.Namespace = cluster, GardenNamespace
		ngxVals.PriorityClassName, ngxVals.LoadBalancerAnnotations = priorityclasses.System600, b.loadBalancerAnnotations("")
		if b.v.Ingress.Domain != "" {
			ngxVals.Istio = &nginxingress.Istio{GatewayLabels: IngressGatewayLabels(""), Domains: []string{"*." + b.v.Ingress.Domain}}
		}
		ngx, err := nginxingress.Objects(ngxVals)
		if err != nil {
			return fmt.Errorf("nginx-ingress: %w", err)
		}
		b.add("nginx_ingress", "nginx_ingress", ngx, append(first, "istio")...)
	}
	istioVals := istio.Type.Defaults()
	istioVals.Cluster, istioVals.PriorityClassName, istioVals.GatewaysOnly = cluster, priorityclasses.SystemCritical, b.runtimeAsSeed
	istioVals.HighAvailability, istioVals.IngressGateways = len(b.v.Provider.Zones) > 1, b.gateways()
	istioVals.Zones = b.v.Provider.Zones
	ist, err := istio.Objects(istioVals)
	if err != nil {
		return fmt.Errorf("istio: %w", err)
	}
	b.add("istio", "istio", ist, first...)

	// dependency-watchdog prober and weeder (Gardener's "Seed Bootstrapping"
	// docs/operations/seed_bootstrapping.md, "Seed Settings" docs/operations/seed_settings.md).
	dwd := dependencywatchdog.Type.Defaults()
	dwd.Cluster, dwd.Namespace = cluster, GardenNamespace
	if d := s.DependencyWatchdog; d != nil {
		dwd.ProberEnabled, dwd.WeederEnabled = d.ProberEnabled, d.WeederEnabled
	}
	if dwd.ProberEnabled || dwd.WeederEnabled {
		objs, err := dependencywatchdog.Objects(dwd)
		if err != nil {
			return fmt.Errorf("dependency-watchdog: %w", err)
		}
		// After gardener-resource-manager, whose webhook mounts the ServiceAccount tokens, and the
		// VPA's CRDs, which the VerticalPodAutoscalers need (Gardener: after the system components'
		// sync point, which follows the CRDs).
		b.add("dependency_watchdog", "dependency_watchdog", objs, b.systemDeps()...)
	}
	// The seed-wide ClusterRoles the shoots' machine-controller-managers and cluster-autoscalers
	// are bound to (seed flow in pkg/gardenlet/controller/seed/seed/components.go at Gardener
	// v1.120.0).
	var bootstrap []render.Object
	for _, objects := range []func(string, string) ([]render.Object, error){machinecontrollermanager.SeedBootstrap, clusterautoscaler.SeedBootstrap} {
		objs, err := objects(b.cluster, GardenNamespace)
		if err != nil {
			return fmt.Errorf("machine controller bootstrap: %w", err)
		}
		bootstrap = append(bootstrap, objs...)
	}
	b.add("machine_controllers_bootstrap", "manifests", bootstrap, first...)
	// Pause pods keeping capacity free for new control planes (Gardener's
	// docs/operations/seed_settings.md).
	if s.ExcessCapacityReservationEnabled {
		recVals := reserveexcesscapacity.Type.Defaults()
		recVals.Cluster, recVals.Namespace, recVals.Zones = cluster, GardenNamespace, len(b.v.Provider.Zones)
		objs, err := reserveexcesscapacity.Objects(recVals)
		if err != nil {
			return fmt.Errorf("reserve-excess-capacity: %w", err)
		}
		b.add("reserve_excess_capacity", "reserve_excess_capacity", objs, "priority_classes")
	}
	return nil
}

// systemDeps are the parts the seed's later system components wait for: the priority classes and,
// where the seed runs its own, gardener-resource-manager and the VPA's CRDs.
func (b *builder) systemDeps() []string {
	deps := []string{"priority_classes"}
	if !b.runtimeAsSeed {
		deps = append(deps, "gardener_resource_manager")
		if b.settings().VerticalPodAutoscalerEnabled {
			deps = append(deps, "vpa_crds")
		}
	}
	return deps
}

// gardenletNamespace: for a seed handed to gardenlet, the garden namespace gardenlet runs in
// (where the seed is not the garden's runtime cluster, whose garden part has it) and the
// PriorityClass of gardenlet's chart (charts/gardener/gardenlet/templates/priorityclass.yaml at
// Gardener v1.120.0); gardenlet deploys the seed's other classes itself.
func (b *builder) gardenletNamespace() error {
	if err := b.priorityClasses(func(name string) bool { return name == priorityclasses.SystemCritical }); err != nil {
		return err
	}
	return b.gardenNamespace(nil)
}

// priorityClasses adds the part priority_classes with the seed's classes that keep names.
func (b *builder) priorityClasses(keep func(name string) bool) error {
	vals := priorityclasses.Type.Defaults()
	vals.Cluster, vals.Set = decode.Cluster{Name: b.cluster}, priorityclasses.Seed
	pcs, err := priorityclasses.Objects(vals)
	if err != nil {
		return err
	}
	pcs = slices.DeleteFunc(pcs, func(o render.Object) bool { return !keep(o.Object.GetName()) })
	b.add("priority_classes", "priority_classes", pcs)
	return nil
}

// gardenNamespace adds the part garden_namespace with the labels, except in the garden's runtime
// cluster, where the garden's own part creates the namespace.
func (b *builder) gardenNamespace(labels map[string]string) error {
	if b.runtimeAsSeed {
		return nil
	}
	vals := namespace.Type.Defaults()
	vals.Cluster, vals.Name, vals.Labels = decode.Cluster{Name: b.cluster}, GardenNamespace, labels
	ns, err := namespace.Objects(vals)
	if err != nil {
		return err
	}
	b.add("garden_namespace", "namespace", ns)
	return nil
}

// gardenlet, for a seed handed to it: gardenlet with the Seed's spec as its seed configuration,
// which registers the Seed and brings up the seed's system components. It gets its garden kubeconfig by TLS bootstrapping (Gardener's
// docs/concepts/gardenlet.md, "Deploy Gardenlet Manually"
// docs/deployment/deploy_gardenlet_manually.md): a bootstrap token the engine generates in the
// virtual garden's kube-system (its group system:bootstrappers may request the client certificate
// that gardener-controller-manager approves, Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md) and a bootstrap kubeconfig with it, which gardenlet deletes
// once it has its own (Gardener's docs/concepts/gardenlet.md); the kubeconfig is create-only, so
// the engine does not bring it back.
func (b *builder) gardenlet() error {
	id := BootstrapTokenID(b.name)
	token := "bootstrap-token-" + id
	b.parts = append(b.parts, render.SecretPart("gardenlet_bootstrap_token", b.virtual, "kube-system", render.SecretSpec{
		Name: token, Class: "bootstrap-token", CommonName: fmt.Sprintf("Token to be used by the gardenlet for Seed `%s`.", b.name),
	}))
	bootstrap, err := b.bootstrapKubeconfig(id + "." + render.GeneratedRef("kube-system", token, "token-secret", false))
	if err != nil {
		return err
	}
	gl := gardenlet.Type.Defaults()
	gl.Cluster, gl.Namespace, gl.SeedName, gl.SeedSpec = decode.Cluster{Name: b.cluster}, GardenNamespace, b.name, b.spec()
	gl.GardenClusterAddress = b.v.Garden.VirtualEndpoint
	gl.ExposureClassHandlers, gl.BootstrapKubeconfig = b.exposureClassHandlers(), bootstrap
	objs, err := gardenlet.Objects(gl)
	if err != nil {
		return fmt.Errorf("gardenlet: %w", err)
	}
	deps := []string{"priority_classes", "gardenlet_bootstrap_token"}
	if !b.runtimeAsSeed {
		deps = append(deps, "garden_namespace")
	}
	b.add("gardenlet", "gardenlet", objs, deps...)
	return nil
}

// BootstrapTokenID is the id of a seed's bootstrap token: six characters of [a-z0-9] derived from
// the seed's name, so that every plan names the same token Secret (bootstrap-token-<id>).
func BootstrapTokenID(seed string) string {
	sum := sha256.Sum256([]byte("gardenlet-bootstrap/" + seed))
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	id := make([]byte, 6)
	for i := range id {
		id[i] = alphabet[int(sum[i])%len(alphabet)]
	}
	return string(id)
}

// bootstrapKubeconfig is the kubeconfig gardenlet bootstraps with: the garden's API and CA, and
// the bootstrap token as its bearer token (Gardener's
// docs/deployment/deploy_gardenlet_manually.md).
func (b *builder) bootstrapKubeconfig(token string) (string, error) {
	cluster := map[string]any{"server": b.v.Garden.VirtualEndpoint}
	switch ca := b.v.Garden.CABundle; {
	case strings.HasPrefix(ca, "${generated:") && strings.HasSuffix(ca, ":pem}"):
		// Not generated yet when the seed renders: the marker, asking for base64.
		cluster["certificate-authority-data"] = strings.TrimSuffix(ca, ":pem}") + ":base64}"
	case ca != "":
		cluster["certificate-authority-data"] = base64.StdEncoding.EncodeToString([]byte(ca))
	}
	cfg := map[string]any{
		"apiVersion":      "v1",
		"kind":            "Config",
		"current-context": "gardenlet-bootstrap@default",
		"clusters":        []any{map[string]any{"name": "default", "cluster": cluster}},
		"contexts":        []any{map[string]any{"name": "gardenlet-bootstrap@default", "context": map[string]any{"cluster": "default", "user": "gardenlet-bootstrap"}}},
		"users":           []any{map[string]any{"name": "gardenlet-bootstrap", "user": map[string]any{"token": token}}},
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return "", fmt.Errorf("gardenlet bootstrap kubeconfig: %w", err)
	}
	return string(out), nil
}

// gateways are the seed's Istio ingress gateways: the default one in istio-ingress spanning all
// zones, and with several zones one per zone for control planes pinned to it (Gardener's
// docs/operations/istio.md). They expose 443 as port tcp (SNI to shoot API servers) and 8132 as
// tls-tunnel (reversed VPN) (Gardener's "Control Plane Endpoints And Ports"
// docs/usage/advanced/control-plane-endpoints-and-ports.md); the legacy apiserver-proxy port 8443
// is gone, as with Gardener v1.120.0's default RemoveAPIServerProxyLegacyPort feature gate
// (pkg/features/features.go).
func (b *builder) gateways() []istio.Gateway {
	ports := []istio.Port{
		{Name: "tcp", Port: 443, TargetPort: 9443},
		{Name: "tls-tunnel", Port: istio.VPNPort, TargetPort: istio.VPNPort},
	}
	gateway := func(namespace string, labels map[string]string, zone string, annotations map[string]string) istio.Gateway {
		gw := istio.GatewayDefaults()
		gw.Namespace, gw.Labels, gw.Zone, gw.LoadBalancerAnnotations, gw.Ports = namespace, labels, zone, annotations, ports
		// Every seed gateway carries the shoots' reversed VPN and forwards to their API servers
		// (newIstio in pkg/gardenlet/controller/seed/seed/components.go at Gardener v1.120.0).
		gw.VPN = true
		gw.NetworkPolicyLabels = map[string]string{"networking.resources.gardener.cloud/to-all-shoots-kube-apiserver-tcp-443": "allowed"}
		return gw
	}
	out := []istio.Gateway{gateway(IngressNamespace, IngressGatewayLabels(""), "", b.loadBalancerAnnotations(""))}
	if len(b.v.Provider.Zones) > 1 {
		for _, z := range b.v.Provider.Zones {
			out = append(out, zonal(gateway(ZoneIngressNamespace(z), IngressGatewayLabels(z), z, b.loadBalancerAnnotations(z)), IngressNamespace))
		}
	}
	// One gateway per ExposureClass handler, with its own load balancer (Gardener's "ExposureClasses"
	// docs/usage/networking/exposureclasses.md), and on a multi-zone seed one more per zone for
	// single-zone control planes (Gardener's docs/operations/istio.md).
	for _, h := range b.v.ExposureClassHandlers {
		annotations := merge(b.loadBalancerAnnotations(""), h.LoadBalancerAnnotations)
		out = append(out, gateway(h.Namespace(), h.Labels(), "", annotations))
		if len(b.v.Provider.Zones) > 1 {
			for _, z := range b.v.Provider.Zones {
				out = append(out, zonal(gateway(ZoneGatewayNamespace(h.Namespace(), z), ZoneGatewayLabels(h.Labels(), z), z, merge(b.loadBalancerAnnotations(z), h.LoadBalancerAnnotations)), h.Namespace()))
			}
		}
	}
	return out
}

// zonal records the namespace earlier versions of the engine gave a zonal gateway,
// <namespace>--zone--<zone>, which its namespace now supersedes: plans replace the old namespace
// and what the seed applied in it (with the reason superseded) by the new one.
func zonal(gw istio.Gateway, namespace string) istio.Gateway {
	gw.PreviousNamespace = namespace + "--zone--" + gw.Zone
	return gw
}

// exposureClassHandlers is gardenlet's exposureClassHandlers configuration (Gardener's
// docs/usage/networking/exposureclasses.md).
func (b *builder) exposureClassHandlers() []any {
	var out []any
	for _, h := range b.v.ExposureClassHandlers {
		handler := map[string]any{
			"name": h.Name,
			"sni":  map[string]any{"ingress": map[string]any{"namespace": h.Namespace(), "labels": kube.AnyMap(h.Labels())}},
		}
		if len(h.LoadBalancerAnnotations) > 0 {
			handler["loadBalancerService"] = map[string]any{"annotations": kube.AnyMap(h.LoadBalancerAnnotations)}
		}
		out = append(out, handler)
	}
	return out
}

// merge returns the entries of a overridden by b's, nil when both are empty.
func merge(a, b map[string]string) map[string]string {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// loadBalancerAnnotations are the seed's (and a zone's) LoadBalancer annotations.
func (b *builder) loadBalancerAnnotations(zone string) map[string]string {
	s := b.v.Settings
	if s == nil || s.LoadBalancerServices == nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range s.LoadBalancerServices.Annotations {
		out[k] = v
	}
	for _, z := range s.LoadBalancerServices.Zones {
		if z.Name == zone {
			for k, v := range z.Annotations {
				out[k] = v
			}
		}
	}
	return out
}

// IngressGatewayLabels are the pod labels of the seed's Istio ingress gateway ("" for the
// default one, else the one pinned to zone): what shoot API servers' Istio Gateways select. They
// carry a role of their own, so that the seed's Gateways never select the virtual garden's
// gateway pods when the seed is the garden runtime cluster.
func IngressGatewayLabels(zone string) map[string]string {
	l := map[string]string{"app": "istio-ingressgateway", "istio": "ingressgateway", "gardener.cloud/role": "seed-ingress"}
	if zone != "" {
		return ZoneGatewayLabels(l, zone)
	}
	return l
}
