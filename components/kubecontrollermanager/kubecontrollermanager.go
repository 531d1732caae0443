// Package kubecontrollermanager renders the kube_controller_manager component: a
// kube-controller-manager as a Deployment in the runtime cluster, by default the virtual garden's
// (virtual-garden-kube-controller-manager, Gardener's "Gardener Operator" docs/concepts/operator.md),
// or a shoot's in its control-plane namespace. Its command line is the one Gardener v1.120.0 gives
// it (computeCommand in pkg/component/kubernetes/controllermanager/controllermanager.go): all default
// controllers and the bootstrap token controllers; without workers, as in the virtual garden, no
// node, volume or endpoint controllers; in the virtual garden no serviceaccount-token controller
// either, so static ServiceAccount token Secrets do not exist there and clients use the
// TokenRequest API.
package kubecontrollermanager

import (
	"fmt"
	"maps"
	"net"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/autoscaler"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Port is the controller manager's secure port, which serves /healthz and /metrics.
const Port = 10257

// Shoot makes the controller manager a shoot's (DefaultKubeControllerManager in
// pkg/gardenlet/operation/botanist/kubecontrollermanager.go at Gardener v1.120.0): Gardener's
// default worker counts, and with workers the node controllers, each node's pod range from the
// shoot's pod network and the kubelet certificate signers.
type Shoot struct {
	// Pods is the shoot's pod network (.spec.networking.pods), comma-separated when dual-stack;
	// required with workers.
	Pods string
	// NodeCIDRMaskSize is the prefix length of each node's pod range; 0 means Gardener's default,
	// 24 (64 when every pod network is IPv6) (calculateDefaultNodeCIDRMaskSize in
	// pkg/apis/core/v1beta1/defaults_shoot.go at v1.120.0, for kubelet's 110 pods).
	NodeCIDRMaskSize int32
	// NodeMonitorGracePeriod is how long a node may be silent before it is marked unhealthy; ""
	// means Gardener's default, 40s (pkg/apis/core/v1beta1/defaults_shoot.go at v1.120.0).
	NodeMonitorGracePeriod string
	// KubeletCASecretName holds the kubelet CA (ca.crt, ca.key) that signs kubelet serving
	// certificates; required with workers.
	KubeletCASecretName string
	// Workerless switches the node controllers off and leaves out pod range allocation and the
	// kubelet signers.
	Workerless bool
}

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	// Cluster is the runtime cluster the controller manager runs in.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace of all objects.
	Namespace string `json:"namespace"`
	// NamePrefix is put before kube-controller-manager: etcd.DefaultNamePrefix for the virtual
	// garden, "" for the control planes of shoots.
	NamePrefix string `json:"name_prefix"`
	// Images overrides image vector entries by name (kube-controller-manager).
	Images map[string]string `json:"images"`
	// KubernetesVersion (MAJOR.MINOR.PATCH) tags the image.
	KubernetesVersion string `json:"kubernetes_version"`
	// HighAvailability runs two replicas with leader election instead of one (Gardener's "High
	// Availability Of Components" docs/development/high-availability-of-components.md).
	HighAvailability bool `json:"high_availability"`
	// GenericKubeconfigSecretName holds the cluster's generic token kubeconfig (key kubeconfig) and
	// AccessSecretName the token-requestor Secret whose token it reads; both are projected into
	// the directory Gardener mounts them in (InjectGenericKubeconfig of
	// pkg/utils/gardener/shoot.go at Gardener v1.120.0, components/internal/shootaccess).
	GenericKubeconfigSecretName string `json:"generic_kubeconfig_secret_name"`
	AccessSecretName            string `json:"access_secret_name"`
	// CASecretName holds the cluster CA (ca.crt) published as kube-root-ca.crt.
	CASecretName string `json:"ca_secret_name"`
	// ClientCASecretName holds the client CA (ca.crt, ca.key) CSRs for client certificates are
	// signed with (Gardener's docs/concepts/operator.md).
	ClientCASecretName string `json:"client_ca_secret_name"`
	// ServiceAccountKeySecretName holds the ServiceAccount signing key (key.pem) (Gardener's
	// docs/concepts/operator.md).
	ServiceAccountKeySecretName string `json:"service_account_key_secret_name"`
	// ServerTLSSecretName holds the serving certificate (tls.crt, tls.key) of the secure port,
	// Gardener's kube-controller-manager-server.
	ServerTLSSecretName string `json:"server_tls_secret_name"`
	// ServiceNetwork is the cluster's Service network (--service-cluster-ip-range); "" leaves the
	// flag out.
	ServiceNetwork string `json:"service_network"`
	// CertificateSigningDuration is the longest validity of certificates signed for CSRs.
	CertificateSigningDuration string `json:"certificate_signing_duration"`
	// FeatureGates switch Kubernetes feature gates on or off.
	FeatureGates map[string]bool `json:"feature_gates"`
	// PriorityClassName of the pods (Gardener's "Priority Classes"
	// docs/development/priority-classes.md).
	PriorityClassName string `json:"priority_class_name"`
	// ScrapeTargetsAlias is the alias of the Prometheus that scrapes the metrics (Gardener's
	// "Network Policies" docs/operations/network_policies.md).
	ScrapeTargetsAlias string `json:"scrape_targets_alias"`
	// RuntimeConfig is the API server's runtime config (group/version: served); the controllers
	// of the APIs it turns off are switched off too.
	RuntimeConfig map[string]bool `json:"-"`
	// Shoot, when set, configures a shoot's controller manager; nil is the virtual garden's, which
	// has no workers (newKubeControllerManager in pkg/operator/controller/garden/garden/components.go
	// at Gardener v1.120.0).
	Shoot *Shoot `json:"-"`
	// ScaleDownDisabled keeps the VPA from evicting the pod to scale it down, for a Shoot annotated
	// alpha.control-plane.scaling.shoot.gardener.cloud/scale-down-disabled. Set from Go only.
	ScaleDownDisabled bool `json:"-"`
	// Hibernated scales the component to zero replicas: Gardener scales every control-plane
	// component in the shoot namespace to zero when a shoot hibernates, keeping etcd's volumes
	// (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component Checklist"
	// docs/development/component-checklist.md).
	Hibernated bool `json:"-"`
}

