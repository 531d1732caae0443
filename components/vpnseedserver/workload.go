package vpnseedserver

import (
	"fmt"
	"maps"
	"strconv"

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

// Where the server's secrets are mounted.
const (
	dirCerts   = "/srv/secrets/vpn-server"
	dirTLSAuth = "/srv/secrets/tlsauth"
	dirEnvoy   = "/etc/envoy"
)

// haClients is the number of vpn-shoot clients in the shoot with high availability: two pods,
// each with one client per server (Gardener's "Reversed VPN Tunnel"
// docs/development/reversed-vpn-tunnel.md).
const haClients = 2

// podLabels are the pod labels: the selector, the control-plane role, and the DNS egress the
// proxy needs to resolve the names the kube-apiserver connects to (Gardener's "Network Policies"
// docs/operations/network_policies.md).
func podLabels() map[string]string {
	l := map[string]string{
		"gardener.cloud/role":              "controlplane",
		"networking.gardener.cloud/to-dns": "allowed",
	}
	maps.Copy(l, SelectorLabels())
	return l
}

func env(r resolved) []corev1.EnvVar {
	n := r.ShootNetworks
	e := []corev1.EnvVar{
		{Name: "IP_FAMILIES", Value: ipFamily(n.Pods)},
		{Name: "SERVICE_NETWORK", Value: n.Services},
		{Name: "POD_NETWORK", Value: n.Pods},
	}
	if n.Nodes != "" {
		e = append(e, corev1.EnvVar{Name: "NODE_NETWORK", Value: n.Nodes})
	}
	e = append(e, corev1.EnvVar{Name: "VPN_NETWORK", Value: r.VPNNetwork})
	if r.HighAvailability {
		// Each server learns its index from its pod name (vpn-seed-server-<i>) and serves the
		// shoot's VPN clients (Gardener's docs/development/reversed-vpn-tunnel.md).
		e = append(e,
			corev1.EnvVar{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			corev1.EnvVar{Name: "IS_HA", Value: "true"},
			corev1.EnvVar{Name: "HA_VPN_CLIENTS", Value: strconv.Itoa(haClients)},
		)
	}
	return e
}

// ipFamily tells the server whether the shoot is IPv4 or IPv6 (single-stack, Gardener's Networking
// in docs/api-reference/core.md).
func ipFamily(cidr string) string {
	for _, c := range cidr {
		if c == ':' {
			return "IPv6"
		}
	}
	return "IPv4"
}

func vpnContainer(r resolved, image string) corev1.Container {
	return corev1.Container{
		Name:  Name,
		Image: image,
		Env:   env(r),
		Ports: []corev1.ContainerPort{{Name: "tcp-tunnel", ContainerPort: TunnelPort, Protocol: corev1.ProtocolTCP}},
		ReadinessProbe: &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(TunnelPort)}},
			InitialDelaySeconds: 5, PeriodSeconds: 10, FailureThreshold: 3,
		},
		LivenessProbe: &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(TunnelPort)}},
			InitialDelaySeconds: 10, PeriodSeconds: 20, FailureThreshold: 5,
		},
		// The server creates the tunnel device and routes to the shoot's networks: it needs
		// NET_ADMIN, but no privileged mode.
		SecurityContext: &corev1.SecurityContext{
			Privileged:   ptr.To(false),
			Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}},
		},
		// Requests an operator would start from for one tunnel; Gardener's documentation gives none.
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("100m"),
			corev1.ResourceMemory: resource.MustParse("100Mi"),
		}},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "certs", MountPath: dirCerts, ReadOnly: true},
			{Name: "tlsauth", MountPath: dirTLSAuth, ReadOnly: true},
			{Name: "dev-net-tun", MountPath: "/dev/net/tun"},
		},
	}
}

func envoyContainer(image string) corev1.Container {
	return corev1.Container{
		Name:    "envoy-proxy",
		Image:   image,
		Command: []string{"envoy", "--concurrency", "2", "-c", dirEnvoy + "/" + envoyConfigKey},
		Ports:   []corev1.ContainerPort{{Name: "http-proxy", ContainerPort: ProxyPort, Protocol: corev1.ProtocolTCP}},
		ReadinessProbe: &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(ProxyPort)}},
			InitialDelaySeconds: 5, PeriodSeconds: 10, FailureThreshold: 3,
		},
		SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("20m"),
			corev1.ResourceMemory: resource.MustParse("32Mi"),
		}},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "certs", MountPath: dirCerts, ReadOnly: true},
			{Name: "envoy-config", MountPath: dirEnvoy, ReadOnly: true},
		},
	}
}

func volumes(r resolved) []corev1.Volume {
	mode := ptr.To(int32(0o400))
	return []corev1.Volume{
		{Name: "certs", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
			DefaultMode: mode,
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
		{Name: "tlsauth", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: r.TLSAuthSecretName, DefaultMode: mode}}},
		{Name: "dev-net-tun", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
			Path: "/dev/net/tun", Type: ptr.To(corev1.HostPathCharDev),
		}}},
	}
}

func podSpec(r resolved) (corev1.PodSpec, error) {
	imgs, err := images.Resolve(r.Images, images.VPNServer, images.EnvoyProxy)
	if err != nil {
		return corev1.PodSpec{}, fmt.Errorf("vpn-seed-server images: %w", err)
	}
	server := imgs[images.VPNServer]
	spec := corev1.PodSpec{
		AutomountServiceAccountToken: ptr.To(false),
		PriorityClassName:            r.PriorityClassName,
		// Closing tunnels cleanly lets vpn-shoot reconnect to the other server at once.
		TerminationGracePeriodSeconds: ptr.To(int64(30)),
		Containers:                    []corev1.Container{vpnContainer(r, server)},
		Volumes:                       volumes(r),
	}
	if r.HighAvailability {
		spec.TopologySpreadConstraints = kube.SpreadOverNodesAndZones(SelectorLabels())
		return spec, nil
	}
	spec.Containers = append(spec.Containers, envoyContainer(imgs[images.EnvoyProxy]))
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "envoy-config", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: envoyConfigName}},
	}})
	return spec, nil
}

// deployment runs the single server with its proxy. Recreate: two servers would compete for the
// one vpn-shoot client.
func deployment(r resolved, envoyConfig *corev1.ConfigMap) (*appsv1.Deployment, error) {
	spec, err := podSpec(r)
	if err != nil {
		return nil, err
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: r.Namespace, Labels: SelectorLabels()},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(replicas.UnlessHibernated(replicas.HighAvailability(r.HighAvailability), r.Hibernated)),
			RevisionHistoryLimit: ptr.To(int32(2)),
			Selector:             &metav1.LabelSelector{MatchLabels: SelectorLabels()},
			Strategy:             appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
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
// is a server of its own, not a member waiting for its predecessor.
func statefulSet(r resolved) (*appsv1.StatefulSet, error) {
	spec, err := podSpec(r)
	if err != nil {
		return nil, err
	}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: r.Namespace, Labels: SelectorLabels()},
		Spec: appsv1.StatefulSetSpec{
			Replicas:             ptr.To(replicas.UnlessHibernated(replicas.HighAvailability(r.HighAvailability), r.Hibernated)),
			RevisionHistoryLimit: ptr.To(int32(2)),
			ServiceName:          Name,
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
