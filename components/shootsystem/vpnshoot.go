package shootsystem

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
)

const (
	// VPNShootName is the client's workload; its pods are labelled app=vpn-shoot (Gardener's "Network
	// Policies" docs/operations/network_policies.md).
	VPNShootName = "vpn-shoot"
	// vpnPort is the istio ingress gateway's port for the reversed tunnel (Gardener's "Control Plane
	// Endpoints And Ports" docs/usage/advanced/control-plane-endpoints-and-ports.md).
	vpnPort = "8132"
	// haVPNServers is the number of VPN servers, and clients, of an HA control plane
	// (Gardener's "Reversed VPN Tunnel" docs/development/reversed-vpn-tunnel.md).
	haVPNServers = 2
)

var vpnShootLabels = map[string]string{"app": VPNShootName}

// VPNShoot renders the reversed VPN client (Gardener's
// docs/usage/advanced/control-plane-endpoints-and-ports.md): a Deployment with one client, or for
// an HA control plane a StatefulSet of two pods, each with a client per VPN server (Gardener's
// docs/development/reversed-vpn-tunnel.md). A StatefulSet, because each pod needs a stable index
// for its bonding address; Gardener's documentation does not name the kind.
func VPNShoot(v Values) ([]*unstructured.Unstructured, error) {
	return renderPrepared(v, (*prepared).vpnShoot)
}

func (p *prepared) vpnShoot() ([]*unstructured.Unstructured, error) {
	if p.VPN.Endpoint == "" || p.VPN.ControlPlaneNamespace == "" {
		return nil, fmt.Errorf("shoot system components: vpn-shoot needs the endpoint and the control plane namespace")
	}
	image, err := p.image(images.VPNClient, "")
	if err != nil {
		return nil, err
	}
	var containers []corev1.Container
	if !p.VPN.HighAvailability {
		containers = []corev1.Container{p.vpnContainer(VPNShootName, image, -1)}
	} else {
		for i := range haVPNServers {
			containers = append(containers, p.vpnContainer(fmt.Sprintf("%s-s%d", VPNShootName, i), image, i))
		}
	}
	template := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: merge(vpnShootLabels, map[string]string{"type": "tunnel"})},
		Spec: corev1.PodSpec{
			PriorityClassName:            SystemClusterCritical, // Gardener's docs/development/priority-classes.md
			ServiceAccountName:           VPNShootName,
			AutomountServiceAccountToken: ptr.To(false),
			DNSPolicy:                    corev1.DNSDefault, // the endpoint is a public name
			TopologySpreadConstraints:    hostnameSpread(vpnShootLabels),
			Containers:                   containers,
			Volumes: []corev1.Volume{
				{Name: "vpn-client", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: p.VPN.SecretName, DefaultMode: ptr.To[int32](0o400)}}},
				{Name: "vpn-tlsauth", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: p.VPN.TLSAuthSecretName, DefaultMode: ptr.To[int32](0o400)}}},
				hostPath("dev-net-tun", "/dev/net/tun", corev1.HostPathCharDev),
			},
		},
	}
	selector := &metav1.LabelSelector{MatchLabels: template.Labels}
	objs := []runtime.Object{serviceAccount(VPNShootName, vpnShootLabels, false)}
	if !p.VPN.HighAvailability {
		objs = append(objs, &appsv1.Deployment{
			ObjectMeta: meta(VPNShootName, vpnShootLabels),
			Spec: appsv1.DeploymentSpec{
				Replicas:             ptr.To[int32](1),
				RevisionHistoryLimit: ptr.To[int32](2),
				Selector:             selector,
				Template:             template,
			},
		})
	} else {
		objs = append(objs,
			&appsv1.StatefulSet{
				ObjectMeta: meta(VPNShootName, vpnShootLabels),
				Spec: appsv1.StatefulSetSpec{
					Replicas:             ptr.To[int32](haVPNServers),
					RevisionHistoryLimit: ptr.To[int32](2),
					ServiceName:          VPNShootName,
					PodManagementPolicy:  appsv1.ParallelPodManagement,
					Selector:             selector,
					Template:             template,
				},
			},
			disruption.Budget(Namespace, VPNShootName, template.Labels),
		)
	}
	out, err := kube.All(objs...)
	if err != nil {
		return nil, err
	}
	// The client certificate signed by the VPN CA that vpn-seed-server trusts, and the
	// tls-auth key both ends share (Gardener's docs/development/reversed-vpn-tunnel.md).
	if v := p.VPN; v.Client.Name != "" && v.CA.Name != "" {
		out = append(out, generatedSecret(v.SecretName, vpnShootLabels, map[string]string{
			"tls.crt": v.Client.ref("tls.crt"), "tls.key": v.Client.ref("tls.key"), "ca.crt": v.CA.ref("ca.crt"),
		}))
	}
	if v := p.VPN; v.TLSAuth.Name != "" {
		out = append(out, generatedSecret(v.TLSAuthSecretName, vpnShootLabels, map[string]string{"vpn.tlsauth": v.TLSAuth.ref("vpn.tlsauth")}))
	}
	return out, nil
}

// vpnContainer is one VPN client; index is the VPN server it connects to in HA, -1 otherwise.
// The variables are the vpn-client image's interface; the tunnel is routed by the ingress
// gateway to the vpn-seed-server Service named in the header (Gardener's
// docs/development/reversed-vpn-tunnel.md).
func (p *prepared) vpnContainer(name, image string, index int) corev1.Container {
	server := "vpn-seed-server"
	if index >= 0 {
		server = fmt.Sprintf("vpn-seed-server-%d", index)
	}
	env := []corev1.EnvVar{
		{Name: "IS_SHOOT_CLIENT", Value: "true"},
		{Name: "ENDPOINT", Value: p.VPN.Endpoint},
		{Name: "OPENVPN_PORT", Value: vpnPort},
		{Name: "REVERSED_VPN_HEADER", Value: fmt.Sprintf("outbound|1194||%s.%s.svc.cluster.local", server, p.VPN.ControlPlaneNamespace)},
		{Name: "SERVICE_NETWORK", Value: p.ServiceCIDR},
		{Name: "POD_NETWORK", Value: p.PodCIDR},
		{Name: "NODE_NETWORK", Value: p.NodeCIDR},
	}
	if index >= 0 {
		env = append(env,
			corev1.EnvVar{Name: "VPN_SERVER_INDEX", Value: fmt.Sprint(index)},
			corev1.EnvVar{Name: "HA_VPN_SERVERS", Value: fmt.Sprint(haVPNServers)},
			corev1.EnvVar{Name: "HA_VPN_CLIENTS", Value: fmt.Sprint(haVPNServers)},
			corev1.EnvVar{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		)
	}
	return corev1.Container{
		Name:  name,
		Image: image,
		Env:   env,
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("100Mi")},
		},
		// The client creates the tun device and sets up routes.
		SecurityContext: &corev1.SecurityContext{
			Privileged:   ptr.To(false),
			Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}},
		},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "vpn-client", MountPath: "/srv/secrets/vpn-client", ReadOnly: true},
			{Name: "vpn-tlsauth", MountPath: "/srv/secrets/tlsauth", ReadOnly: true},
			{Name: "dev-net-tun", MountPath: "/dev/net/tun"},
		},
	}
}