// Name is the Deployment's and Service's name, <prefix>kube-controller-manager (Gardener's
// docs/concepts/operator.md).
func Name(prefix string) string { return prefix + "kube-controller-manager" }

// LabelMutatedByControlPlaneWebhook marks the workloads provider extensions' control-plane
// webhooks mutate (Gardener's "ControlPlane Webhooks" docs/extensions/controlplane-webhooks.md).
const LabelMutatedByControlPlaneWebhook = "provider.extensions.gardener.cloud/mutated-by-controlplane-webhook"

// SelectorLabels select the controller manager's pods: app=kubernetes and role controller-manager, the
// virtual garden's as a shoot's (getLabels in pkg/component/kubernetes/controllermanager at
// Gardener v1.120.0).
func SelectorLabels() map[string]string {
	return map[string]string{"app": kubeapiserver.AppLabel, "role": "controller-manager"}
}

// Type is the kube_controller_manager component type as the catalog registers it: its schema
// (schema.go) and its render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders the headless metrics Service, the Deployment and its PodDisruptionBudget, and
// for a shoot the ManagedResource with the controller manager's rights in the shoot
// (shootManagedResource).
func Objects(v Values) ([]render.Object, error) {
	if v.KubernetesVersion == "" {
		return nil, fmt.Errorf("kubernetes version is required")
	}
	if _, err := time.ParseDuration(v.CertificateSigningDuration); err != nil {
		return nil, fmt.Errorf("certificate signing duration %q: %w", v.CertificateSigningDuration, err)
	}
	if s := v.Shoot; s != nil && !s.Workerless {
		if s.Pods == "" {
			return nil, fmt.Errorf("shoot pod network is required to allocate node pod ranges")
		}
		if s.KubeletCASecretName == "" {
			return nil, fmt.Errorf("kubelet CA secret is required to sign kubelet serving certificates")
		}
		if s.NodeMonitorGracePeriod != "" {
			if _, err := time.ParseDuration(s.NodeMonitorGracePeriod); err != nil {
				return nil, fmt.Errorf("node monitor grace period %q: %w", s.NodeMonitorGracePeriod, err)
			}
		}
	}
	prefix, ns := v.NamePrefix, v.Namespace
	d, err := deployment(v, prefix, ns)
	if err != nil {
		return nil, err
	}
	// Gardener keeps a budget for a single replica too (Deploy in
	// pkg/component/kubernetes/controllermanager/controllermanager.go at gardener/gardener
	// v1.120.0): it lets the pod go at once, unhealthy or not.
	typed := []runtime.Object{service(v, prefix, ns), d, disruption.Budget(ns, Name(prefix), SelectorLabels())}
	us, err := kube.All(typed...)
	if err != nil {
		return nil, err
	}
	kubeapiserver.StripStatus(us)
	out := kube.On(v.Cluster.Name, "", append(us, vpa(v, prefix, ns))...)
	if v.Shoot != nil {
		managed, err := shootManagedResource(v)
		if err != nil {
			return nil, err
		}
		out = append(out, managed...)
	}
	return out, nil
}

