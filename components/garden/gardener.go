package garden

import (
	"fmt"

	"github.com/declarative-gardener/gardener/components/component"
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
	// common sets what the four components share; a log level the landscape leaves unset keeps
	// the component's default.
	common := func(c *gardenercontrolplane.Common, logLevel string, gates map[string]bool) {
		c.Cluster, c.VirtualCluster, c.Namespace = decode.Cluster{Name: g.runtime}, decode.Cluster{Name: g.virtual}, Namespace
		c.Images, c.HighAvailability, c.FeatureGates = g.images(), ha, gates
		component.Override(&c.LogLevel, lower(logLevel))
		c.GenericKubeconfigSecretName = GenericKubeconfigSecretName
	}
	gardenerCA := render.GeneratedRef(Namespace, secretGardenerCA, "ca.crt", true)
	g.secret("ca_gardener", render.SecretSpec{Name: secretGardenerCA, Class: "ca", CommonName: "gardener"}, "")

	// gardener-apiserver
	api := gardenerapiserver.Type.Defaults()
	common(&api.Common, "", nil)
	api.ClusterIdentity = gd.ClusterIdentity
	api.EtcdEndpoint, api.EtcdCASecretName, api.EtcdClientSecretName = etcd.Endpoint(prefix, etcd.RoleMain, Namespace), secretEtcdCA, secretEtcdClient
	api.EncryptionConfigSecretName, api.TLSSecretName, api.CABundle = secretGAPIEncryption, secretGardenerAPI, gardenerCA
	api.RuntimeServiceAddress = "gardener-apiserver." + Namespace + ".svc.cluster.local"
	if api.ClusterIdentity == "" {
		api.ClusterIdentity = g.name
	}
	var extra []string
	if a := gd.APIServer; a != nil {
		extra = a.EncryptedResources
		api.EncryptedResources, api.AuditPolicyConfigMapName, api.DefaultWatchCacheSize = a.EncryptedResources, a.AuditPolicyConfigMap, a.WatchCacheDefaultSize
		api.RegisterAPIServices, api.FeatureGates = a.RegisterAPIServices, a.FeatureGates
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
	adm := gardeneradmissioncontroller.Type.Defaults()
	adm.TLSSecretName, adm.CABundle, adm.AdmissionWebhooks = secretGardenerAdmssion, gardenerCA, g.v.AdmissionWebhooks
	common(&adm.Common, "", nil)
	if a := gd.AdmissionController; a != nil {
		component.Override(&adm.Common.LogLevel, lower(a.LogLevel))
		component.Override(&adm.ResourceSizeMode, a.ResourceSizeMode)
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
	gcm := g.controllerManager()
	common(&gcm.Common, "", nil)
	if c := gd.ControllerManager; c != nil {
		common(&gcm.Common, c.LogLevel, c.FeatureGates)
	}
	gcmObjs, err := gardenercontrollermanager.Objects(gcm)
	if err != nil {
		return fmt.Errorf("gardener-controller-manager: %w", err)
	}
	g.add("gardener_controller_manager", "gardener_controller_manager", gcmObjs, "gardener_apiserver")
	sch := gardenerscheduler.Type.Defaults()
	common(&sch.Common, "", nil)
	if s := gd.Scheduler; s != nil {
		common(&sch.Common, s.LogLevel, s.FeatureGates)
	}
	schObjs, err := gardenerscheduler.Objects(sch)
	if err != nil {
		return fmt.Errorf("gardener-scheduler: %w", err)
	}
	g.add("gardener_scheduler", "gardener_scheduler", schObjs, "gardener_apiserver")
	return nil
}

// controllerManager is gardener-controller-manager's own configuration: the component's defaults
// with what the garden's controller_manager block sets beyond what all four control plane
// components share. The project controllers' settings in it are the garden's output
// project_controller, the shoot loops' settings its output gardener_controller_manager, which it
// hands to seeds and shoots.
func (g *builder) controllerManager() gardenercontrollermanager.Values {
	gcm := gardenercontrollermanager.Type.Defaults()
	gd := g.v.VirtualCluster.Gardener
	if gd == nil || gd.ControllerManager == nil {
		return gcm
	}
	c := gd.ControllerManager
	gcm.Values = c.Values
	component.Override(&gcm.ShootHibernationTriggerDeadline, c.ShootHibernationTriggerDeadline)
	component.Override(&gcm.ShootQuotaSyncPeriod, c.ShootQuotaSyncPeriod)
	component.Override(&gcm.ShootRetryPeriod, c.ShootRetryPeriod)
	component.Override(&gcm.ShootRetryJitterPeriod, c.ShootRetryJitterPeriod)
	if r := c.ShootMaintenanceRestartControlPlane; r != nil {
		gcm.ShootMaintenanceRestartControlPlane = *r
	}
	if r := c.ShootMaintenanceRestartCoreAddons; r != nil {
		gcm.ShootMaintenanceRestartCoreAddons = *r
	}
	return gcm
}
