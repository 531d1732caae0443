package shoot

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/clusterautoscaler"
	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/components/kubecontrollermanager"
	"github.com/declarative-gardener/gardener/components/kubescheduler"
	"github.com/declarative-gardener/gardener/components/machinecontrollermanager"
	"github.com/declarative-gardener/gardener/components/namespace"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/components/resourcemanager"
	"github.com/declarative-gardener/gardener/components/seed"
	"github.com/declarative-gardener/gardener/components/vpnseedserver"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The generated Secrets in the control-plane namespace, named as Gardener's secrets manager
// names them where Gardener's documentation shows it (Gardener's "Secrets Management"
// docs/development/secrets_management.md).
const (
	secretCA              = "ca"
	secretClientCA        = "ca-client"
	secretFrontProxyCA    = "ca-front-proxy"
	secretEtcdCA          = "ca-etcd"
	secretEtcdPeerCA      = "ca-etcd-peer"
	secretVPNCA           = "ca-vpn"
	secretEtcdClient      = "etcd-client"
	secretKubeAPIServer   = "kube-apiserver"
	secretKubeAggregator  = "kube-aggregator"
	secretServiceAccount  = "service-account-key"
	secretKAPIEncryption  = "kube-apiserver-etcd-encryption-configuration"
	secretVPNServer       = "vpn-seed-server"
	secretVPNTLSAuth      = "vpn-seed-server-tlsauth"
	secretVPNShootClient  = "vpn-shoot-client"
	secretMetricsServer   = "metrics-server"
	secretResourceManager = "gardener-resource-manager-server"
	secretGenericToken    = "generic-token-kubeconfig"
	secretKCMAccess       = "shoot-access-kube-controller-manager"
	secretKCMServer       = "kube-controller-manager-server"
	secretSchedulerServer = "kube-scheduler-server"
	secretKubeletCA       = "ca-kubelet"
)

// base: the control-plane namespace with gardenlet's labels and annotations
// (DeployControlPlaneNamespace in pkg/gardenlet/operation/botanist/namespaces.go at Gardener
// v1.120.0), and the Cluster.
func (b *builder) base() error {
	nsVals := namespace.Type.Defaults()
	nsVals.Cluster, nsVals.Name = decode.Cluster{Name: b.seed.Cluster}, b.ns
	nsVals.Labels, nsVals.Annotations = b.namespaceLabels(), b.namespaceAnnotations()
	ns, err := namespace.Objects(nsVals)
	if err != nil {
		return err
	}
	b.add("namespace", "namespace", ns)

	cluster, err := shootextensionsCluster(b)
	if err != nil {
		return err
	}
	b.add("cluster", "manifests", []render.Object{cluster}, "namespace")
	return nil
}

// completeCluster renders the Cluster again once every part exists: the Shoot it embeds reports
// the addresses of the DNS records, which come after the Cluster in the flow.
func (b *builder) completeCluster() error {
	cluster, err := shootextensionsCluster(b)
	if err != nil {
		return err
	}
	b.part("cluster").Objects = []render.Object{cluster}
	return nil
}

// namespaceLabels are the labels gardenlet keeps on the control-plane namespace
// (pkg/gardenlet/operation/botanist/namespaces.go at Gardener v1.120.0). Extensions' webhooks and
// gardener-resource-manager select the namespace by them: the role, the seed's, the shoot's, the
// networking and the backup provider, one extensions.gardener.cloud/<type> label per Extension
// type the shoot needs, the privileged Pod Security level (the VPN server needs NET_ADMIN) and the
// high-availability webhook's opt-in.
func (b *builder) namespaceLabels() map[string]string {
	labels := map[string]string{
		LabelRole: "shoot", LabelShootProvider: b.v.Provider.Type, LabelSeedProvider: b.seed.ProviderType,
		LabelBackupProvider: b.seed.ProviderType, LabelPodSecurityEnforce: "privileged", LabelConsiderHA: "true",
	}
	if b.seed.BackupProvider != "" {
		labels[LabelBackupProvider] = b.seed.BackupProvider
	}
	if n := b.v.Networking; n != nil && n.Type != "" {
		labels[LabelNetworkingProvider] = n.Type
	}
	for _, t := range b.requiredExtensionTypes() {
		labels[LabelExtensionPrefix+t] = "true"
	}
	return labels
}