// The mount paths of the Secrets (pkg/component/kubernetes/controllermanager/controllermanager.go
// at Gardener v1.120.0).
const (
	dirCA             = "/srv/kubernetes/ca"
	dirClientCA       = "/srv/kubernetes/ca-client"
	dirKubeletCA      = "/srv/kubernetes/ca-kubelet"
	dirServiceAccount = "/srv/kubernetes/service-account-key"
	dirServer         = "/var/lib/kube-controller-manager-server"
)

// binary is the kube-controller-manager in its image.
const binary = "/usr/local/bin/kube-controller-manager"

// tlsCipherSuites are the cipher suites the secure port offers, the ones Gardener allows for its
// components (TLSCipherSuites in pkg/utils/kubernetes/tls_cipher_suites.go at v1.120.0).
var tlsCipherSuites = []string{
	"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
	"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
	"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
	"TLS_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
}

// The horizontal pod autoscaler settings of a shoot's controller manager: Gardener's defaults,
// which the engine's shoots do not change (getHorizontalPodAutoscalerConfig in
// pkg/component/kubernetes/controllermanager/controllermanager.go and the DefaultHPA* constants of
// pkg/apis/core/v1beta1/types_shoot.go at v1.120.0).
const (
	hpaDownscaleStabilization  = 5 * time.Minute
	hpaInitialReadinessDelay   = 30 * time.Second
	hpaCPUInitializationPeriod = 5 * time.Minute
	hpaSyncPeriod              = 30 * time.Second
	hpaTolerance               = 0.1
)

