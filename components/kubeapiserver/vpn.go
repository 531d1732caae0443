package kubeapiserver

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
)

// The highly available VPN's pieces in the API server's pod (handleVPNSettingsHA in
// pkg/component/kubernetes/apiserver/deployment.go at Gardener v1.120.0): one vpn-client per
// vpn-seed-server, each with its own tunnel into the shoot, a path controller that routes the
// API server's traffic through a tunnel that works, and an init container that prepares the pod's
// network and, through the seed's API, its own labels.
const (
	vpnClientContainer         = "vpn-client"
	vpnPathControllerContainer = "vpn-path-controller"
	vpnClientInitContainer     = "vpn-client-init"
	volumeAPIServerAccess      = "kube-api-access-gardener"
	volumeVPNSeedClient        = "vpn-seed-client"
	volumeVPNSeedTLSAuth       = "vpn-seed-tlsauth"
	volumeDevNetTun            = "dev-net-tun"
	dirAPIServerAccess         = "/var/run/secrets/kubernetes.io/serviceaccount"
	dirVPNSeedClient           = "/srv/secrets/vpn-client"
	dirVPNSeedTLSAuth          = "/srv/secrets/tlsauth"
	dirDevNetTun               = "/dev/net/tun"
	// vpnIPFamily is the seed's IP family the clients are told; the engine's seeds are IPv4.
	vpnIPFamily = "IPv4"
)

// networkEnv are the networks both VPN containers route: the first of each and all of them
// (the engine's shoots have one of each).
func networkEnv(r resolved) []corev1.EnvVar {
	v := r.VPN
	return []corev1.EnvVar{
		{Name: "SERVICE_NETWORK", Value: r.ServiceNetwork},
		{Name: "POD_NETWORK", Value: v.Pods},
		{Name: "NODE_NETWORK", Value: v.Nodes},
		{Name: "SERVICE_NETWORKS", Value: r.ServiceNetwork},
		{Name: "POD_NETWORKS", Value: v.Pods},
		{Name: "NODE_NETWORKS", Value: v.Nodes},
	}
}

// vpnResources are the requests of the VPN containers; VPA leaves them alone.
func vpnResources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("5M"),
	}}
}

// vpnClient is the client container of tunnel index.
func vpnClient(r resolved, image string, index int) corev1.Container {
	env := append([]corev1.EnvVar{{Name: "ENDPOINT", Value: fmt.Sprintf("%s-%d", vpnSeedServerName, index)}}, networkEnv(r)...)
	env = append(env,
		corev1.EnvVar{Name: "VPN_SERVER_INDEX", Value: strconv.Itoa(index)},
		corev1.EnvVar{Name: "IS_HA", Value: "true"},
		corev1.EnvVar{Name: "HA_VPN_SERVERS", Value: strconv.Itoa(r.VPN.Servers)},
		corev1.EnvVar{Name: "HA_VPN_CLIENTS", Value: strconv.Itoa(r.VPN.Clients)},
		corev1.EnvVar{Name: "OPENVPN_PORT", Value: strconv.Itoa(vpnSeedServerOpenVPNPort)},
		corev1.EnvVar{Name: "IP_FAMILIES", Value: vpnIPFamily},
	)
	return corev1.Container{
		Name:            fmt.Sprintf("%s-%d", vpnClientContainer, index),
		Image:           image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Env:             env,
		Resources:       vpnResources(),
		SecurityContext: &corev1.SecurityContext{
			RunAsNonRoot: ptr.To(false), RunAsUser: ptr.To(int64(0)),
			Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}},
		},
		TerminationMessagePath:   corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		VolumeMounts: []corev1.VolumeMount{
			{Name: volumeVPNSeedClient, MountPath: dirVPNSeedClient},
			{Name: volumeVPNSeedTLSAuth, MountPath: dirVPNSeedTLSAuth},
			{Name: volumeDevNetTun, MountPath: dirDevNetTun},
		},
	}
}

// vpnClientInit sets the pod's network up before the others start: the first client's
// container, privileged, with the pod's name and namespace and a token for the seed's API.
func vpnClientInit(r resolved, image string) corev1.Container {
	c := vpnClient(r, image, 0)
	c.Name = vpnClientInitContainer
	c.Command = []string{"/bin/vpn-client", "setup"}
	c.Env = append(c.Env,
		corev1.EnvVar{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		corev1.EnvVar{Name: "NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
	)
	c.SecurityContext.Privileged = ptr.To(true)
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: volumeAPIServerAccess, MountPath: dirAPIServerAccess, ReadOnly: true})
	return c
}

