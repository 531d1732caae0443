package kubeapiserver

import (
	"fmt"
	"maps"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Where the API server finds its files: Gardener's mount paths
// (pkg/component/kubernetes/apiserver/deployment.go, pkg/component/apiserver/*.go at Gardener
// v1.120.0).
const (
	dirCA                       = "/srv/kubernetes/ca"
	dirClientCA                 = "/srv/kubernetes/ca-client"
	dirFrontProxyCA             = "/srv/kubernetes/ca-front-proxy"
	dirServiceAccountKey        = "/srv/kubernetes/service-account-key"
	dirServiceAccountKeyBundle  = "/srv/kubernetes/service-account-key-bundle"
	dirStaticToken              = "/srv/kubernetes/token"
	dirAggregator               = "/srv/kubernetes/aggregator"
	dirEtcdCA                   = "/srv/kubernetes/etcd/ca"
	dirEtcdClient               = "/srv/kubernetes/etcd/client"
	dirServer                   = "/srv/kubernetes/apiserver"
	dirAuditPolicy              = "/etc/kubernetes/audit"
	dirAdmission                = "/etc/kubernetes/admission"
	dirAdmissionKubeconfigs     = "/etc/kubernetes/admission-kubeconfigs"
	dirEncryption               = "/etc/kubernetes/etcd-encryption-secret"
	dirAuthorization            = "/etc/kubernetes/structured/authorization"
	dirAuthorizationKubeconfigs = "/etc/kubernetes/structured/authorization-kubeconfigs"
	dirCAVPN                    = "/srv/kubernetes/ca-vpn"
	dirHTTPProxy                = "/etc/srv/kubernetes/envoy"
	dirEgressSelector           = "/etc/kubernetes/egress"
	dirCAKubelet                = "/srv/kubernetes/ca-kubelet"
	dirKubeletClient            = "/srv/kubernetes/apiserver-kubelet"

	defaultCPURequest  = "600m"  // Gardener's docs/development/autoscaling-specifics-for-components.md
	defaultMemRequest  = "512Mi" // Gardener's docs/development/autoscaling-specifics-for-components.md
	defaultScrapeAlias = "all-garden-scrape-targets"
	// nonRootUser is the nonroot user of the distroless kube-apiserver image, which Gardener runs
	// the pods as.
	nonRootUser = int64(65532)
)

// The Secrets' data keys: the engine's generated_secret classes write the first ones; the files
// carry the names Gardener's secrets manager gives them (bundle.crt, id_rsa, bundle.key), which
// the volumes map the keys to.
const (
	keyCACert        = render.DataKeyCACert
	keyCert          = render.DataKeyCert
	keyKey           = render.DataKeyKey
	keyPrivateKey    = render.DataKeyPrivateKey
	keyPublicKey     = render.DataKeyPublicKey
	fileBundle       = "bundle.crt"
	fileSigningKey   = "id_rsa"
	fileVerifyingKey = "bundle.key"
)

// volume is one volume of the pod and its mount into the kube-apiserver container.
type volume struct {
	name, dir string
	source    corev1.VolumeSource
	readOnly  bool
}

// secretVolume mounts a Secret, mode 0640 where Gardener sets it, optionally with keys renamed
// to the files the flags name (items: key, path, key, path, ...).
func secretVolume(name, dir, secretName string, restricted bool, items ...string) volume {
	src := &corev1.SecretVolumeSource{SecretName: secretName}
	if restricted {
		src.DefaultMode = ptr.To(int32(0o640))
	}
	for i := 0; i+1 < len(items); i += 2 {
		src.Items = append(src.Items, corev1.KeyToPath{Key: items[i], Path: items[i+1]})
	}
	return volume{name: name, dir: dir, source: corev1.VolumeSource{Secret: src}}
}

// caVolume mounts a CA Secret of the engine (ca.crt) as the bundle file Gardener's flags read.
func caVolume(name, dir, secretName string) volume {
	return secretVolume(name, dir, secretName, false, keyCACert, fileBundle)
}

func configMapVolume(name, dir, configMapName string, readOnly bool) volume {
	return volume{name: name, dir: dir, readOnly: readOnly, source: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: configMapName},
	}}}
}