// command is the container's command line, the binary and its flags in Gardener's order
// (computeCommand in pkg/component/kubernetes/controllermanager/controllermanager.go at v1.120.0):
// the kubeconfigs, then with workers the node and workload flags, then the certificate signers,
// the worker counts around the controller list, the feature gates, the keys and ports, the TLS
// settings and the verbosity.
func command(v Values) []string {
	w, workerless := gardenWorkers(), true
	if s := v.Shoot; s != nil {
		w, workerless = shootWorkers, s.Workerless
	}
	caFiles := func(dir string) (string, string) {
		return dir + "/" + render.DataKeyCACert, dir + "/" + render.DataKeyCAKey
	}
	clientCert, clientKey := caFiles(dirClientCA)

	c := []string{
		binary,
		"--authentication-kubeconfig=" + shootaccess.KubeconfigPath,
		"--authorization-kubeconfig=" + shootaccess.KubeconfigPath,
		"--kubeconfig=" + shootaccess.KubeconfigPath,
	}
	if !workerless {
		c = append(c, nodeFlags(v.Shoot)...)
		kubeletCert, kubeletKey := caFiles(dirKubeletCA)
		c = append(c,
			"--cluster-signing-kubelet-client-cert-file="+clientCert,
			"--cluster-signing-kubelet-client-key-file="+clientKey,
			"--cluster-signing-kubelet-serving-cert-file="+kubeletCert,
			"--cluster-signing-kubelet-serving-key-file="+kubeletKey,
			"--horizontal-pod-autoscaler-downscale-stabilization="+hpaDownscaleStabilization.String(),
			"--horizontal-pod-autoscaler-initial-readiness-delay="+hpaInitialReadinessDelay.String(),
			"--horizontal-pod-autoscaler-cpu-initialization-period="+hpaCPUInitializationPeriod.String(),
			"--horizontal-pod-autoscaler-sync-period="+hpaSyncPeriod.String(),
			fmt.Sprintf("--horizontal-pod-autoscaler-tolerance=%v", hpaTolerance),
			"--leader-elect=true",
			"--node-monitor-grace-period="+nodeMonitorGracePeriod(v.Shoot),
			fmt.Sprintf("--concurrent-deployment-syncs=%d", w.deployment),
			fmt.Sprintf("--concurrent-replicaset-syncs=%d", w.replicaSet),
			fmt.Sprintf("--concurrent-statefulset-syncs=%d", w.statefulSet),
		)
	}
	signing, _ := time.ParseDuration(v.CertificateSigningDuration) // checked by Objects
	c = append(c,
		"--cluster-name="+v.Namespace,
		"--cluster-signing-kube-apiserver-client-cert-file="+clientCert,
		"--cluster-signing-kube-apiserver-client-key-file="+clientKey,
		"--cluster-signing-legacy-unknown-cert-file="+clientCert,
		"--cluster-signing-legacy-unknown-key-file="+clientKey,
		"--cluster-signing-duration="+signing.String(),
		fmt.Sprintf("--concurrent-endpoint-syncs=%d", w.endpoint),
		fmt.Sprintf("--concurrent-gc-syncs=%d", w.garbageCollector),
		fmt.Sprintf("--concurrent-service-endpoint-syncs=%d", w.serviceEndpoint),
		"--controllers="+controllersFlag(workerless, w, v.RuntimeConfig, v.KubernetesVersion),
	)
	if w.namespace != 0 {
		c = append(c, fmt.Sprintf("--concurrent-namespace-syncs=%d", w.namespace))
	}
	if w.resourceQuota != 0 {
		c = append(c, fmt.Sprintf("--concurrent-resource-quota-syncs=%d", w.resourceQuota))
		if w.resourceQuotaSyncPeriod != "" {
			c = append(c, "--resource-quota-sync-period="+w.resourceQuotaSyncPeriod)
		}
	}
	if w.serviceAccountToken != 0 {
		c = append(c, fmt.Sprintf("--concurrent-serviceaccount-token-syncs=%d", w.serviceAccountToken))
	}
	if len(v.FeatureGates) > 0 {
		c = append(c, "--feature-gates="+kubeapiserver.FeatureGatesFlag(v.FeatureGates))
	}
	// Gardener reads the CA bundle (bundle.crt) and the key as id_rsa; the engine's Secrets key
	// them ca.crt and key.pem (render.DataKeyCACert and render.DataKeyPrivateKey).
	c = append(c,
		"--root-ca-file="+dirCA+"/"+render.DataKeyCACert,
		"--service-account-private-key-file="+dirServiceAccount+"/"+render.DataKeyPrivateKey,
		fmt.Sprintf("--secure-port=%d", Port),
	)
	if v.ServiceNetwork != "" {
		c = append(c, "--service-cluster-ip-range="+v.ServiceNetwork)
	}
	return append(c,
		"--profiling=false",
		"--tls-cert-file="+dirServer+"/"+render.DataKeyCert,
		"--tls-private-key-file="+dirServer+"/"+render.DataKeyKey,
		"--tls-cipher-suites="+strings.Join(tlsCipherSuites, ","),
		// Each controller acts as its own ServiceAccount, with tokens from the TokenRequest API.
		"--use-service-account-credentials=true",
		"--v=2",
	)
}

