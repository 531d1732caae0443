package vpnseedserver

import (
	"fmt"
	"maps"
	"path"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
)

// Where the server's secrets, the proxy's configuration and the OpenVPN status live
// (pkg/component/networking/vpn/seedserver/seedserver.go at Gardener v1.120.0).
const (
	dirCerts     = "/srv/secrets/vpn-server"
	dirTLSAuth   = "/srv/secrets/tlsauth"
	dirEnvoy     = "/etc/envoy"
	dirStatus    = "/srv/status"
	devNetTun    = "/dev/net/tun"
	statusFile   = "openvpn.status"
	exporterName = "openvpn-exporter"
	envoyName    = "envoy-proxy"
	// envoyNonRootUser is the user the distroless Envoy image runs as (EnvoyNonRootUserId in
	// pkg/apis/core/v1beta1/constants at Gardener v1.120.0).
	envoyNonRootUser = 65532
	metricsPortName  = "metrics"
)

// Labels of the server's workload and pods (pkg/component/networking/vpn/seedserver/seedserver.go
// at Gardener v1.120.0).
const (
	// LabelMutatedByControlPlaneWebhook marks the workloads provider extensions' control-plane
	// webhooks mutate (Gardener's "ControlPlane Webhooks" docs/extensions/controlplane-webhooks.md);
	// Gardener sets it on the single server's Deployment only.
	LabelMutatedByControlPlaneWebhook = "provider.extensions.gardener.cloud/mutated-by-controlplane-webhook"
	// The egress labels of the pods that gardener-resource-manager's and gardenlet's
	// NetworkPolicy controllers allow: DNS, the shoot's node, pod and service networks (private
	// networks) through the tunnel, and the shoot's kube-apiserver, which a single server's proxy
	// forwards to.
	labelToDNS             = "networking.gardener.cloud/to-dns"
	labelToPrivateNetworks = "networking.gardener.cloud/to-private-networks"
	labelToKubeAPIServer   = "networking.resources.gardener.cloud/to-kube-apiserver-tcp-443"
)

// haClients is the number of vpn-shoot clients in the shoot with high availability: two pods,
// each with one client per server (Gardener's "Reversed VPN Tunnel"
// docs/development/reversed-vpn-tunnel.md).
const haClients = 2

// workloadLabels are the labels of the Deployment or StatefulSet: the selector and the
// control-plane role.
func workloadLabels() map[string]string {
	l := map[string]string{"gardener.cloud/role": "controlplane"}
	maps.Copy(l, SelectorLabels())
	return l
}

// podLabels are the workload's labels and the pods' egress labels.
func podLabels() map[string]string {
	l := workloadLabels()
	l[labelToDNS], l[labelToPrivateNetworks], l[labelToKubeAPIServer] = "allowed", "allowed", "allowed"
	return l
}

// env is the server's environment: the shoot's networks (the first of each, and all of them), the
// seed's pod network and the node's IP, and with high availability the status file the exporter
// reads, the pod's name (from which each server learns its index) and the number of vpn-shoot
// clients (Gardener's docs/development/reversed-vpn-tunnel.md).
func env(r resolved) []corev1.EnvVar {
	first := func(l []string) string {
		if len(l) == 0 {
			return ""
		}
		return l[0]
	}
	e := []corev1.EnvVar{
		{Name: "IP_FAMILIES", Value: strings.Join(r.IPFamilies, ",")},
		{Name: "SERVICE_NETWORK", Value: first(r.services)},
		{Name: "POD_NETWORK", Value: first(r.pods)},
		{Name: "NODE_NETWORK", Value: first(r.nodes)},
		{Name: "SERVICE_NETWORKS", Value: strings.Join(r.services, ",")},
		{Name: "POD_NETWORKS", Value: strings.Join(r.pods, ",")},
		{Name: "NODE_NETWORKS", Value: strings.Join(r.nodes, ",")},
		{Name: "SEED_POD_NETWORK", Value: r.SeedPodNetwork},
		fieldEnv("LOCAL_NODE_IP", "status.hostIP"),
	}
	if r.VPNNetwork != "" {
		e = append(e, corev1.EnvVar{Name: "VPN_NETWORK", Value: r.VPNNetwork})
	}
	if r.HighAvailability {
		e = append(e,
			corev1.EnvVar{Name: "OPENVPN_STATUS_PATH", Value: path.Join(dirStatus, statusFile)},
			fieldEnv("POD_NAME", "metadata.name"),
			corev1.EnvVar{Name: "IS_HA", Value: "true"},
			corev1.EnvVar{Name: "HA_VPN_CLIENTS", Value: strconv.Itoa(haClients)},
		)
	}
	return e
}