// requiredExtensionTypes are the Extension types gardenlet labels the namespace with
// (getShootRequiredExtensionTypes in pkg/gardenlet/operation/botanist/namespaces.go at Gardener
// v1.120.0): every type a registration enables for all shoots, and those the shoot lists, less
// those it disables; sorted. Unlike the Extension resources, the workerless support of a
// globally enabled type does not matter here.
func (b *builder) requiredExtensionTypes() []string {
	types := map[string]bool{}
	for t, l := range b.v.ExtensionLifecycles {
		if l.GloballyEnabled {
			types[t] = true
		}
	}
	for _, e := range b.v.Extensions {
		types[e.Type] = !e.Disabled
	}
	var out []string
	for t, required := range types {
		if required {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// namespaceAnnotations are the Shoot's UID, which gardenlet copies from its status.uid (known
// once the Shoot exists; the namespace comes after it), and the
// high-availability annotations gardener-resource-manager's webhook reads (Gardener's "High
// Availability Of Components" docs/development/high-availability-of-components.md): the failure
// tolerance type ("" without one) and, only on a seed with zones, the zones the control plane is
// pinned to.
func (b *builder) namespaceAnnotations() map[string]string {
	annotations := map[string]string{
		AnnotationShootUID:            b.statusUID(),
		AnnotationFailureToleranceTyp: b.tolerance,
	}
	if zones := b.zones(); len(zones) > 0 {
		annotations[AnnotationZones] = strings.Join(zones, ",")
	}
	return annotations
}

// shootUID is the Shoot's metadata.uid in the virtual garden, known after the Shoot is created.
func (b *builder) shootUID() string {
	return b.liveShootField("metadata.uid")
}

// statusUID is the Shoot's status.uid, which gardenlet sets from metadata.uid once and keeps when
// the control plane moves to another seed; metadata.uid until it is set. The namespace's
// annotation and the Cluster carry it.
func (b *builder) statusUID() string {
	return b.liveShootField("status.uid", "metadata.uid")
}

// liveShootField is the first of the Shoot's fields that holds a value, known once the Shoot
// exists.
func (b *builder) liveShootField(paths ...string) string {
	return render.LiveValue(render.LiveRef{
		Cluster: b.seed.VirtualCluster, Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots",
		Namespace: ProjectNamespace(b.v.Project), Name: b.name, Paths: paths,
	})
}

// credentials: the cloudprovider Secret, the infrastructure credentials gardenlet copies from
// the Secret the shoot's binding names into the control-plane namespace, where the
// Infrastructure, ControlPlane and Worker refer to it (Gardener's "Infrastructure"
// docs/extensions/resources/infrastructure.md). A workerless shoot has no infrastructure to reach.
func (b *builder) credentials() error {
	if len(b.v.Workers) == 0 {
		return nil
	}
	kind, name := "CredentialsBinding", b.v.CredentialsBinding
	if name == "" {
		kind, name = "SecretBinding", b.v.SecretBinding
	}
	if name == "" {
		return fmt.Errorf("credentials_binding or secret_binding is required for a shoot with workers")
	}
	b.parts = append(b.parts, render.Component{Name: "cloudprovider", Type: "secret_copy", DependsOn: []string{"namespace"}, Copy: &render.CopySpec{
		Cluster: b.seed.Cluster, Namespace: b.ns, Name: "cloudprovider",
		FromCluster: b.seed.VirtualCluster, BindingKind: kind, BindingNamespace: ProjectNamespace(b.v.Project), BindingName: name,
	}})
	return nil
}

// secrets: the CAs, certificates and keys of the control plane (Gardener's
// docs/development/secrets_management.md).
func (b *builder) secrets() error {
	b.secret("ca", render.SecretSpec{Name: secretCA, Class: "ca", CommonName: "kubernetes"}, "")
	// RSA, unlike the engine's other keys: gardener-apiserver signs the admin and viewer
	// kubeconfigs of the Shoot with it and reads only PKCS #1 RSA keys (DecodePrivateKey in
	// pkg/utils/encoding.go at Gardener v1.120.0, read by the adminkubeconfig subresource).
	b.secret("ca_client", render.SecretSpec{Name: secretClientCA, Class: "ca", CommonName: "kubernetes-client", KeyAlgorithm: "rsa"}, "")
	b.secret("ca_front_proxy", render.SecretSpec{Name: secretFrontProxyCA, Class: "ca", CommonName: "front-proxy"}, "")
	b.secret("ca_etcd", render.SecretSpec{Name: secretEtcdCA, Class: "ca", CommonName: "etcd"}, "")
	b.secret("etcd_client_tls", render.SecretSpec{Name: secretEtcdClient, Class: "client-cert", CommonName: "etcd-client", CA: secretEtcdCA}, "ca_etcd")
	if b.highAvailability() {
		b.secret("ca_etcd_peer", render.SecretSpec{Name: secretEtcdPeerCA, Class: "ca", CommonName: "etcd-peer"}, "")
	}
	// The serving certificate covers localhost, since the API server is exposed by SNI, and for a
	// shoot with workers the kubernetes Service's names and cluster IP; the technical ID (the
	// namespace) is among its names (computeKubeAPIServerServerCertificateConfig in
	// pkg/gardenlet/operation/botanist/kubeapiserver.go at Gardener v1.120.0).
	nodes := len(b.v.Workers) > 0
	serverIPs, err := kubeapiserver.ServerIPAddresses(b.services, nodes, true)
	if err != nil {
		return fmt.Errorf("kube-apiserver serving certificate: %w", err)
	}
	b.secret("kube_apiserver_tls", render.SecretSpec{
		Name: secretKubeAPIServer, Class: "server-cert", CommonName: kubeapiserver.Name(""),
		DNSNames:    append(kubeapiserver.ServerDNSNames("", b.ns, kubeapiserver.DefaultClusterDomain, []string{b.domain()}, nodes, true), b.ns),
		IPAddresses: serverIPs, CA: secretCA,
	}, "ca")
	b.secret("kube_aggregator_tls", render.SecretSpec{Name: secretKubeAggregator, Class: "client-cert", CommonName: kubeapiserver.AggregatorCommonName, CA: secretFrontProxyCA}, "ca_front_proxy")
	// The token of the health-check user the kube-apiserver's probes authenticate as.
	b.secret("kube_apiserver_health_check_token", render.SecretSpec{
		Name: kubeapiserver.DefaultHealthCheckTokenSecretName, Class: "token", Length: kubeapiserver.HealthCheckTokenLength,
	}, "")
	b.secret("service_account_key", render.SecretSpec{Name: secretServiceAccount, Class: "rsa-key"}, "")
	var extra []string
	if k := b.v.Kubernetes.KubeAPIServer; k != nil {
		extra = k.EncryptedResources
	}
	encrypted, err := kubeapiserver.EncryptedResources(b.v.Kubernetes.Version, extra)
	if err != nil {
		return fmt.Errorf("kubernetes.kube_api_server.encrypted_resources: %w", err)
	}
	b.secret("kube_apiserver_encryption", render.SecretSpec{Name: secretKAPIEncryption, Class: "encryption-config", Resources: encrypted}, "")
	if len(b.v.Workers) > 0 { // the VPN to the nodes
		b.vpnSecrets()
	}
	b.secret("gardener_resource_manager_tls", render.SecretSpec{
		Name: secretResourceManager, Class: "server-cert", CommonName: resourcemanager.Name,
		DNSNames: resourcemanager.ServiceDNSNames(b.ns), CA: secretCA,
	}, "ca")
	// kube-controller-manager's serving certificate, signed by the cluster CA
	// (pkg/component/kubernetes/controllermanager/controllermanager.go at Gardener v1.120.0).
	b.secret("kube_controller_manager_tls", render.SecretSpec{
		Name: secretKCMServer, Class: "server-cert", CommonName: kubecontrollermanager.Name(""),
		DNSNames: kube.ServiceDNSNames(kubecontrollermanager.Name(""), b.ns), CA: secretCA,
	}, "ca")
	if len(b.v.Workers) > 0 {
		// The kubelet CA, which kube-controller-manager signs kubelet serving certificates with
		// (pkg/gardenlet/operation/botanist/secrets.go at Gardener v1.120.0), and the client
		// certificate the kube-apiserver reaches kubelets with, signed by it
		// (pkg/component/kubernetes/apiserver/secrets.go at Gardener v1.120.0).
		b.secret("ca_kubelet", render.SecretSpec{Name: secretKubeletCA, Class: "ca", CommonName: "kubelet"}, "")
		b.secret("kube_apiserver_kubelet_tls", render.SecretSpec{
			Name: kubeapiserver.KubeletClientSecretName, Class: "client-cert", CommonName: kubeapiserver.KubeletClientCommonName, CA: secretKubeletCA,
		}, "ca_kubelet")
		// kube-scheduler's serving certificate, signed by the cluster CA
		// (pkg/component/kubernetes/scheduler/scheduler.go at Gardener v1.120.0).
		b.secret("kube_scheduler_tls", render.SecretSpec{
			Name: secretSchedulerServer, Class: "server-cert", CommonName: kubescheduler.Name,
			DNSNames: kube.ServiceDNSNames(kubescheduler.Name, b.ns), CA: secretCA,
		}, "ca")
	}
	return nil
}

// vpnSecrets are the VPN's CA, vpn-seed-server's certificate and the tls-auth key (Gardener's
// "Shoot Credentials Rotation" docs/usage/shoot-operations/shoot_credentials_rotation.md), and the
// certificates of the system components inside the shoot that need them: vpn-shoot's client
// certificate and metrics-server's serving certificate. Only a shoot with workers runs those.
func (b *builder) vpnSecrets() {
	b.secret("ca_vpn", render.SecretSpec{Name: secretVPNCA, Class: "ca", CommonName: "vpn"}, "")
	b.secret("vpn_seed_server_tls", render.SecretSpec{
		Name: secretVPNServer, Class: "server-cert", CommonName: vpnseedserver.Name,
		DNSNames: kube.ServiceDNSNames(vpnseedserver.Name, b.ns), CA: secretVPNCA,
	}, "ca_vpn")
	b.secret("vpn_seed_server_tlsauth", render.SecretSpec{Name: secretVPNTLSAuth, Class: "vpn-tlsauth"}, "")
	// The kube-apiserver's client certificate for vpn-seed-server: for its HTTP CONNECT proxy, or
	// with high availability for the vpn-client sidecars (pkg/component/kubernetes/apiserver/secrets.go
	// at Gardener v1.120.0).
	if b.highAvailability() {
		b.secret("vpn_seed_client_tls", render.SecretSpec{
			Name: kubeapiserver.VPNSeedClientSecretName, Class: "client-cert", CommonName: kubeapiserver.VPNSeedClientCommonName, CA: secretVPNCA,
		}, "ca_vpn")
	} else {
		b.secret("kube_apiserver_http_proxy_tls", render.SecretSpec{
			Name: kubeapiserver.HTTPProxySecretName, Class: "client-cert", CommonName: kubeapiserver.HTTPProxyCommonName, CA: secretVPNCA,
		}, "ca_vpn")
	}
	// vpn-shoot's client certificate, which its ManagedResource carries into the shoot.
	b.secret("vpn_shoot_client", render.SecretSpec{Name: secretVPNShootClient, Class: "client-cert", CommonName: "vpn-shoot-client", CA: secretVPNCA}, "ca_vpn")
	// metrics-server's serving certificate in the shoot, signed by the cluster CA that the
	// kube-apiserver trusts for its APIService.
	b.secret("metrics_server_tls", render.SecretSpec{Name: secretMetricsServer, Class: "server-cert", CommonName: "metrics-server",
		DNSNames: kube.ServiceDNSNames("metrics-server", "kube-system"), CA: secretCA}, "ca")
}

// kubeAPIServer: the shoot's API server after its etcds (Gardener's
// docs/development/secrets_management.md), exposed by SNI through the seed's Istio ingress gateway
// (Gardener's "Getting Started Locally" docs/deployment/getting_started_locally.md), autoscaled
// between 2 and 6 replicas (Gardener's "Autoscaling Specifics for Components"
// docs/development/autoscaling-specifics-for-components.md). Its Service is a part of its own
// before it, as Gardener deploys the Service first: the API server advertises the Service's
// cluster IP, mapped into the shoot's reserved range (DefaultKubeAPIServer and computeKubeAPIServerSNIConfig in
// pkg/gardenlet/operation/botanist/kubeapiserver.go at Gardener v1.120.0).
func (b *builder) kubeAPIServer() error {
	var k kubeAPIServerSettings
	if s := b.v.Kubernetes.KubeAPIServer; s != nil {
		k = kubeAPIServerSettings{auditPolicy: s.AuditPolicyConfigMap, eventTTL: s.EventTTL, featureGates: s.FeatureGates, encrypted: s.EncryptedResources,
			audiences: s.APIAudiences, runtimeConfig: s.RuntimeConfig, anonymous: ptr.Deref(s.EnableAnonymousAuthentication, false)}
		for _, p := range s.AdmissionPlugins {
			if p.Disabled {
				k.disable = append(k.disable, p.Name)
			} else {
				k.enable = append(k.enable, p.Name)
			}
		}
	}
	_, gwLabels := b.ingressGateway()
	workers := len(b.v.Workers) > 0
	v := kubeapiserver.Type.Defaults()
	v.Cluster, v.Namespace, v.NamePrefix = decode.Cluster{Name: b.seed.Cluster}, b.ns, ""
	v.KubernetesVersion, v.HighAvailability, v.Workerless = b.v.Kubernetes.Version, b.highAvailability(), !workers
	v.DNSDomains, v.ServiceNetwork = []string{b.domain()}, b.services
	v.CASecretName, v.EtcdCASecretName, v.EtcdClientSecretName = secretCA, secretEtcdCA, secretEtcdClient
	v.ServerTLSSecretName, v.ClientCASecretName = secretKubeAPIServer, secretClientCA
	v.FrontProxyCASecretName, v.FrontProxyClientSecretName = secretFrontProxyCA, secretKubeAggregator
	v.ServiceAccountKeySecretName, v.EncryptionConfigSecretName = secretServiceAccount, secretKAPIEncryption
	v.EncryptedResources, v.AuditPolicyConfigMap, v.FeatureGates = k.encrypted, k.auditPolicy, k.featureGates
	component.Override(&v.EventTTL, k.eventTTL)
	v.EnableAdmissionPlugins, v.DisableAdmissionPlugins = k.enable, k.disable
	v.AnonymousAuthentication, v.APIAudiences, v.RuntimeConfig = k.anonymous, k.audiences, k.runtimeConfig
	// What Gardener's defaulting gives every Shoot's kubeAPIServer (SetDefaults_KubeAPIServerConfig
	// in pkg/apis/core/v1beta1/defaults_shoot.go at Gardener v1.120.0) and the requests gardenlet
	// starts the container with (computeKubeAPIServerAutoscalingConfig).
	v.MaxRequestsInflight, v.MaxMutatingRequestsInflight, v.Verbosity = 400, 200, ptr.To(int32(2))
	v.CPURequest, v.MemoryRequest = "250m", "500Mi"
	v.PriorityClassName = priorityclasses.System500
	v.ScrapeTargetsAlias = "all-scrape-targets" // Gardener's docs/operations/network_policies.md
	v.IngressGatewayLabels = gwLabels
	v.Hibernated = b.hibernated
	deps := []string{"kube_apiserver_service", "etcd_main", "etcd_events", "ca", "ca_client", "kube_apiserver_tls", "kube_aggregator_tls",
		"service_account_key", "kube_apiserver_encryption", "kube_apiserver_health_check_token"}
	if v.SNI {
		// The Service's cluster IP as the shoot sees it: mapped into 240.0.0.0/8, the address
		// the apiserver-proxy listens on (setAPIServerServiceClusterIPs in
		// pkg/gardenlet/operation/botanist/kubeapiserverexposure.go at v1.120.0).
		v.AdvertiseAddress = render.LiveValue(b.apiServerServiceRef().WithAs(render.AsShootAPIServerAddress))
	}
	if workers {
		v.Kubelet = &kubeapiserver.KubeletAccess{CASecretName: secretKubeletCA, ClientSecretName: kubeapiserver.KubeletClientSecretName}
		v.VPN = &kubeapiserver.VPN{CASecretName: secretVPNCA, Pods: b.pods, Nodes: b.nodes, HighAvailability: b.highAvailability()}
		deps = append(deps, "ca_kubelet", "kube_apiserver_kubelet_tls", "ca_vpn")
		if v.VPN.HighAvailability {
			// As many vpn-shoot clients as vpn-seed-servers, two (VPNHighAvailabilityNumberOf* in
			// pkg/gardenlet/operation/shoot/shoot.go at Gardener v1.120.0).
			n := len(vpnseedserver.ServiceNames(true))
			v.VPN.Servers, v.VPN.Clients = n, n
			v.VPN.ClientSecretName, v.VPN.TLSAuthSecretName = kubeapiserver.VPNSeedClientSecretName, secretVPNTLSAuth
			deps = append(deps, "vpn_seed_client_tls", "vpn_seed_server_tlsauth")
		} else {
			v.VPN.HTTPProxySecretName = kubeapiserver.HTTPProxySecretName
			deps = append(deps, "kube_apiserver_http_proxy_tls")
		}
	}
	objs, err := kubeapiserver.Objects(v)
	if err != nil {
		return fmt.Errorf("kube-apiserver: %w", err)
	}
	var service, rest []render.Object
	for _, o := range objs {
		if o.Object.GetKind() == "Service" && o.Object.GetName() == kubeapiserver.ServiceName("") {
			service = append(service, o)
		} else {
			rest = append(rest, o)
		}
	}
	b.add("kube_apiserver_service", "kube_apiserver", service, "namespace")
	b.addScaled("kube_apiserver", "kube_apiserver", rest, deps...)
	if workers {
		// The RBAC in the shoot with which kubelets serve the API server, applied by the shoot's
		// resource manager.
		shootResources, err := kubeapiserver.ShootResources(b.seed.Cluster, b.ns)
		if err != nil {
			return fmt.Errorf("kube-apiserver shoot resources: %w", err)
		}
		b.add("kube_apiserver_shoot_resources", "managed_resource", shootResources, "gardener_resource_manager", "kube_apiserver")
	}

	// The VPN connects the control plane with the nodes; a workerless shoot has none
	// (Gardener's "Workerless Shoots" docs/usage/shoot/shoot_workerless.md).
	if len(b.v.Workers) == 0 {
		return nil
	}
	vpnVals := vpnseedserver.Type.Defaults()
	vpnVals.Cluster, vpnVals.Namespace, vpnVals.HighAvailability = decode.Cluster{Name: b.seed.Cluster}, b.ns, b.highAvailability()
	vpnVals.ShootNetworks = vpnseedserver.Networks{Pods: b.pods, Services: b.services, Nodes: b.nodes}
	vpnVals.SeedPodNetwork = b.seed.Pods
	if n := b.v.Networking; n != nil {
		vpnVals.IPFamilies = n.IPFamilies
	}
	vpnVals.ServerSecretName, vpnVals.CASecretName, vpnVals.TLSAuthSecretName = secretVPNServer, secretVPNCA, secretVPNTLSAuth
	vpnVals.PriorityClassName, vpnVals.Hibernated = priorityclasses.System300, b.hibernated
	vpn, err := vpnseedserver.Objects(vpnVals)
	if err != nil {
		return fmt.Errorf("vpn-seed-server: %w", err)
	}
	b.addScaled("vpn_seed_server", "vpn_seed_server", vpn, "namespace", "vpn_seed_server_tls", "vpn_seed_server_tlsauth")
	return nil
}

type kubeAPIServerSettings struct {
	auditPolicy, eventTTL       string
	featureGates, runtimeConfig map[string]bool
	encrypted, audiences        []string
	enable, disable             []string
	anonymous                   bool
}

// ingressGateway is the seed's Istio ingress gateway that exposes the API server: the gateway of
// the shoot's ExposureClass handler, if it has one (Gardener's "ExposureClasses"
// docs/usage/networking/exposureclasses.md), else the seed's default gateway; on a multi-zone seed
// its variant pinned to the control plane's zone, unless the control plane spans zones (Gardener's
// "Istio" docs/operations/istio.md). newBuilder checks that the seed has the handler.
func (b *builder) ingressGateway() (string, map[string]string) {
	ns, labels := seed.IngressNamespace, seed.IngressGatewayLabels("")
	if h, ok := b.seed.ExposureClassHandlers[b.v.ExposureClassHandler]; ok && b.v.ExposureClassHandler != "" {
		ns, labels = h.Namespace, h.Labels
	}
	if len(b.seed.Zones) > 1 && b.tolerance != FailureToleranceZone {
		z := b.zones()[0]
		return seed.ZoneGatewayNamespace(ns, z), seed.ZoneGatewayLabels(labels, z)
	}
	return ns, labels
}

// controllers: the access Secrets, and after the kube-apiserver the shoot's resource manager,
// kube-controller-manager, kube-scheduler (gardener-system-300 and -400, Gardener's
// docs/development/priority-classes.md).
func (b *builder) controllers() error {
	access, err := b.accessSecrets()
	if err != nil {
		return err
	}
	b.add("access", "manifests", access, "namespace", "ca")
	cluster := decode.Cluster{Name: b.seed.Cluster}

	grmVals := resourcemanager.Type.Defaults()
	grmVals.Cluster, grmVals.Namespace, grmVals.HighAvailability = cluster, b.ns, b.highAvailability()
	// A shoot's resource manager reconciles the ManagedResources without a class.
	grmVals.Class = ""
	grmVals.ServerTLSSecretName, grmVals.PriorityClassName = secretResourceManager, priorityclasses.System400
	grmVals.Shoot = b.resourceManagerTarget()
	grmVals.Hibernated = b.hibernated
	grm, err := resourcemanager.Objects(grmVals)
	if err != nil {
		return fmt.Errorf("gardener-resource-manager: %w", err)
	}
	grmDeps := []string{"kube_apiserver", "access", "gardener_resource_manager_tls"}
	if b.grm.needed {
		// The bootstrap kubeconfig's client certificate, signed by the client CA the shoot's
		// API server trusts (reconcileGardenerResourceManagerBootstrapKubeconfigSecret in
		// pkg/component/shared/resourcemanager.go at gardener/gardener v1.120.0).
		b.secret("gardener_resource_manager_bootstrap", render.SecretSpec{
			Name: resourcemanager.BootstrapCertificateSecretName, Class: "client-cert",
			CommonName: resourcemanager.BootstrapCommonName, Organization: []string{resourcemanager.BootstrapOrganization},
			Validity: resourcemanager.BootstrapValidity, CA: secretClientCA,
		}, "ca_client")
		grmDeps = append(grmDeps, "gardener_resource_manager_bootstrap")
	}
	b.addScaled("gardener_resource_manager", "gardener_resource_manager", grm, grmDeps...)
	if b.grm.needed {
		b.part("gardener_resource_manager").Note = "gardener-resource-manager starts with its bootstrap kubeconfig, a client certificate valid " +
			resourcemanager.BootstrapValidity.String() + ", because " + b.grm.reason + "; once its token requestor has written its token, " +
			"the next plan switches it to the token and deletes the bootstrap kubeconfig and certificate (superseded)"
	}

	kcmVals := kubecontrollermanager.Type.Defaults()
	kcmVals.Cluster, kcmVals.Namespace, kcmVals.NamePrefix, kcmVals.KubernetesVersion = cluster, b.ns, "", b.v.Kubernetes.Version
	kcmVals.HighAvailability, kcmVals.CASecretName = b.highAvailability(), secretCA
	kcmVals.GenericKubeconfigSecretName, kcmVals.AccessSecretName = secretGenericToken, secretKCMAccess
	kcmVals.ClientCASecretName, kcmVals.ServiceAccountKeySecretName = secretClientCA, secretServiceAccount
	kcmVals.ServerTLSSecretName, kcmVals.ServiceNetwork = secretKCMServer, b.services
	kcmVals.PriorityClassName, kcmVals.ScrapeTargetsAlias = priorityclasses.System300, "all-scrape-targets"
	kcmVals.Shoot = &kubecontrollermanager.Shoot{Pods: b.pods, Workerless: len(b.v.Workers) == 0}
	kcmDeps := []string{"kube_apiserver", "access", "kube_controller_manager_tls"}
	if !kcmVals.Shoot.Workerless {
		kcmVals.Shoot.KubeletCASecretName = secretKubeletCA
		kcmDeps = append(kcmDeps, "ca_kubelet")
	}
	kcmVals.Hibernated, kcmVals.ScaleDownDisabled = b.hibernated, b.identity.scaleDownDisabled
	if k := b.v.Kubernetes.KubeAPIServer; k != nil {
		kcmVals.RuntimeConfig = k.RuntimeConfig
	}
	if k := b.v.Kubernetes.KubeControllerManager; k != nil {
		kcmVals.FeatureGates = k.FeatureGates
		kcmVals.Shoot.NodeCIDRMaskSize = ptr.Deref(k.NodeCIDRMaskSize, 0)
		kcmVals.Shoot.NodeMonitorGracePeriod = k.NodeMonitorGracePeriod
	}
	kcm, err := kubecontrollermanager.Objects(kcmVals)
	if err != nil {
		return fmt.Errorf("kube-controller-manager: %w", err)
	}
	b.addScaled("kube_controller_manager", "kube_controller_manager", kcm, kcmDeps...)

	// A workerless shoot has no nodes to schedule pods to, hence no scheduler (Gardener's
	// docs/usage/shoot/shoot_workerless.md).
	if len(b.v.Workers) == 0 {
		return nil
	}
	schedVals := kubescheduler.Type.Defaults()
	schedVals.Cluster, schedVals.Namespace, schedVals.KubernetesVersion = cluster, b.ns, b.v.Kubernetes.Version
	schedVals.HighAvailability, schedVals.GenericKubeconfigSecretName = b.highAvailability(), secretGenericToken
	schedVals.ClientCASecretName, schedVals.ServerTLSSecretName = secretClientCA, secretSchedulerServer
	schedVals.PriorityClassName, schedVals.Hibernated = priorityclasses.System300, b.hibernated
	if k := b.v.Kubernetes.KubeScheduler; k != nil {
		component.Override(&schedVals.Profile, k.Profile)
		schedVals.FeatureGates = k.FeatureGates
	}
	sched, err := kubescheduler.Objects(schedVals)
	if err != nil {
		return fmt.Errorf("kube-scheduler: %w", err)
	}
	b.addScaled("kube_scheduler", "kube_scheduler", sched, "kube_apiserver", "access", "kube_scheduler_tls")
	return nil
}

// accessSecrets are the generic token kubeconfig and the access Secret of the
// kube-controller-manager, whose token the shoot's resource manager fills in (Gardener's
// "Gardener Operator" docs/concepts/operator.md). kube-controller-manager reads its token next to
// the generic kubeconfig, in the directory whose token file the kubeconfig names. The resource
// manager and the other controllers render their own access Secrets.
func (b *builder) accessSecrets() ([]render.Object, error) {
	server := kubeapiserver.InternalEndpoint("", b.ns)
	ca := render.GeneratedRef(b.ns, secretCA, "ca.crt", true)
	generic, err := kube.TokenKubeconfig("shoot", server, ca, shootaccess.KubeconfigDir+"/token")
	if err != nil {
		return nil, err
	}
	objs, err := kube.All(
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: secretGenericToken, Namespace: b.ns},
			Type:       corev1.SecretTypeOpaque,
			StringData: map[string]string{"kubeconfig": generic},
		},
		shootaccess.Access{Namespace: b.ns, Component: "kube-controller-manager", AccessSecretName: secretKCMAccess}.Secret(),
	)
	if err != nil {
		return nil, err
	}
	return kube.On(b.seed.Cluster, "", objs...), nil
}

// machineControllers: machine-controller-manager (with the machine.sapcloud.io CRDs) before the
// Worker, and cluster-autoscaler right after it, only if some pool autoscales (Gardener's "Shoot
// Autoscaling" docs/usage/autoscaling/shoot_autoscaling.md, "Worker"
// docs/extensions/resources/worker.md).
func (b *builder) machineControllers() error {
	cluster := decode.Cluster{Name: b.seed.Cluster}
	// The machine.sapcloud.io CRDs are the seed's (components/seed).
	mcmVals := machinecontrollermanager.Type.Defaults()
	mcmVals.Cluster, mcmVals.Namespace, mcmVals.GenericKubeconfigSecretName = cluster, b.ns, secretGenericToken
	mcmVals.PriorityClassName, mcmVals.Hibernated = priorityclasses.System300, b.hibernated
	mcm, err := machinecontrollermanager.Objects(mcmVals)
	if err != nil {
		return fmt.Errorf("machine-controller-manager: %w", err)
	}
	b.addScaled("machine_controller_manager", "machine_controller_manager", mcm, "kube_apiserver", "access")

	pools := b.autoscalerPools()
	if !clusterautoscaler.Needed(pools) {
		return nil
	}
	caVals := clusterautoscaler.Type.Defaults()
	caVals.Cluster, caVals.Namespace, caVals.WorkerPools, caVals.GenericKubeconfigSecretName = cluster, b.ns, pools, secretGenericToken
	caVals.KubernetesVersion = b.v.Kubernetes.Version
	caVals.PriorityClassName, caVals.Hibernated = priorityclasses.System300, b.hibernated
	if caVals.MaxNodesTotal, err = b.maxNodesTotal(); err != nil {
		return fmt.Errorf("cluster-autoscaler: %w", err)
	}
	ca, err := clusterautoscaler.Objects(caVals)
	if err != nil {
		return fmt.Errorf("cluster-autoscaler: %w", err)
	}
	b.addScaled("cluster_autoscaler", "cluster_autoscaler", ca, "worker")
	return nil
}

// maxNodesTotal is the cluster-autoscaler's node cap from the shoot's networks, with the node
// ranges of kube-controller-manager's mask size (24, 64 for IPv6 single-stack, unless set)
// (CalculateMaxNodesTotal in pkg/gardenlet/operation/botanist/clusterautoscaler.go at Gardener
// v1.120.0); the CloudProfile's limit is not modelled.
func (b *builder) maxNodesTotal() (int64, error) {
	var ipv6SingleStack bool
	if n := b.v.Networking; n != nil {
		ipv6SingleStack = slices.Equal(n.IPFamilies, []string{"IPv6"})
	}
	mask := int32(24)
	if ipv6SingleStack {
		mask = 64
	}
	if k := b.v.Kubernetes.KubeControllerManager; k != nil && k.NodeCIDRMaskSize != nil {
		mask = *k.NodeCIDRMaskSize
	}
	return clusterautoscaler.MaxNodesTotal(b.pods, b.nodes, mask, ipv6SingleStack, 0)
}

func (b *builder) autoscalerPools() []clusterautoscaler.Pool {
	var out []clusterautoscaler.Pool
	for _, w := range b.v.Workers {
		out = append(out, clusterautoscaler.Pool{Name: w.Name, Minimum: w.Minimum, Maximum: w.Maximum, Zones: w.Zones})
	}
	return out
}