// volumes are the pod's volumes in Gardener's order: the certificates and keys, then what the
// shared API server settings, audit, admission, encryption, authorization, the VPN and the
// kubelet add (reconcileDeployment in pkg/component/kubernetes/apiserver/deployment.go at Gardener
// v1.120.0).
func volumes(r resolved, c configuration) []volume {
	vs := []volume{
		caVolume("ca", dirCA, r.CASecretName),
		caVolume("ca-client", dirClientCA, r.ClientCASecretName),
		caVolume("ca-front-proxy", dirFrontProxyCA, r.FrontProxyCASecretName),
		secretVolume("service-account-key", dirServiceAccountKey, r.ServiceAccountKeySecretName, true, keyPrivateKey, fileSigningKey),
		secretVolume("service-account-key-bundle", dirServiceAccountKeyBundle, r.ServiceAccountKeySecretName, true, keyPublicKey, fileVerifyingKey),
		secretVolume("static-token", dirStaticToken, StaticTokenSecretName, false),
		secretVolume("kube-aggregator", dirAggregator, r.FrontProxyClientSecretName, true),
		caVolume("ca-etcd", dirEtcdCA, r.EtcdCASecretName),
		secretVolume("etcd-client", dirEtcdClient, r.EtcdClientSecretName, true),
		secretVolume("server", dirServer, r.ServerTLSSecretName, true),
		configMapVolume("audit-policy-config", dirAuditPolicy, c.auditPolicy, false),
		configMapVolume("admission-config", dirAdmission, c.admission, false),
		secretVolume("admission-kubeconfigs", dirAdmissionKubeconfigs, c.admissionKubeconfigs, false),
	}
	encryption := secretVolume("etcd-encryption-secret", dirEncryption, r.EncryptionConfigSecretName, true)
	encryption.readOnly = true
	vs = append(vs, encryption)
	if r.structuredAuthorization {
		vs = append(vs, configMapVolume("authorization-config", dirAuthorization, c.authorization, true))
	}
	if len(r.AuthorizationWebhooks) > 0 {
		kubeconfigs := secretVolume("authorization-kubeconfigs", dirAuthorizationKubeconfigs, AuthorizationKubeconfigsSecretName, false)
		kubeconfigs.readOnly = true
		vs = append(vs, kubeconfigs)
	}
	if r.VPN != nil && !r.VPN.HighAvailability {
		vs = append(vs,
			caVolume("ca-vpn", dirCAVPN, r.VPN.CASecretName),
			secretVolume("http-proxy", dirHTTPProxy, r.VPN.HTTPProxySecretName, true),
			configMapVolume("egress-selection-config", dirEgressSelector, c.egress, false),
		)
	}
	if r.Kubelet != nil {
		vs = append(vs,
			caVolume("ca-kubelet", dirCAKubelet, r.Kubelet.CASecretName),
			secretVolume("kubelet-client", dirKubeletClient, r.Kubelet.ClientSecretName, true),
		)
	}
	return vs
}

