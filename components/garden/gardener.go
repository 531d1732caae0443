package garden

import (
	"fmt"

	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/etcd"
	"github.com/declarative-gardener/gardener/components/gardeneradmissioncontroller"
	"github.com/declarative-gardener/gardener/components/gardenerapiserver"
	"github.com/declarative-gardener/gardener/components/gardenercontrollermanager"
	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/gardenerscheduler"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// gardenerControlPlane: gardener-apiserver on the virtual garden's main etcd (Gardener's "Gardener
// Operator" docs/concepts/operator.md, "Topology Aware Routing"
// docs/operations/topology_aware_routing.md), then the admission controller, which "can only start
// when gardener-apiserver runs" (Gardener's "Scoped API Access for gardenlets and Extensions"
// docs/deployment/gardenlet_api_access.md), the controller manager and the scheduler.
func (g *builder) gardenerControlPlane() error {
	gd := g.v.VirtualCluster.Gardener
	ha := g.v.VirtualCluster.HighAvailability
	common := func(logLevel string, gates map[string]bool) gardenercontrolplane.Common {
		return gardenercontrolplane.Common{
			Cluster: decode.Cluster{Name: g.runtime}, VirtualCluster: decode.Cluster{Name: g.virtual}, Namespace: Namespace,
			Images: g.images(), HighAvailability: ha, LogLevel: lower(logLevel), FeatureGates: gates,
			GenericKubeconfigSecretName: GenericKubeconfigSecretName,
		}
	}
	gardenerCA := render.GeneratedRef(Namespace, secretGardenerCA, "ca.crt", true)
	g.secret("ca_gardener", render.SecretSpec{Name: secretGardenerCA, Class: "ca", CommonName: "gardener"}, "")

	// gardener-apiserver
	api := gardenerapiserver.Values{
		Common: common("", nil), ClusterIdentity: gd.ClusterIdentity,
		EtcdEndpoint: etcd.Endpoint(prefix, etcd.RoleMain, Namespace), EtcdCASecretName: secretEtcdCA, EtcdClientSecretName: secretEtcdClient,
		EncryptionConfigSecretName: secretGAPIEncryption, TLSSecretName: secretGardenerAPI, CABundle: gardenerCA,
		RegisterAPIServices: ptr.To(true), RuntimeServiceAddress: "gardener-apiserver." + Namespace + ".svc.cluster.local",
	}
	if api.ClusterIdentity == "" {
		api.ClusterIdentity = g.name
	}
	var extra []string
	if a := gd.APIServer; a != nil {
		extra = a.EncryptedResources
		api.EncryptedResources, api.AuditPolicyConfigMapName, api.DefaultWatchCacheSize = a.EncryptedResources, a.AuditPolicyConfigMap, a.WatchCacheDefaultSize
		api.RegisterAPIServices, api.FeatureGates = ptr.To(a.RegisterAPIServices), a.FeatureGates
	}
	encrypted, err := gardenerapiserver.EncryptedResources(extra)
	if err != nil {
		return fmt.Errorf("virtual_cluster.gardener.api_server.encrypted_resources: %w", err)
	}
	g.secret("gardener_apiserver_encryption", render.SecretSpec{Name: secretGAPIEncryption, Class: "encryption-config", Resources: encrypted}, "")
	g.secret("gardener_apiserver_tls", render.SecretSpec{
		Name: secretGardenerAPI, Class: "server-cert", CommonName: "gardener-apiserver",
		DNSNames: append(kube.ServiceDNSNames("gardener-apiserver", Namespace), "gardener-apiserver.kube-system", "gardener-apiserver.kube-system.svc"), CA: secretGardenerCA,
	}, "ca_gardener")
	apiObjs, err := gardenerapiserver.Objects(api)
	if err != nil {
		return fmt.Errorf("gardener-apiserver: %w", err)
	}
	g.add("gardener_apiserver", "gardener_apiserver", apiObjs,
		"virtual_garden_kube_apiserver", "virtual_garden_etcd_main", "virtual_garden_access", "gardener_apiserver_tls", "gardener_apiserver_encryption")

	// gardener-admission-controller
	adm := gardeneradmissioncontroller.Values{TLSSecretName: secretGardenerAdmssion, CABundle: gardenerCA, AdmissionWebhooks: g.webhooks()}
	adm.Common = common("", nil)
	if a := gd.AdmissionController; a != nil {
		adm.Common.LogLevel, adm.ResourceSizeMode = lower(a.LogLevel), a.ResourceSizeMode
	}
	g.secret("gardener_admission_controller_tls", render.SecretSpec{
		Name: secretGardenerAdmssion, Class: "server-cert", CommonName: "gardener-admission-controller",
		DNSNames: kube.ServiceDNSNames("gardener-admission-controller", Namespace), CA: secretGardenerCA,
	}, "ca_gardener")
	admObjs, err := gardeneradmissioncontroller.Objects(adm)
	if err != nil {
		return fmt.Errorf("gardener-admission-controller: %w", err)
	}
	g.add("gardener_admission_controller", "gardener_admission_controller", admObjs, "gardener_apiserver", "gardener_admission_controller_tls")

	// gardener-controller-manager and gardener-scheduler
	gcm := gardenercontrollermanager.Values{Common: common("", nil)}
	if c := gd.ControllerManager; c != nil {
		gcm.Common = common(c.LogLevel, c.FeatureGates)
	}
	gcmObjs, err := gardenercontrollermanager.Objects(gcm)
	if err != nil {
		return fmt.Errorf("gardener-controller-manager: %w", err)
	}
	g.add("gardener_controller_manager", "gardener_controller_manager", gcmObjs, "gardener_apiserver")
	sch := gardenerscheduler.Values{Common: common("", nil)}
	if s := gd.Scheduler; s != nil {
		sch.Common = common(s.LogLevel, s.FeatureGates)
	}
	schObjs, err := gardenerscheduler.Objects(sch)
	if err != nil {
		return fmt.Errorf("gardener-scheduler: %w", err)
	}
	g.add("gardener_scheduler", "gardener_scheduler", schObjs, "gardener_apiserver")
	return nil
}