func fieldEnv(name, field string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: field}}}
}

func tcpProbe(port int32) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(port)}}}
}

// setupContainer prepares the node's network for the tunnel before the server starts: the one
// privileged step, so that the server itself runs with two capabilities only.
func setupContainer(image string) corev1.Container {
	return corev1.Container{
		Name: "setup", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         []string{"/bin/vpn-server", "setup"},
		SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)},
	}
}

func vpnContainer(r resolved, image string) corev1.Container {
	c := corev1.Container{
		Name: Name, Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
		Ports:          []corev1.ContainerPort{{Name: "tcp-tunnel", ContainerPort: TunnelPort, Protocol: corev1.ProtocolTCP}},
		Env:            env(r),
		ReadinessProbe: tcpProbe(TunnelPort),
		LivenessProbe:  tcpProbe(TunnelPort),
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("10m"),
			corev1.ResourceMemory: resource.MustParse("7.5M"),
		}},
		// The server manages the tunnel device and its routes: NET_ADMIN and NET_RAW, without
		// privilege escalation.
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN", "NET_RAW"}},
		},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "dev-net-tun", MountPath: devNetTun},
			{Name: "certs", MountPath: dirCerts},
			{Name: "tlsauth", MountPath: dirTLSAuth},
		},
	}
	if r.HighAvailability {
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "openvpn-status", MountPath: dirStatus})
	}
	return c
}

// envoyContainer is the single server's HTTP CONNECT proxy for the kube-apiserver, as a non-root
// user without capabilities.
func envoyContainer(image string) corev1.Container {
	return corev1.Container{
		Name: envoyName, Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
		Command:        []string{"envoy", "--concurrency", "2", "-c", path.Join(dirEnvoy, envoyConfigKey)},
		ReadinessProbe: tcpProbe(ProxyPort),
		LivenessProbe:  tcpProbe(ProxyPort),
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("10m"),
			corev1.ResourceMemory: resource.MustParse("25M"),
		}},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"all"}},
			RunAsUser:                ptr.To(int64(envoyNonRootUser)),
			RunAsNonRoot:             ptr.To(true),
		},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "certs", MountPath: dirCerts},
			{Name: "envoy-config", MountPath: dirEnvoy},
		},
	}
}

// exporterContainer serves the metrics of the servers with high availability from the OpenVPN
// status file.
func exporterContainer(image string) corev1.Container {
	return corev1.Container{
		Name: exporterName, Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
		Command:        []string{"/bin/vpn-server", "exporter"},
		Env:            []corev1.EnvVar{{Name: "OPENVPN_STATUS_PATH", Value: path.Join(dirStatus, statusFile)}},
		Ports:          []corev1.ContainerPort{{Name: metricsPortName, ContainerPort: MetricsPort, Protocol: corev1.ProtocolTCP}},
		ReadinessProbe: tcpProbe(MetricsPort),
		LivenessProbe:  tcpProbe(MetricsPort),
		Resources:      corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("20M")}},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"all"}},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: "openvpn-status", MountPath: dirStatus}},
	}
}

