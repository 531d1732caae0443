package garden

import (
	"cmp"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/etcd"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/components/kubecontrollermanager"
	"github.com/declarative-gardener/gardener/engine/render"
)

// virtualGarden: the certificates of the virtual garden, its etcds, kube-apiserver and
// kube-controller-manager, once every system component is up (Gardener's "Gardener Operator"
// docs/concepts/operator.md).
func (g *builder) virtualGarden() error {
	vc := g.v.VirtualCluster
	runtime := decode.Cluster{Name: g.runtime}
	ha := vc.HighAvailability
	images := g.images()
	p := prefix

	// etcd: one CA for server and client certificates, peers with their own CA under HA.
	g.secret("ca_etcd", render.SecretSpec{Name: secretEtcdCA, Class: "ca", CommonName: "etcd"}, "")
	g.secret("etcd_client_tls", render.SecretSpec{Name: secretEtcdClient, Class: "client-cert", CommonName: "etcd-client", CA: secretEtcdCA}, "ca_etcd")
	if ha {
		g.secret("ca_etcd_peer", render.SecretSpec{Name: secretEtcdPeerCA, Class: "ca", CommonName: "etcd-peer"}, "")
	}
	var etcdParts []string
	for _, role := range []string{etcd.RoleMain, etcd.RoleEvents} {
		name := etcd.Name(p, role)
		serverSecret := "etcd-server-" + role
		g.secret("etcd_server_"+role+"_tls", render.SecretSpec{
			Name: serverSecret, Class: "server-cert", CommonName: name,
			DNSNames: append(kube.ServiceDNSNames(etcd.ClientServiceName(p, role), Namespace), name+"-local"), CA: secretEtcdCA,
		}, "ca_etcd")
		deps := append([]string{"etcd_client_tls", "etcd_server_" + role + "_tls"}, g.systemParts...)
		vals := etcd.Type.Defaults()
		vals.Cluster, vals.Namespace, vals.NamePrefix, vals.Role, vals.HighAvailability, vals.Images = runtime, Namespace, p, role, ha, images
		vals.CASecretName, vals.ServerTLSSecretName, vals.ClientTLSSecretName = secretEtcdCA, serverSecret, secretEtcdClient
		vals.TopologyAwareRouting = g.topologyAwareRouting()
		if m := vc.Maintenance; m != nil {
			// The window in which the events etcd's VPA may scale it down (components/etcd).
			vals.MaintenanceWindowBegin, vals.MaintenanceWindowEnd = m.TimeWindowBegin, m.TimeWindowEnd
		}
		if ha {
			peer := "etcd-peer-server-" + role
			g.secret("etcd_peer_"+role+"_tls", render.SecretSpec{
				Name: peer, Class: "server-cert", CommonName: name + "-peer",
				DNSNames: []string{"*." + name + "-peer", "*." + name + "-peer." + Namespace, "*." + name + "-peer." + Namespace + ".svc"}, CA: secretEtcdPeerCA,
			}, "ca_etcd_peer")
			vals.PeerCASecretName, vals.PeerTLSSecretName = secretEtcdPeerCA, peer
			deps = append(deps, "etcd_peer_"+role+"_tls")
		}
		if e := vc.Etcd; e != nil {
			if role == etcd.RoleMain && e.Main != nil {
				vals.StorageCapacity, vals.StorageClass = e.Main.StorageCapacity, e.Main.StorageClass
				if b := e.Main.Backup; b != nil {
					// The bucket must exist; gardener-operator does not create it (Gardener's "etcd"
					// docs/concepts/etcd.md, docs/concepts/operator.md).
					if b.BucketName == "" {
						return fmt.Errorf("virtual_cluster.etcd.main.backup.bucket_name: the backup bucket must be created outside the garden and named here")
					}
					backup := etcd.BackupDefaults()
					backup.Provider, backup.BucketName, backup.SecretRef = b.Provider, b.BucketName, b.SecretRef
					vals.Backup = &backup
				}
			}
			if role == etcd.RoleEvents && e.Events != nil {
				vals.StorageCapacity, vals.StorageClass = e.Events.StorageCapacity, e.Events.StorageClass
			}
		}
		objs, err := etcd.Objects(vals)
		if err != nil {
			return fmt.Errorf("etcd %s: %w", role, err)
		}
		part := "virtual_garden_etcd_" + role
		g.add(part, "etcd", objs, deps...)
		etcdParts = append(etcdParts, part)
	}

	// kube-apiserver: its CAs, serving certificate, aggregation client, service-account key and
	// encryption configuration (Secrets always, Gardener's docs/concepts/operator.md).
	var extra []string
	var kapi kubeapiserverSettings
	if k := vc.Kubernetes.KubeAPIServer; k != nil {
		extra = k.EncryptedResources
		kapi = kubeapiserverSettings{k.AuditPolicyConfigMap, k.EventTTL, k.FeatureGates}
	}
	encrypted, err := kubeapiserver.EncryptedResources(vc.Kubernetes.Version, extra)
	if err != nil {
		return fmt.Errorf("virtual_cluster.kubernetes.kube_api_server.encrypted_resources: %w", err)
	}
	g.secret("ca", render.SecretSpec{Name: secretCA, Class: "ca", CommonName: "kubernetes"}, "")
	g.secret("ca_client", render.SecretSpec{Name: secretClientCA, Class: "ca", CommonName: "kubernetes-client"}, "")
	g.secret("ca_front_proxy", render.SecretSpec{Name: secretFrontProxyCA, Class: "ca", CommonName: "front-proxy"}, "")
	// A virtual garden has no nodes, and nothing calls its API server on loopback.
	g.secret("kube_apiserver_tls", render.SecretSpec{
		Name: secretKubeAPIServer, Class: "server-cert", CommonName: kubeapiserver.Name(p),
		DNSNames: kubeapiserver.ServerDNSNames(p, Namespace, kubeapiserver.DefaultClusterDomain, vc.DNSDomains, false, false), CA: secretCA,
	}, "ca")
	g.secret("kube_aggregator_tls", render.SecretSpec{Name: secretKubeAggregator, Class: "client-cert", CommonName: kubeapiserver.AggregatorCommonName, CA: secretFrontProxyCA}, "ca_front_proxy")
	g.secret("kube_apiserver_health_check_token", render.SecretSpec{
		Name: kubeapiserver.DefaultHealthCheckTokenSecretName, Class: "token", Length: kubeapiserver.HealthCheckTokenLength,
	}, "")
	g.secret("service_account_key", render.SecretSpec{Name: secretServiceAccount, Class: "rsa-key"}, "")
	g.secret("kube_apiserver_encryption", render.SecretSpec{Name: secretKAPIEncryption, Class: "encryption-config", Resources: encrypted}, "")
	kapiVals := kubeapiserver.Type.Defaults()
	kapiVals.Cluster, kapiVals.Namespace, kapiVals.NamePrefix, kapiVals.Images = runtime, Namespace, p, images
	kapiVals.KubernetesVersion, kapiVals.HighAvailability, kapiVals.DNSDomains = vc.Kubernetes.Version, ha, vc.DNSDomains
	kapiVals.ServiceNetwork, kapiVals.EtcdCASecretName, kapiVals.EtcdClientSecretName = vc.Networking.Services, secretEtcdCA, secretEtcdClient
	kapiVals.ServerTLSSecretName, kapiVals.ClientCASecretName = secretKubeAPIServer, secretClientCA
	kapiVals.FrontProxyCASecretName, kapiVals.FrontProxyClientSecretName = secretFrontProxyCA, secretKubeAggregator
	kapiVals.ServiceAccountKeySecretName, kapiVals.EncryptionConfigSecretName = secretServiceAccount, secretKAPIEncryption
	kapiVals.EncryptedResources, kapiVals.AuditPolicyConfigMap, kapiVals.FeatureGates = extra, kapi.auditPolicy, kapi.featureGates
	component.Override(&kapiVals.EventTTL, kapi.eventTTL)
	kapiVals.TopologyAwareRouting = g.topologyAwareRouting()
	kapiVals.CASecretName = secretCA
	kapiDeps := append(etcdParts, "istio", "ca", "ca_client", "kube_apiserver_tls", "kube_aggregator_tls", "service_account_key",
		"kube_apiserver_encryption", "kube_apiserver_health_check_token")
	// gardener-admission-controller authorizes gardenlets' requests. Where its pods never run
	// (admission webhooks off, as on the local control plane), the API server does not ask it,
	// as it is not asked for admission there either.
	if g.v.AdmissionWebhooks {
		kapiVals.AuthorizationWebhooks = []kubeapiserver.AuthorizationWebhook{
			kubeapiserver.SeedAuthorizer(render.GeneratedRef(Namespace, secretGardenerCA, "ca.crt", true)),
		}
		kapiDeps = append(kapiDeps, "ca_gardener")
	}
	kapiObjs, err := kubeapiserver.Objects(kapiVals)
	if err != nil {
		return fmt.Errorf("kube-apiserver: %w", err)
	}
	g.add("virtual_garden_kube_apiserver", "kube_apiserver", kapiObjs, kapiDeps...)

	// Access to the virtual garden for the components in the runtime cluster: the generic
	// token kubeconfig and kube-controller-manager's access Secret, whose token the token
	// requestor fills in (Gardener's docs/concepts/operator.md).
	access, err := g.accessSecrets()
	if err != nil {
		return err
	}
	g.add("virtual_garden_access", "manifests", access, "ca")

	g.secret("kube_controller_manager_tls", render.SecretSpec{
		Name: kcmServer, Class: "server-cert", CommonName: kubecontrollermanager.Name(p),
		DNSNames: kube.ServiceDNSNames(kubecontrollermanager.Name(p), Namespace), CA: secretCA,
	}, "ca")
	kcmVals := kubecontrollermanager.Type.Defaults()
	kcmVals.Cluster, kcmVals.Namespace, kcmVals.NamePrefix, kcmVals.Images = runtime, Namespace, p, images
	kcmVals.KubernetesVersion, kcmVals.HighAvailability = vc.Kubernetes.Version, ha
	kcmVals.GenericKubeconfigSecretName, kcmVals.AccessSecretName = GenericKubeconfigSecretName, kcmAccess
	kcmVals.CASecretName, kcmVals.ClientCASecretName = secretCA, secretClientCA
	kcmVals.ServiceAccountKeySecretName, kcmVals.ServerTLSSecretName = secretServiceAccount, kcmServer
	kcmVals.ServiceNetwork = vc.Networking.Services
	if k := vc.Kubernetes.KubeControllerManager; k != nil {
		// A Garden's kubeControllerManager block defaults the signing duration to 48h; without the
		// block kube-controller-manager's 720h applies (CertificateSigningDuration in
		// pkg/apis/operator/v1alpha1/types_garden.go at Gardener v1.120.0).
		kcmVals.CertificateSigningDuration = cmp.Or(k.CertificateSigningDuration, "48h")
		kcmVals.FeatureGates = k.FeatureGates
	}
	kcm, err := kubecontrollermanager.Objects(kcmVals)
	if err != nil {
		return fmt.Errorf("kube-controller-manager: %w", err)
	}
	g.add("virtual_garden_kube_controller_manager", "kube_controller_manager", kcm, "virtual_garden_kube_apiserver", "virtual_garden_access", "kube_controller_manager_tls")
	return nil
}