// nodeFlags are the pod range flags of a shoot with workers: the prefix length of each node's
// range (one per family when the pod networks are dual-stack), then the allocation itself.
func nodeFlags(s *Shoot) []string {
	var v4, v6 bool
	for _, cidr := range strings.Split(s.Pods, ",") {
		if ip, _, err := net.ParseCIDR(strings.TrimSpace(cidr)); err == nil && ip.To4() == nil {
			v6 = true
		} else {
			v4 = true
		}
	}
	var flags []string
	switch mask := s.NodeCIDRMaskSize; {
	case v4 && v6:
		if mask == 0 {
			mask = 24
		}
		flags = append(flags, fmt.Sprintf("--node-cidr-mask-size-ipv4=%d", mask), "--node-cidr-mask-size-ipv6=64")
	default:
		if mask == 0 {
			mask = 24
			if !v4 {
				mask = 64
			}
		}
		flags = append(flags, fmt.Sprintf("--node-cidr-mask-size=%d", mask))
	}
	return append(flags,
		"--allocate-node-cidrs=true",
		"--attach-detach-reconcile-sync-period=1m0s",
		"--cluster-cidr="+s.Pods,
	)
}

// nodeMonitorGracePeriod is the shoot's grace period as Go prints durations, 40s by default.
func nodeMonitorGracePeriod(s *Shoot) string {
	d := 40 * time.Second
	if s.NodeMonitorGracePeriod != "" {
		d, _ = time.ParseDuration(s.NodeMonitorGracePeriod) // checked by Objects
	}
	return d.String()
}

func deployment(v Values, prefix, ns string) (*appsv1.Deployment, error) {
	image, err := images.Of(v.Images, images.KubeControllerManager, v.KubernetesVersion)
	if err != nil {
		return nil, fmt.Errorf("kube-controller-manager images: %w", err)
	}
	selector := SelectorLabels()
	labels := map[string]string{
		"gardener.cloud/role":              "controlplane",
		"networking.gardener.cloud/to-dns": "allowed",
		// Restarted in the shoot's maintenance window (Gardener's "Shoot Maintenance"
		// docs/usage/shoot/shoot_maintenance.md).
		"maintenance.gardener.cloud/restart": "true",
		// Gardener's docs/concepts/resource-manager.md: egress to the API server's Service in the same
		// namespace.
		kubeapiserver.ToServiceLabel(kubeapiserver.ServiceName(prefix), kubeapiserver.Port): "allowed",
	}
	maps.Copy(labels, selector)
	// The Secrets in Gardener's order, then the generic kubeconfig with the token
	// (pkg/component/kubernetes/controllermanager/controllermanager.go at v1.120.0). Gardener mounts
	// the cluster CA's bundle, without a key, readable by all; the engine's CA Secret holds the
	// CA's key too, so it is readable by owner and group only, like the others.
	secretVolumes := [][3]string{
		{"ca", dirCA, v.CASecretName},
		{"ca-client", dirClientCA, v.ClientCASecretName},
		{"service-account-key", dirServiceAccount, v.ServiceAccountKeySecretName},
		{"server", dirServer, v.ServerTLSSecretName},
	}
	if s := v.Shoot; s != nil && !s.Workerless {
		secretVolumes = append(secretVolumes, [3]string{"ca-kubelet", dirKubeletCA, s.KubeletCASecretName})
	}
	var volumes []corev1.Volume
	var mounts []corev1.VolumeMount
	for _, s := range secretVolumes {
		source := &corev1.SecretVolumeSource{SecretName: s[2], DefaultMode: ptr.To(int32(0o640))}
		volumes = append(volumes, corev1.Volume{Name: s[0], VolumeSource: corev1.VolumeSource{Secret: source}})
		mounts = append(mounts, corev1.VolumeMount{Name: s[0], MountPath: s[1]})
	}
	access := shootaccess.Access{
		Namespace: ns, Component: "kube-controller-manager",
		GenericKubeconfigSecretName: v.GenericKubeconfigSecretName, AccessSecretName: v.AccessSecretName,
	}
	volumes, mounts = append(volumes, access.GenericKubeconfigVolume()), append(mounts, access.Mount())
	probe := kubeapiserver.SecureProbe("/healthz", Port, 2)
	probe.SuccessThreshold = 1
	// The nonroot user of the distroless image, as Gardener runs it.
	const nonRoot = int64(65532)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: Name(prefix), Namespace: ns, Labels: selector},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas.UnlessHibernated(replicas.HighAvailability(v.HighAvailability), v.Hibernated)),
			// Gardener keeps one old ReplicaSet and leaves the rollout strategy to the defaults.
			RevisionHistoryLimit: ptr.To[int32](1),
			Selector:             &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					// It reaches its API server through the kubeconfig it mounts.
					AutomountServiceAccountToken: ptr.To(false),
					PriorityClassName:            v.PriorityClassName,
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(nonRoot), RunAsGroup: ptr.To(nonRoot), FSGroup: ptr.To(nonRoot),
					},
					TopologySpreadConstraints: kube.SpreadOverNodesAndZones(selector),
					Containers: []corev1.Container{{
						Name:            "kube-controller-manager",
						Image:           image,
						ImagePullPolicy: corev1.PullIfNotPresent,
						Command:         command(v),
						Ports:           []corev1.ContainerPort{{Name: "metrics", ContainerPort: Port, Protocol: corev1.ProtocolTCP}},
						LivenessProbe:   probe,
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("10m"),
							corev1.ResourceMemory: resource.MustParse("30M"),
						}},
						SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
						VolumeMounts:    mounts,
					}},
					Volumes: volumes,
				},
			},
		},
	}
	// Provider extensions' control-plane webhooks mutate the Deployments that carry this label
	// (pkg/component/kubernetes/controllermanager/controllermanager.go at Gardener v1.120.0);
	// the selector stays without it.
	d.Labels = maps.Clone(selector)
	d.Labels[LabelMutatedByControlPlaneWebhook] = "true"
	return d, nil
}

