package shootsystem

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
)

const (
	// NodeLocalDNSName is the DaemonSet of the per-node DNS cache (Gardener's "NodeLocalDNS
	// Configuration" docs/usage/networking/node-local-dns.md).
	NodeLocalDNSName = "node-local-dns"
	// KubeDNSUpstreamService is a second Service for CoreDNS, through which the cache reaches
	// CoreDNS while it answers on the kube-dns address itself.
	KubeDNSUpstreamService = "kube-dns-upstream"
	// NodeLocalDNSAddress is the link-local address the cache listens on; Gardener's documentation
	// does not give it, this is upstream's default, which kubelets are then configured with.
	NodeLocalDNSAddress = "169.254.20.10"
	nodeLocalDNSHealth  = 8099
)

var nodeLocalDNSLabels = map[string]string{"k8s-app": NodeLocalDNSName}

// NodeLocalDNS renders the node-local DNS cache when enabled (Gardener's
// docs/usage/networking/node-local-dns.md), nothing otherwise: its DaemonSet, configuration and the
// kube-dns-upstream Service.
func NodeLocalDNS(v Values) ([]*unstructured.Unstructured, error) {
	return renderPrepared(v, func(p *prepared) ([]*unstructured.Unstructured, error) {
		if !p.NodeLocalDNS.Enabled {
			return nil, nil
		}
		return p.nodeLocalDNS()
	})
}

// bindAddresses are the addresses the cache answers on: with kube-proxy in IPTables mode also
// the kube-dns address, so that pods still configured with it use the cache (Gardener's
// docs/usage/networking/node-local-dns.md); IPVS binds the Service address itself, so only the
// link-local address remains.
func (p *prepared) bindAddresses() []string {
	if p.KubeProxy.Mode == ModeIPVS {
		return []string{NodeLocalDNSAddress}
	}
	return []string{NodeLocalDNSAddress, p.clusterDNSIP}
}

// nodeLocalCorefile is the cache's configuration. node-cache fills in __PILLAR__CLUSTER__DNS__
// (the kube-dns-upstream address) and __PILLAR__UPSTREAM__SERVERS__ (the node's resolvers).
// TCP is forced unless switched off (Gardener's NodeLocalDNS in docs/api-reference/core.md);
// without forwarding upstream, every query goes to CoreDNS (Gardener's NodeLocalDNS in
// docs/api-reference/core.md, "Custom DNS Configuration"
// docs/usage/networking/custom-dns-config.md).
func (p *prepared) nodeLocalCorefile() string {
	bind := strings.Join(p.bindAddresses(), " ")
	forward := func(to string, udp bool) string {
		if udp {
			return "forward . " + to
		}
		return "forward . " + to + " {\n    force_tcp\n  }"
	}
	toCluster := forward("__PILLAR__CLUSTER__DNS__", p.NodeLocalDNS.UDPToClusterDNS)
	toUpstream := forward("__PILLAR__UPSTREAM__SERVERS__", p.NodeLocalDNS.UDPToUpstreamDNS)
	if p.NodeLocalDNS.DisableForwardToUpstreamDNS {
		toUpstream = toCluster
	}
	var b strings.Builder
	fmt.Fprintf(&b, `%s:53 {
  errors
  cache {
    success 9984 30
    denial 9984 5
  }
  reload
  loop
  bind %s
  %s
  prometheus :9253
  health %s:%d
}
`, clusterDomain, bind, toCluster, NodeLocalDNSAddress, nodeLocalDNSHealth)
	// The reverse zones go to CoreDNS as the cluster domain does, every other name upstream.
	for _, zone := range []struct{ name, forward string }{{"in-addr.arpa", toCluster}, {"ip6.arpa", toCluster}, {".", toUpstream}} {
		fmt.Fprintf(&b, `%s:53 {
  errors
  cache 30
  reload
  loop
  bind %s
  %s
  prometheus :9253
}
`, zone.name, bind, zone.forward)
	}
	return b.String()
}

