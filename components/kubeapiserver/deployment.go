package kubeapiserver

import (
	"fmt"
	"maps"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// Where the API server finds its files.
const (
	dirClientCA        = "/srv/kubernetes/ca-client"
	dirFrontProxyCA    = "/srv/kubernetes/ca-front-proxy"
	dirFrontProxyCert  = "/srv/kubernetes/front-proxy-client"
	dirEtcdCA          = "/srv/kubernetes/etcd/ca"
	dirEtcdClient      = "/srv/kubernetes/etcd/client"
	dirServer          = "/srv/kubernetes/tls"
	dirServiceAccount  = "/srv/kubernetes/service-account-key"
	dirEncryption      = "/etc/kubernetes/etcd-encryption-secret"
	dirAdmission       = "/etc/kubernetes/admission"
	dirAuditPolicy     = "/etc/kubernetes/audit"
	dirAuditLog        = "/var/lib/audit-log"
	secretDefaultMode  = int32(0o640)
	defaultCPURequest  = "600m"  // Gardener's docs/development/autoscaling-specifics-for-components.md
	defaultMemRequest  = "512Mi" // Gardener's docs/development/autoscaling-specifics-for-components.md
	defaultEventTTL    = "1h"    // the upstream default, written out so that plans show it
	defaultScrapeAlias = "all-garden-scrape-targets"
)

// The Secrets' data keys, as the engine's generated_secret classes write them.
const (
	keyCACert     = "ca.crt"
	keyCert       = "tls.crt"
	keyKey        = "tls.key"
	keyPrivateKey = "key.pem"
	keyPublicKey  = "pub.pem"
)

// mount is one Secret, ConfigMap or emptyDir volume of the pod.
type mount struct {
	name, dir string
	secret    string // Secret name, or
	configMap string // ConfigMap name, or neither for an emptyDir
}

func mounts(r resolved) []mount {
	m := []mount{
		{name: "ca-client", dir: dirClientCA, secret: r.ClientCASecretName},
		{name: "ca-front-proxy", dir: dirFrontProxyCA, secret: r.FrontProxyCASecretName},
		{name: "front-proxy-client", dir: dirFrontProxyCert, secret: r.FrontProxyClientSecretName},
		{name: "etcd-ca", dir: dirEtcdCA, secret: r.EtcdCASecretName},
		{name: "etcd-client", dir: dirEtcdClient, secret: r.EtcdClientSecretName},
		{name: "server", dir: dirServer, secret: r.ServerTLSSecretName},
		{name: "service-account-key", dir: dirServiceAccount, secret: r.ServiceAccountKeySecretName},
		{name: "etcd-encryption-secret", dir: dirEncryption, secret: r.EncryptionConfigSecretName},
		{name: "admission-config", dir: dirAdmission, configMap: admissionConfigName(r.prefix)},
	}
	if r.AuditPolicyConfigMap != "" {
		m = append(m, mount{name: "audit-policy", dir: dirAuditPolicy, configMap: r.AuditPolicyConfigMap}, mount{name: "audit-log", dir: dirAuditLog})
	}
	return m
}

// args are the API server's flags, in a fixed order.
func args(r resolved) []string {
	a := []string{
		"--admission-control-config-file=" + dirAdmission + "/" + admissionKey,
		// The virtual garden has no nodes, so RBAC is the only authorizer it needs.
		"--authorization-mode=RBAC",
		"--client-ca-file=" + dirClientCA + "/" + keyCACert,
		// Bootstrap tokens let gardenlets register with the garden.
		"--enable-bootstrap-token-auth=true",
		"--encryption-provider-config=" + dirEncryption + "/" + EncryptionConfigKey,
		"--etcd-cafile=" + dirEtcdCA + "/" + keyCACert,
		"--etcd-certfile=" + dirEtcdClient + "/" + keyCert,
		"--etcd-keyfile=" + dirEtcdClient + "/" + keyKey,
		"--etcd-servers=" + r.mainEndpoint,
		// Events go to their own etcd (Gardener's "etcd" docs/concepts/etcd.md).
		"--etcd-servers-overrides=/events#" + r.eventsEndpoint,
		"--event-ttl=" + r.EventTTL,
		"--external-hostname=" + ExternalHostname(r.DNSDomains), // Gardener's docs/concepts/operator.md
		"--profiling=false",
		"--proxy-client-cert-file=" + dirFrontProxyCert + "/" + keyCert,
		"--proxy-client-key-file=" + dirFrontProxyCert + "/" + keyKey,
		"--requestheader-client-ca-file=" + dirFrontProxyCA + "/" + keyCACert,
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-username-headers=X-Remote-User",
		fmt.Sprintf("--secure-port=%d", Port),
		"--service-account-issuer=" + or(r.ServiceAccountIssuer, "https://"+ExternalHostname(r.DNSDomains)),
		"--service-account-key-file=" + dirServiceAccount + "/" + keyPublicKey,
		"--service-account-signing-key-file=" + dirServiceAccount + "/" + keyPrivateKey,
		"--service-cluster-ip-range=" + r.ServiceNetwork,
		"--shutdown-delay-duration=15s",
		"--tls-cert-file=" + dirServer + "/" + keyCert,
		"--tls-private-key-file=" + dirServer + "/" + keyKey,
	}
	if len(r.EnableAdmissionPlugins) > 0 {
		a = append(a, "--enable-admission-plugins="+strings.Join(r.EnableAdmissionPlugins, ","))
	}
	if len(r.DisableAdmissionPlugins) > 0 {
		a = append(a, "--disable-admission-plugins="+strings.Join(r.DisableAdmissionPlugins, ","))
	}
	if r.AuditPolicyConfigMap != "" {
		a = append(a,
			"--audit-policy-file="+dirAuditPolicy+"/"+AuditPolicyKey,
			"--audit-log-path="+dirAuditLog+"/audit.log",
			"--audit-log-maxsize=100",
			"--audit-log-maxbackup=5",
		)
	}
	if len(r.FeatureGates) > 0 {
		a = append(a, "--feature-gates="+FeatureGatesFlag(r.FeatureGates))
	}
	return a
}

// podLabels add to the selector the labels that open the API server's network paths under
// Gardener's deny-all policies: DNS, its etcds (Gardener's "Gardener Resource Manager"
// docs/concepts/resource-manager.md), webhook servers (Gardener's "Network Policies"
// docs/operations/network_policies.md) and the networks OIDC issuers and external webhooks live in
// (Gardener's docs/operations/network_policies.md).
func podLabels(r resolved) map[string]string {
	l := map[string]string{
		"gardener.cloud/role":                                        "controlplane",
		"networking.gardener.cloud/to-dns":                           "allowed",
		"networking.gardener.cloud/to-public-networks":               "allowed",
		"networking.gardener.cloud/to-private-networks":              "allowed",
		"networking.resources.gardener.cloud/to-all-webhook-targets": "allowed",
	}
	maps.Copy(l, etcdLabels(r.prefix))
	maps.Copy(l, SelectorLabels(r.prefix))
	return l
}

func deployment(r resolved, admission *corev1.ConfigMap) (*appsv1.Deployment, error) {
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
	var volumes []corev1.Volume
	var volumeMounts []corev1.VolumeMount
	for _, m := range mounts(r) {
		vol := corev1.Volume{Name: m.name}
		switch {
		case m.secret != "":
			vol.Secret = &corev1.SecretVolumeSource{SecretName: m.secret, DefaultMode: ptr.To(secretDefaultMode)}
		case m.configMap != "":
			vol.ConfigMap = &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: m.configMap}}
		default:
			// The size limit bounds the audit log: 5 backups of 100 MB and the current file.
			vol.EmptyDir = &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("1Gi"))}
		}
		volumes = append(volumes, vol)
		volumeMounts = append(volumeMounts, corev1.VolumeMount{Name: m.name, MountPath: m.dir, ReadOnly: m.secret != "" || m.configMap != ""})
	}
	selector := SelectorLabels(r.prefix)
	return ControlPlaneDeployment(metav1.ObjectMeta{Name: Name(r.prefix), Namespace: r.namespace, Labels: selector},
		// No replicas while awake: the HorizontalPodAutoscaler owns them, and applying a count
		// would fight it. Hibernated, the count is 0, which the HPA leaves alone.
		replicas(r),
		metav1.ObjectMeta{
			Labels:      podLabels(r),
			Annotations: map[string]string{"checksum/configmap-admission-config": kube.Checksum(admission.Data)},
		},
		corev1.PodSpec{
			PriorityClassName:         r.PriorityClassName,
			TopologySpreadConstraints: kube.SpreadOverNodesAndZones(selector),
			Containers: []corev1.Container{{
				Name:    "kube-apiserver",
				Image:   image,
				Command: []string{"/usr/local/bin/kube-apiserver"},
				Args:    args(r),
				Ports:   []corev1.ContainerPort{{Name: "https", ContainerPort: Port, Protocol: corev1.ProtocolTCP}},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem,
				}},
				LivenessProbe:  SecureProbe("/livez", Port, 3),
				ReadinessProbe: SecureProbe("/readyz", Port, 3),
				VolumeMounts:   volumeMounts,
			}},
			Volumes: volumes,
		}), nil
}

// replicas is 0 for a hibernated API server and nil (left to the HPA) otherwise: releasing the
// field on wake-up resets it to the default of 1, which reactivates the HPA.
func replicas(r resolved) *int32 {
	if r.Hibernated {
		return ptr.To(int32(0))
	}
	return nil
}

// SecureProbe probes a Kubernetes control plane binary (kube-apiserver, kube-controller-manager,
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

// ControlPlaneDeployment is the Deployment of a Kubernetes control plane binary (kube-apiserver,
// kube-controller-manager, kube-scheduler): replicas pods (nil leaves the count to an autoscaler)
// selected by meta's labels, rolled out new pod first (kube.SurgeFirst), keeping two old
// ReplicaSets; the pods, with podMeta's labels and annotations, get no token for the cluster they
// run in: the binaries reach their API server through the kubeconfigs they mount.
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