// args are the API server's flags in Gardener's order: the kube-apiserver's own
// (computeKubeAPIServerArgs), those every Gardener API server shares (InjectDefaultSettings), then
// audit, admission, encryption, the advertise address, the service account keys, authorization,
// the egress selector and the kubelet (reconcileDeployment), all in
// pkg/component/kubernetes/apiserver/deployment.go and pkg/component/apiserver at Gardener v1.120.0.
func args(r resolved) []string {
	a := []string{
		fmt.Sprintf("--anonymous-auth=%t", r.AnonymousAuthentication),
		"--api-audiences=" + strings.Join(r.audiences, ","),
		"--client-ca-file=" + dirClientCA + "/" + fileBundle,
		"--enable-aggregator-routing=true",
		"--enable-bootstrap-token-auth=true",
		"--etcd-servers-overrides=/events#" + r.eventsEndpoint,
		"--external-hostname=" + ExternalHostname(r.DNSDomains),
	}
	if r.eventTTL != "" {
		a = append(a, "--event-ttl="+r.eventTTL)
	}
	a = append(a,
		"--proxy-client-cert-file="+dirAggregator+"/"+keyCert,
		"--proxy-client-key-file="+dirAggregator+"/"+keyKey,
		"--requestheader-client-ca-file="+dirFrontProxyCA+"/"+fileBundle,
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-username-headers=X-Remote-User",
	)
	if len(r.runtimeConfig) > 0 {
		a = append(a, "--runtime-config="+keyValueFlag(r.runtimeConfig))
	}
	a = append(a,
		"--service-account-issuer="+or(r.ServiceAccountIssuer, "https://"+ExternalHostname(r.DNSDomains)),
		"--service-cluster-ip-range="+r.ServiceNetwork,
		fmt.Sprintf("--secure-port=%d", Port),
		"--token-auth-file="+dirStaticToken+"/"+staticTokensKey,
		// What every Gardener API server runs with.
		"--http2-max-streams-per-connection=1000",
		"--etcd-cafile="+dirEtcdCA+"/"+fileBundle,
		"--etcd-certfile="+dirEtcdClient+"/"+keyCert,
		"--etcd-keyfile="+dirEtcdClient+"/"+keyKey,
		"--etcd-servers="+r.mainEndpoint,
		"--livez-grace-period=1m",
		"--profiling=false",
		"--shutdown-delay-duration=15s",
		"--tls-cert-file="+dirServer+"/"+keyCert,
		"--tls-private-key-file="+dirServer+"/"+keyKey,
		"--tls-cipher-suites="+strings.Join(TLSCipherSuites, ","),
	)
	if len(r.FeatureGates) > 0 {
		a = append(a, "--feature-gates="+FeatureGatesFlag(r.FeatureGates))
	}
	if r.MaxRequestsInflight > 0 {
		a = append(a, fmt.Sprintf("--max-requests-inflight=%d", r.MaxRequestsInflight))
	}
	if r.MaxMutatingRequestsInflight > 0 {
		a = append(a, fmt.Sprintf("--max-mutating-requests-inflight=%d", r.MaxMutatingRequestsInflight))
	}
	if r.Verbosity != nil {
		a = append(a, fmt.Sprintf("--v=%d", *r.Verbosity))
	}
	a = append(a, "--audit-policy-file="+dirAuditPolicy+"/"+AuditPolicyKey)
	if len(r.enabledPlugins) > 0 {
		a = append(a, "--enable-admission-plugins="+strings.Join(r.enabledPlugins, ","))
	}
	if len(r.disabledPlugins) > 0 {
		a = append(a, "--disable-admission-plugins="+strings.Join(r.disabledPlugins, ","))
	}
	a = append(a,
		"--admission-control-config-file="+dirAdmission+"/"+admissionKey,
		"--encryption-provider-config="+dirEncryption+"/"+EncryptionConfigKey,
	)
	if r.AdvertiseAddress != "" {
		a = append(a, "--advertise-address="+r.AdvertiseAddress)
	}
	a = append(a,
		"--service-account-signing-key-file="+dirServiceAccountKey+"/"+fileSigningKey,
		"--service-account-key-file="+dirServiceAccountKeyBundle+"/"+fileVerifyingKey,
	)
	a = append(a, authorizationArgs(r)...)
	if r.VPN != nil && !r.VPN.HighAvailability {
		a = append(a, "--egress-selector-config-file="+dirEgressSelector+"/"+egressSelectorKey)
	}
	if r.Kubelet != nil {
		a = append(a,
			"--allow-privileged=true",
			"--kubelet-preferred-address-types=InternalIP,Hostname,ExternalIP",
			"--kubelet-certificate-authority="+dirCAKubelet+"/"+fileBundle,
			"--kubelet-client-certificate="+dirKubeletClient+"/"+keyCert,
			"--kubelet-client-key="+dirKubeletClient+"/"+keyKey,
		)
	}
	return a
}

// authorizationArgs configure the authorizers: from Kubernetes 1.30 on the structured
// authorization configuration (unless its feature gate is off), before it the modes Node (with
// nodes), RBAC and, for the first webhook only, Webhook (handleAuthorizationSettings in
// pkg/component/kubernetes/apiserver/authorization.go at Gardener v1.120.0).
func authorizationArgs(r resolved) []string {
	if r.structuredAuthorization {
		return []string{"--authorization-config=" + dirAuthorization + "/" + authorizationKey}
	}
	modes := []string{"RBAC"}
	if !r.Workerless {
		modes = append([]string{"Node"}, modes...)
	}
	var a []string
	if len(r.AuthorizationWebhooks) > 0 {
		modes = append(modes, "Webhook")
		w := r.AuthorizationWebhooks[0]
		a = append(a,
			"--authorization-webhook-config-file="+dirAuthorizationKubeconfigs+"/"+webhookKubeconfigFile(w.Name),
			"--authorization-webhook-cache-authorized-ttl="+time.Nanosecond.String(),
			"--authorization-webhook-cache-unauthorized-ttl="+time.Nanosecond.String(),
			"--authorization-webhook-version=v1",
		)
	}
	return append(a, "--authorization-mode="+strings.Join(modes, ","))
}