func (p *prepared) nodeLocalDNS() ([]*unstructured.Unstructured, error) {
	image, err := p.image(images.NodeLocalDNS, "")
	if err != nil {
		return nil, err
	}
	config := map[string]string{"Corefile": p.nodeLocalCorefile()}
	labels := merge(nodeLocalDNSLabels, map[string]string{criticalComponentLabel: "true"}) // Gardener's docs/usage/advanced/node-readiness.md
	podLabels := merge(labels, map[string]string{toDNS: allowed})
	return kube.All(
		serviceAccount(NodeLocalDNSName, nodeLocalDNSLabels, false),
		&corev1.ConfigMap{ObjectMeta: meta(NodeLocalDNSName, nodeLocalDNSLabels), Data: config},
		&corev1.Service{
			ObjectMeta: meta(KubeDNSUpstreamService, coreDNSLabels),
			Spec: corev1.ServiceSpec{
				Selector: coreDNSLabels,
				Ports: []corev1.ServicePort{
					{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP, TargetPort: intstr.FromInt32(coreDNSPort)},
					{Name: "dns-tcp", Port: 53, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(coreDNSPort)},
				},
			},
		},
		&appsv1.DaemonSet{
			ObjectMeta: meta(NodeLocalDNSName, labels),
			Spec: appsv1.DaemonSetSpec{
				Selector:             &metav1.LabelSelector{MatchLabels: nodeLocalDNSLabels},
				RevisionHistoryLimit: ptr.To[int32](2),
				UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
					Type:          appsv1.RollingUpdateDaemonSetStrategyType,
					RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromString("10%"))},
				},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: podLabels, Annotations: map[string]string{"checksum/config": checksum(config)}},
					Spec: corev1.PodSpec{
						// Node-critical (Gardener's docs/usage/advanced/node-readiness.md); Gardener's "Priority
						// Classes" docs/development/priority-classes.md lists the class's other users.
						PriorityClassName:            SystemNodeCritical,
						ServiceAccountName:           NodeLocalDNSName,
						AutomountServiceAccountToken: ptr.To(false),
						HostNetwork:                  true,
						DNSPolicy:                    corev1.DNSDefault,
						Tolerations:                  nodeCriticalTolerations(),
						Containers: []corev1.Container{{
							Name:  NodeLocalDNSName,
							Image: image,
							Args: []string{
								"-localip", strings.Join(p.bindAddresses(), ","),
								"-conf", "/etc/Corefile",
								"-upstreamsvc", KubeDNSUpstreamService,
								"-health-port", fmt.Sprint(nodeLocalDNSHealth),
							},
							Ports: []corev1.ContainerPort{
								{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP},
								{Name: "dns-tcp", ContainerPort: 53, Protocol: corev1.ProtocolTCP},
								{Name: "metrics", ContainerPort: 9253, Protocol: corev1.ProtocolTCP},
							},
							LivenessProbe: &corev1.Probe{
								ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
									Host: NodeLocalDNSAddress, Path: "/health", Port: intstr.FromInt32(nodeLocalDNSHealth),
								}},
								InitialDelaySeconds: 60, TimeoutSeconds: 5,
							},
							Resources: corev1.ResourceRequirements{
								Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("25m"), corev1.ResourceMemory: resource.MustParse("25Mi")},
							},
							// The cache adds its addresses to a dummy interface and iptables
							// rules that keep its traffic out of conntrack.
							SecurityContext: &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}}},
							VolumeMounts: []corev1.VolumeMount{
								{Name: "config-volume", MountPath: "/etc/coredns"},
								{Name: "xtables-lock", MountPath: "/run/xtables.lock"},
							},
						}},
						Volumes: []corev1.Volume{
							{Name: "config-volume", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
								LocalObjectReference: corev1.LocalObjectReference{Name: NodeLocalDNSName},
								// node-cache renders /etc/Corefile from this template.
								Items: []corev1.KeyToPath{{Key: "Corefile", Path: "Corefile.base"}},
							}}},
							hostPath("xtables-lock", "/run/xtables.lock", corev1.HostPathFileOrCreate),
						},
					},
				},
			},
		},
	)
}