// vpnPathController pings the clients through every tunnel and routes through one that answers.
func vpnPathController(r resolved, image string) corev1.Container {
	env := append(networkEnv(r),
		corev1.EnvVar{Name: "IS_HA", Value: "true"},
		corev1.EnvVar{Name: "HA_VPN_CLIENTS", Value: strconv.Itoa(r.VPN.Clients)},
		corev1.EnvVar{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
	)
	return corev1.Container{
		Name:            vpnPathControllerContainer,
		Image:           image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         []string{"/bin/vpn-client", "path-controller"},
		Env:             env,
		Resources:       vpnResources(),
		SecurityContext: &corev1.SecurityContext{
			// A group of its own lets it open unprivileged ping sockets (the pod's sysctl).
			RunAsNonRoot: ptr.To(false), RunAsUser: ptr.To(int64(0)), RunAsGroup: ptr.To(int64(0)),
			Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}},
		},
		TerminationMessagePath:   corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
	}
}

// addVPNClients puts the highly available VPN into the API server's pod: the containers, the
// ServiceAccount whose token the init container uses, the sysctl that lets group 0 ping, and the
// volumes of the client certificate, the tls-auth key, the tun device and the projected token.
func addVPNClients(r resolved, pod *corev1.PodSpec) error {
	image, err := images.Of(r.Images, images.VPNClient, r.KubernetesVersion)
	if err != nil {
		return fmt.Errorf("vpn-client images: %w", err)
	}
	for i := range r.VPN.Servers {
		pod.Containers = append(pod.Containers, vpnClient(r, image, i))
	}
	pod.Containers = append(pod.Containers, vpnPathController(r, image))
	pod.InitContainers = append(pod.InitContainers, vpnClientInit(r, image))
	pod.ServiceAccountName = Name(r.prefix)
	pod.SecurityContext.Sysctls = append(pod.SecurityContext.Sysctls, corev1.Sysctl{Name: "net.ipv4.ping_group_range", Value: "0 0"})
	pod.Volumes = append(pod.Volumes,
		corev1.Volume{Name: volumeAPIServerAccess, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
			DefaultMode: ptr.To(int32(0o640)),
			Sources: []corev1.VolumeProjection{
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: ptr.To(int64(12 * 60 * 60)), Path: "token"}},
				{ConfigMap: &corev1.ConfigMapProjection{
					LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
					Items:                []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}},
				}},
				{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{
					FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}, Path: "namespace",
				}}}},
			},
		}}},
		corev1.Volume{Name: volumeVPNSeedClient, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
			DefaultMode: ptr.To(int32(0o640)),
			Sources: []corev1.VolumeProjection{
				{Secret: &corev1.SecretProjection{
					LocalObjectReference: corev1.LocalObjectReference{Name: r.VPN.CASecretName},
					Items:                []corev1.KeyToPath{{Key: keyCACert, Path: keyCACert}},
				}},
				{Secret: &corev1.SecretProjection{
					LocalObjectReference: corev1.LocalObjectReference{Name: r.VPN.ClientSecretName},
					Items:                []corev1.KeyToPath{{Key: keyCert, Path: keyCert}, {Key: keyKey, Path: keyKey}},
				}},
			},
		}}},
		corev1.Volume{Name: volumeVPNSeedTLSAuth, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: r.VPN.TLSAuthSecretName, DefaultMode: ptr.To(int32(0o640)),
		}}},
		corev1.Volume{Name: volumeDevNetTun, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
			Path: dirDevNetTun, Type: ptr.To(corev1.HostPathCharDev),
		}}},
	)
	return nil
}

// vpnAccess is the ServiceAccount of the highly available API server and what its init container
// may do with the pods of the namespace (roles.go at Gardener v1.120.0).
func vpnAccess(r resolved) []runtime.Object {
	sa := &corev1.ServiceAccount{
		ObjectMeta:                   metav1.ObjectMeta{Name: Name(r.prefix), Namespace: r.namespace},
		AutomountServiceAccountToken: ptr.To(false),
	}
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: vpnClientInitRoleName, Namespace: r.namespace},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch", "patch", "update"}}},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: vpnClientInitRoleName, Namespace: r.namespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: vpnClientInitRoleName},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: r.namespace}},
	}
	return []runtime.Object{sa, role, binding}
}

// vpnContainerNames are the containers VPA must leave alone.
func vpnContainerNames(r resolved) []string {
	var out []string
	if r.VPN == nil || !r.VPN.HighAvailability {
		return nil
	}
	for i := range r.VPN.Servers {
		out = append(out, fmt.Sprintf("%s-%d", vpnClientContainer, i))
	}
	return append(out, vpnPathControllerContainer)
}