// volumes are the tunnel device, the CA's certificate with the server's certificate and key, and
// the TLS auth key. The engine's CA Secret keeps the certificate under ca.crt (Gardener's secrets
// manager publishes a bundle.crt); the projection names the file ca.crt either way.
func volumes(r resolved) []corev1.Volume {
	return []corev1.Volume{
		{Name: "dev-net-tun", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
			Path: devNetTun, Type: ptr.To(corev1.HostPathCharDev),
		}}},
		{Name: "certs", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
			DefaultMode: ptr.To(int32(0o644)),
			Sources: []corev1.VolumeProjection{
				{Secret: &corev1.SecretProjection{
					LocalObjectReference: corev1.LocalObjectReference{Name: r.CASecretName},
					Items:                []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}},
				}},
				{Secret: &corev1.SecretProjection{
					LocalObjectReference: corev1.LocalObjectReference{Name: r.ServerSecretName},
					Items:                []corev1.KeyToPath{{Key: "tls.crt", Path: "tls.crt"}, {Key: "tls.key", Path: "tls.key"}},
				}},
			},
		}}},
		{Name: "tlsauth", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: r.TLSAuthSecretName, DefaultMode: ptr.To(int32(0o400))}}},
	}
}

// podSpec runs the server on the node's DNS resolver, not the seed's cluster DNS, which the
// tunnel's routes could make unreachable.
func podSpec(r resolved) (corev1.PodSpec, error) {
	imgs, err := images.Resolve(r.Images, images.VPNServer, images.EnvoyProxy)
	if err != nil {
		return corev1.PodSpec{}, fmt.Errorf("vpn-seed-server images: %w", err)
	}
	server := imgs[images.VPNServer]
	spec := corev1.PodSpec{
		AutomountServiceAccountToken:  ptr.To(false),
		PriorityClassName:             r.PriorityClassName,
		DNSPolicy:                     corev1.DNSDefault,
		InitContainers:                []corev1.Container{setupContainer(server)},
		Containers:                    []corev1.Container{vpnContainer(r, server)},
		TerminationGracePeriodSeconds: ptr.To(int64(30)),
		Volumes:                       volumes(r),
	}
	if r.HighAvailability {
		spec.Containers = append(spec.Containers, exporterContainer(server))
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "openvpn-status", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
		return spec, nil
	}
	spec.Containers = append(spec.Containers, envoyContainer(imgs[images.EnvoyProxy]))
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "envoy-config", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: envoyConfigName}},
	}})
	return spec, nil
}

// deployment runs the single server with its proxy. A new pod starts before the old one stops
// (maxSurge 100, maxUnavailable 0), so that vpn-shoot reconnects to a running server. Provider
// extensions' control-plane webhooks mutate it.
func deployment(r resolved, envoyConfig *corev1.ConfigMap) (*appsv1.Deployment, error) {
	spec, err := podSpec(r)
	if err != nil {
		return nil, err
	}
	labels := workloadLabels()
	labels[LabelMutatedByControlPlaneWebhook] = "true"
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: r.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(replicas.UnlessHibernated(int32(1), r.Hibernated)),
			RevisionHistoryLimit: ptr.To(int32(2)),
			Selector:             &metav1.LabelSelector{MatchLabels: SelectorLabels()},
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge: ptr.To(intstr.FromInt32(100)), MaxUnavailable: ptr.To(intstr.FromInt32(0)),
				},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      podLabels(),
					Annotations: map[string]string{"checksum/envoy-config": kube.Checksum(envoyConfig.Data)},
				},
				Spec: spec,
			},
		},
	}, nil
}

// statefulSet runs the two servers with the stable pod names vpn-seed-server-0 and -1 that the
// per-pod Services select (Gardener's docs/development/reversed-vpn-tunnel.md). Parallel: each pod
// is a server of its own, not a member waiting for its predecessor. Like Gardener's, it names no
// governing Service.
func statefulSet(r resolved) (*appsv1.StatefulSet, error) {
	spec, err := podSpec(r)
	if err != nil {
		return nil, err
	}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: r.Namespace, Labels: workloadLabels()},
		Spec: appsv1.StatefulSetSpec{
			Replicas:             ptr.To(replicas.UnlessHibernated(replicas.HighAvailability(true), r.Hibernated)),
			RevisionHistoryLimit: ptr.To(int32(1)),
			PodManagementPolicy:  appsv1.ParallelPodManagement,
			Selector:             &metav1.LabelSelector{MatchLabels: SelectorLabels()},
			UpdateStrategy:       appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels()},
				Spec:       spec,
			},
		},
	}, nil
}