// vpa scales the controller manager's requests (Deploy in
// pkg/component/kubernetes/controllermanager/controllermanager.go at gardener/gardener v1.120.0);
// with scale-down disabled, the VPA's eviction requirements controller never lets it evict the pod
// to scale down.
func vpa(v Values, prefix, ns string) *unstructured.Unstructured {
	u := autoscaler.Vertical(ns, Name(prefix)+"-vpa", nil, Name(prefix),
		autoscaler.ContainerPolicy{Container: "kube-controller-manager", ControlledValues: autoscaler.RequestsOnly})
	if v.ScaleDownDisabled {
		u.SetLabels(map[string]string{"autoscaling.gardener.cloud/eviction-requirements": "managed-by-controller"})
		u.SetAnnotations(map[string]string{"eviction-requirements.autoscaling.gardener.cloud/downscale-restriction": "never"})
	}
	return u
}

// service exposes the metrics port to Prometheus (Gardener's docs/operations/network_policies.md):
// headless, as Gardener's, so that each pod is scraped by its own address
// (controllermanager.go at v1.120.0).
func service(v Values, prefix, ns string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name: Name(prefix), Namespace: ns, Labels: SelectorLabels(),
			Annotations: map[string]string{
				"networking.resources.gardener.cloud/from-" + v.ScrapeTargetsAlias + "-allowed-ports": fmt.Sprintf(`[{"protocol":"TCP","port":%d}]`, Port),
			},
		},
		Spec: corev1.ServiceSpec{
			Type:      corev1.ServiceTypeClusterIP,
			ClusterIP: corev1.ClusterIPNone,
			Selector:  SelectorLabels(),
			// Gardener leaves the target port to the API server's default, the port.
			Ports: []corev1.ServicePort{{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: Port, TargetPort: intstr.FromInt32(Port)}},
		},
	}
}
