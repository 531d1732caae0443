package gardenerapiserver

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
)

// SecurePort is the port gardener-apiserver serves on; the Service maps 443 to it.
const SecurePort = 8443

// Mount paths of the Secrets and ConfigMaps the container reads.
const (
	etcdCADir         = "/srv/kubernetes/etcd/ca"
	etcdClientDir     = "/srv/kubernetes/etcd/client"
	tlsDir            = "/srv/gardener-apiserver/tls"
	encryptionDir     = "/etc/kubernetes/etcd-encryption-secret"
	encryptionKey     = "encryption-configuration.yaml"
	auditDir          = "/etc/kubernetes/audit"
	auditPolicyKey    = "audit-policy.yaml"
	autoscalingCPU    = "6"   // HPA average usage targets of the shoot kube-apiserver, which
	autoscalingMemory = "24G" // gardener-apiserver's autoscaling follows (Gardener's docs/development/autoscaling-specifics-for-components.md).
)

// Autoscaling bounds of gardener-apiserver: min 2 (3 with high availability), max 6 (Gardener's
// docs/development/autoscaling-specifics-for-components.md).
const (
	MinReplicas   = 2
	MinReplicasHA = 3
	MaxReplicas   = 6
)

func servicePort() corev1.ServicePort {
	return corev1.ServicePort{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromInt32(SecurePort)}
}

func (r resolved) args() []string {
	args := []string{
		"--authentication-kubeconfig=" + gardenercontrolplane.KubeconfigPath,
		"--authorization-kubeconfig=" + gardenercontrolplane.KubeconfigPath,
		"--kubeconfig=" + gardenercontrolplane.KubeconfigPath,
		"--cluster-identity=" + r.Values.ClusterIdentity,
		"--etcd-servers=" + r.Values.EtcdEndpoint,
		"--etcd-cafile=" + etcdCADir + "/ca.crt",
		"--etcd-certfile=" + etcdClientDir + "/tls.crt",
		"--etcd-keyfile=" + etcdClientDir + "/tls.key",
		"--encryption-provider-config=" + encryptionDir + "/" + encryptionKey,
		"--log-level=" + r.LogLevel,
		"--log-format=json",
		"--secure-port=" + strconv.Itoa(SecurePort),
		"--tls-cert-file=" + tlsDir + "/tls.crt",
		"--tls-private-key-file=" + tlsDir + "/tls.key",
	}
	if gates := kube.FeatureGatesFlag(r.FeatureGates); gates != "" {
		args = append(args, "--feature-gates="+gates)
	}
	if r.Values.DefaultWatchCacheSize != nil {
		args = append(args, "--default-watch-cache-size="+strconv.Itoa(*r.Values.DefaultWatchCacheSize))
	}
	if r.Values.AuditPolicyConfigMapName != "" {
		// Audit events go to standard output, where the runtime cluster's log shipping picks
		// them up; Gardener's documentation names no backend for gardener-apiserver.
		args = append(args, "--audit-policy-file="+auditDir+"/"+auditPolicyKey, "--audit-log-path=-")
	}
	return args
}

func secretVolume(name, secret string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret}}}
}

func (r resolved) volumes() ([]corev1.Volume, []corev1.VolumeMount) {
	vols := []corev1.Volume{
		r.Access().Volume(),
		secretVolume("etcd-ca", r.Values.EtcdCASecretName),
		secretVolume("etcd-client", r.Values.EtcdClientSecretName),
		secretVolume("tls", r.Values.TLSSecretName),
		secretVolume("etcd-encryption-configuration", r.Values.EncryptionConfigSecretName),
	}
	mounts := []corev1.VolumeMount{
		r.Access().Mount(),
		{Name: "etcd-ca", MountPath: etcdCADir, ReadOnly: true},
		{Name: "etcd-client", MountPath: etcdClientDir, ReadOnly: true},
		{Name: "tls", MountPath: tlsDir, ReadOnly: true},
		{Name: "etcd-encryption-configuration", MountPath: encryptionDir, ReadOnly: true},
	}
	if r.Values.AuditPolicyConfigMapName != "" {
		vols = append(vols, corev1.Volume{Name: "audit-policy", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: r.Values.AuditPolicyConfigMapName},
		}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "audit-policy", MountPath: auditDir, ReadOnly: true})
	}
	return vols, mounts
}

func probe(path string) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: path, Port: intstr.FromInt32(SecurePort), Scheme: corev1.URISchemeHTTPS,
		}},
		PeriodSeconds:    10,
		FailureThreshold: 3,
		TimeoutSeconds:   5,
	}
}

// deployment leaves replicas unset: the HorizontalPodAutoscaler owns them, and applying a count
// would fight it on every apply.
func (r resolved) deployment() (*appsv1.Deployment, error) {
	vols, mounts := r.volumes()
	return r.Deployment(images.GardenerAPIServer, nil,
		priorityclasses.GardenSystem500, // Gardener's docs/development/priority-classes.md
		nil,
		corev1.Container{
			Args:  r.args(),
			Ports: []corev1.ContainerPort{{Name: "https", ContainerPort: SecurePort, Protocol: corev1.ProtocolTCP}},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				// Initial requests of Gardener's docs/development/autoscaling-specifics-for-components.md.
				corev1.ResourceCPU:    resource.MustParse("600m"),
				corev1.ResourceMemory: resource.MustParse("512Mi"),
			}},
			LivenessProbe:  probe("/livez"),
			ReadinessProbe: probe("/readyz"),
			VolumeMounts:   mounts,
		},
		vols...)
}

// autoscaler scales on average usage, not utilisation, like the shoot kube-apiserver whose
// autoscaling gardener-apiserver's follows (Gardener's
// docs/development/autoscaling-specifics-for-components.md).
func (r resolved) autoscaler() *autoscalingv2.HorizontalPodAutoscaler {
	cpu := resource.MustParse(autoscalingCPU)
	memory := resource.MustParse(autoscalingMemory)
	return &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: r.Namespace, Labels: gardenercontrolplane.Labels(gardenercontrolplane.Role(Name))},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: Name},
			MinReplicas:    r.Replicas(MinReplicas, MinReplicasHA),
			MaxReplicas:    MaxReplicas,
			Metrics: []autoscalingv2.MetricSpec{
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
					Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &cpu},
				}},
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
					Name: corev1.ResourceMemory, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &memory},
				}},
			},
		},
	}
}