type kubeapiserverSettings struct {
	auditPolicy, eventTTL string
	featureGates          map[string]bool
}

// kubeconfig is a kubeconfig for the virtual garden's kube-apiserver, reached in-cluster, that
// authenticates with the token in tokenFile and trusts the virtual garden's CA.
func kubeconfig(server, tokenFile string) (string, error) {
	return kube.TokenKubeconfig("virtual-garden", server, render.GeneratedRef(Namespace, secretCA, "ca.crt", true), tokenFile)
}

// accessSecrets are the generic token kubeconfig and kube-controller-manager's access Secret.
func (g *builder) accessSecrets() ([]render.Object, error) {
	server := kubeapiserver.InternalEndpoint(prefix, Namespace)
	generic, err := kubeconfig(server, "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/token")
	if err != nil {
		return nil, err
	}
	objs, err := kube.All(
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: GenericKubeconfigSecretName, Namespace: Namespace},
			Type:       corev1.SecretTypeOpaque,
			StringData: map[string]string{"kubeconfig": generic},
		},
		// kube-controller-manager reads its token next to the generic kubeconfig.
		shootaccess.Access{Namespace: Namespace, Component: "kube-controller-manager", AccessSecretName: kcmAccess}.Secret(),
	)
	if err != nil {
		return nil, err
	}
	return kube.On(g.runtime, "", objs...), nil
}