// TLSCipherSuites are the cipher suites Gardener's API servers and webhooks accept
// (pkg/utils/kubernetes/tls_cipher_suites.go at Gardener v1.120.0).
var TLSCipherSuites = []string{
	"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
	"TLS_AES_128_GCM_SHA256",
	"TLS_AES_256_GCM_SHA384",
	"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
	"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
	"TLS_CHACHA20_POLY1305_SHA256",
	"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
	"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
}

// podLabels add to Labels the labels that open the API server's network paths under Gardener's
// deny-all policies: DNS, public and private networks (OIDC issuers, external webhooks), the
// webhook servers of the seed and of extensions, its etcds and the VPN (Gardener's "Network
// Policies" docs/operations/network_policies.md; the labels of reconcileDeployment and
// handleVPNSettings at Gardener v1.120.0).
func podLabels(r resolved) map[string]string {
	l := Labels()
	maps.Copy(l, map[string]string{
		"networking.gardener.cloud/to-dns":              networkPolicyAllowed,
		"networking.gardener.cloud/to-public-networks":  networkPolicyAllowed,
		"networking.gardener.cloud/to-private-networks": networkPolicyAllowed,
		labelToAllWebhookTargets:                        networkPolicyAllowed,
		labelToExtensionsAllWebhookTargets:              networkPolicyAllowed,
	})
	maps.Copy(l, etcdLabels(r.prefix))
	if v := r.VPN; v != nil {
		if !v.HighAvailability {
			l[ToServiceLabel(vpnSeedServerName, vpnSeedServerEnvoyPort)] = networkPolicyAllowed
		} else {
			for i := range v.Servers {
				l[ToServiceLabel(fmt.Sprintf("%s-%d", vpnSeedServerName, i), vpnSeedServerOpenVPNPort)] = networkPolicyAllowed
			}
			l[labelToRuntimeAPIServer] = networkPolicyAllowed
		}
	}
	return l
}

// deploymentLabels are the Deployment's: Labels, the high-availability type server that
// gardener-resource-manager's webhook reads (Gardener's "High Availability Of Components"
// docs/development/high-availability-of-components.md) and the mark that the provider extension's
// control-plane webhook may mutate it.
func deploymentLabels() map[string]string {
	l := Labels()
	l[highAvailabilityConfigTypeLabel] = highAvailabilityConfigTypeServer
	l[mutatedByControlPlaneWebhookLabel] = "true"
	return l
}

func deployment(r resolved, c configuration) (*appsv1.Deployment, error) {
	image, err := images.Of(r.Images, images.KubeAPIServer, r.KubernetesVersion)
	if err != nil {
		return nil, fmt.Errorf("kube-apiserver images: %w", err)
	}
	cpu, err := resource.ParseQuantity(r.CPURequest)
	if err != nil {
		return nil, fmt.Errorf("cpu request %q: %w", r.CPURequest, err)
	}
	mem, err := resource.ParseQuantity(r.MemoryRequest)
	if err != nil {
		return nil, fmt.Errorf("memory request %q: %w", r.MemoryRequest, err)
	}
	var vols []corev1.Volume
	var mounts []corev1.VolumeMount
	for _, v := range volumes(r, c) {
		vols = append(vols, corev1.Volume{Name: v.name, VolumeSource: v.source})
		mounts = append(mounts, corev1.VolumeMount{Name: v.name, MountPath: v.dir, ReadOnly: v.readOnly})
	}
	pod := corev1.PodSpec{
		AutomountServiceAccountToken:  ptr.To(false),
		PriorityClassName:             r.PriorityClassName,
		DNSPolicy:                     corev1.DNSClusterFirst,
		RestartPolicy:                 corev1.RestartPolicyAlways,
		SchedulerName:                 corev1.DefaultSchedulerName,
		TerminationGracePeriodSeconds: ptr.To(int64(30)),
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(nonRootUser), RunAsGroup: ptr.To(nonRootUser), FSGroup: ptr.To(nonRootUser),
		},
		TopologySpreadConstraints: kube.SpreadOverNodesAndZones(SelectorLabels()),
		Containers: []corev1.Container{{
			Name:                     containerName,
			Image:                    image,
			ImagePullPolicy:          corev1.PullIfNotPresent,
			Command:                  []string{"/usr/local/bin/kube-apiserver"},
			Args:                     args(r),
			TerminationMessagePath:   corev1.TerminationMessagePathDefault,
			TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			Ports:                    []corev1.ContainerPort{{Name: "https", ContainerPort: Port, Protocol: corev1.ProtocolTCP}},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem,
			}},
			SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
			LivenessProbe:   healthProbe(r, "/livez", 15),
			ReadinessProbe:  healthProbe(r, "/readyz", 10),
			VolumeMounts:    mounts,
		}},
		Volumes: vols,
	}
	if r.VPN != nil && r.VPN.HighAvailability {
		if err := addVPNClients(r, &pod); err != nil {
			return nil, err
		}
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: Name(r.prefix), Namespace: r.namespace, Labels: deploymentLabels()},
		Spec: appsv1.DeploymentSpec{
			// No replicas while awake: the HorizontalPodAutoscaler owns them, and applying a count
			// would fight it. Hibernated, the count is 0, which the HPA leaves alone.
			Replicas:             replicas(r),
			MinReadySeconds:      30,
			RevisionHistoryLimit: ptr.To(int32(2)),
			Selector:             &metav1.LabelSelector{MatchLabels: SelectorLabels()},
			// A new pod of every replica starts before an old one stops.
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge: ptr.To(intstr.FromString("100%")), MaxUnavailable: ptr.To(intstr.FromInt32(0)),
				},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels(r)},
				Spec:       pod,
			},
		},
	}
	// A new configuration has a new name, which rolls the pods; the names the pods refer to keep
	// the resource manager from collecting the objects.
	unique.InjectReferences(d)
	return d, nil
}

// healthProbe probes a health endpoint on the secure port as the health-check user of the static
// token file, every 10 seconds, each probe allowed 15, failing after three in a row
// (reconcileDeployment at Gardener v1.120.0). The token is the engine's marker of the generated
// token: Kubernetes cannot take a probe's header from a Secret.
func healthProbe(r resolved, path string, initialDelay int32) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: path, Port: intstr.FromInt32(Port), Scheme: corev1.URISchemeHTTPS,
			HTTPHeaders: []corev1.HTTPHeader{{Name: "Authorization", Value: "Bearer " + healthCheckToken(r)}},
		}},
		InitialDelaySeconds: initialDelay, PeriodSeconds: 10, TimeoutSeconds: 15, SuccessThreshold: 1, FailureThreshold: 3,
	}
}

// replicas is 0 for a hibernated API server and nil (left to the HPA) otherwise: releasing the
// field on wake-up resets it to the default of 1, which reactivates the HPA.
func replicas(r resolved) *int32 {
	if r.Hibernated {
		return ptr.To(int32(0))
	}
	return nil
}

// SecureProbe probes a Kubernetes control plane binary (kube-controller-manager,
// kube-scheduler) on the health endpoint path of its secure port, after 15 seconds every 10, each
// probe allowed 15 seconds, failing after failures probes in a row.
func SecureProbe(path string, port, failures int32) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: path, Port: intstr.FromInt32(port), Scheme: corev1.URISchemeHTTPS,
		}},
		InitialDelaySeconds: 15, PeriodSeconds: 10, TimeoutSeconds: 15, FailureThreshold: failures,
	}
}

// ControlPlaneDeployment is the Deployment of a Kubernetes control plane binary
// (kube-controller-manager, kube-scheduler): replicas pods (nil leaves the count to an
// autoscaler) selected by meta's labels, rolled out new pod first (kube.SurgeFirst), keeping two
// old ReplicaSets; the pods, with podMeta's labels and annotations, get no token for the cluster
// they run in: the binaries reach their API server through the kubeconfigs they mount.
func ControlPlaneDeployment(meta metav1.ObjectMeta, replicas *int32, podMeta metav1.ObjectMeta, pod corev1.PodSpec) *appsv1.Deployment {
	pod.AutomountServiceAccountToken = ptr.To(false)
	return &appsv1.Deployment{
		ObjectMeta: meta,
		Spec: appsv1.DeploymentSpec{
			Replicas:             replicas,
			RevisionHistoryLimit: ptr.To(int32(2)),
			Selector:             &metav1.LabelSelector{MatchLabels: meta.Labels},
			Strategy:             kube.SurgeFirst(),
			Template:             corev1.PodTemplateSpec{ObjectMeta: podMeta, Spec: pod},
		},
	}
}
