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
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
)

const (
	kubeProxyName      = "kube-proxy"
	kubeProxyConfigMap = "kube-proxy-config"
	kubeProxyConfigDir = "/var/lib/kube-proxy-config"
	// kubernetesVersionLabel is the worker pool's Kubernetes version on its nodes. Gardener's
	// "Gardener Node Agent" docs/concepts/node-agent.md names the key as the node agent's annotation;
	// Gardener also puts it on nodes as a label through the worker's machine labels, which the
	// documents do not state.
	kubernetesVersionLabel = "worker.gardener.cloud/kubernetes-version"
)

// kubeProxyLabels are the labels of all kube-proxy objects.
var kubeProxyLabels = map[string]string{"app": "kubernetes", "role": "proxy"}

// KubeProxyDaemonSetName is the DaemonSet of one worker pool at one Kubernetes version: a new
// version rolls out as a new DaemonSet on the pool's updated nodes. Gardener keeps the old
// version's for the nodes that still run it; the landscape deletes it with the update
// (superseded, see ManagedResources), as it cannot see the shoot's nodes.
func KubeProxyDaemonSetName(pool, version string) string {
	return fmt.Sprintf("kube-proxy-%s-v%s", pool, strings.TrimPrefix(version, "v"))
}

// KubeProxy renders kube-proxy: the shared ServiceAccount, RBAC and configuration, and one
// DaemonSet per worker pool. Nothing when kube-proxy is disabled (Gardener's KubeProxyConfig in
// docs/api-reference/core.md).
func KubeProxy(v Values) ([]*unstructured.Unstructured, error) {
	return renderPrepared(v, (*prepared).kubeProxy)
}

// kubeProxy is what KubeProxy renders, from prepared values.
func (p *prepared) kubeProxy() ([]*unstructured.Unstructured, error) {
	if p.KubeProxy.Disabled {
		return nil, nil
	}
	out, err := p.kubeProxyShared()
	if err != nil {
		return nil, err
	}
	for _, pool := range p.WorkerPools {
		objs, err := p.kubeProxyPool(pool)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// kubeProxyConfig is the KubeProxyConfiguration: the mode (Gardener's KubeProxyConfig in
// docs/api-reference/core.md), the pod network as the cluster CIDR, metrics and health endpoints on
// every address for monitoring and load balancer health checks (Gardener's "Seed Settings"
// docs/operations/seed_settings.md).
func (p *prepared) kubeProxyConfig() (map[string]string, error) {
	cfg := map[string]any{
		"apiVersion":         "kubeproxy.config.k8s.io/v1alpha1",
		"kind":               "KubeProxyConfiguration",
		"clusterCIDR":        p.PodCIDR,
		"mode":               strings.ToLower(p.KubeProxy.Mode),
		"metricsBindAddress": "0.0.0.0:10249",
		"healthzBindAddress": "0.0.0.0:10256",
		"conntrack":          map[string]any{"maxPerCore": 524288},
	}
	data, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("kube-proxy configuration: %w", err)
	}
	return map[string]string{"config.yaml": string(data)}, nil
}

// kubeProxyShared are the objects all pools' DaemonSets share.
func (p *prepared) kubeProxyShared() ([]*unstructured.Unstructured, error) {
	if p.PodCIDR == "" {
		return nil, fmt.Errorf("shoot system components: kube-proxy needs the pod network")
	}
	cfg, err := p.kubeProxyConfig()
	if err != nil {
		return nil, err
	}
	return kube.All(
		serviceAccount(kubeProxyName, kubeProxyLabels, true),
		// system:node-proxier is Kubernetes' built-in role for kube-proxy.
		clusterRoleBinding("gardener.cloud:target:node-proxier", "system:node-proxier", kubeProxyName, kubeProxyLabels),
		&corev1.ConfigMap{ObjectMeta: meta(kubeProxyConfigMap, kubeProxyLabels), Data: cfg},
	)
}

// kubeProxyPool is one worker pool's DaemonSet.
func (p *prepared) kubeProxyPool(pool WorkerPool) ([]*unstructured.Unstructured, error) {
	version := p.poolVersion(pool)
	image, err := p.image(images.KubeProxy, version)
	if err != nil {
		return nil, err
	}
	cfg, err := p.kubeProxyConfig()
	if err != nil {
		return nil, err
	}
	selector := merge(kubeProxyLabels, map[string]string{"pool": pool.Name, "version": version})
	labels := merge(selector, map[string]string{criticalComponentLabel: "true"}) // Gardener's docs/usage/advanced/node-readiness.md
	env := []corev1.EnvVar{{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}}
	if p.APIServerHost != "" {
		env = append(env,
			corev1.EnvVar{Name: "KUBERNETES_SERVICE_HOST", Value: p.APIServerHost},
			corev1.EnvVar{Name: "KUBERNETES_SERVICE_PORT", Value: "443"})
	}
	ds := &appsv1.DaemonSet{
		ObjectMeta: meta(KubeProxyDaemonSetName(pool.Name, version), labels),
		Spec: appsv1.DaemonSetSpec{
			Selector:             &metav1.LabelSelector{MatchLabels: selector},
			RevisionHistoryLimit: ptr.To[int32](2),
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type:          appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromInt32(1))},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{"checksum/config": checksum(cfg)}},
				Spec: corev1.PodSpec{
					PriorityClassName:  SystemNodeCritical, // Gardener's docs/development/priority-classes.md
					ServiceAccountName: kubeProxyName,
					HostNetwork:        true,
					DNSPolicy:          corev1.DNSClusterFirstWithHostNet,
					NodeSelector:       map[string]string{poolLabel: pool.Name, kubernetesVersionLabel: version},
					Tolerations:        nodeCriticalTolerations(),
					Containers: []corev1.Container{{
						Name:    kubeProxyName,
						Image:   image,
						Command: []string{"/usr/local/bin/kube-proxy", "--config=" + kubeProxyConfigDir + "/config.yaml", "--hostname-override=$(NODE_NAME)", "--v=2"},
						Env:     env,
						Ports:   []corev1.ContainerPort{{Name: "metrics", ContainerPort: 10249, HostPort: 10249, Protocol: corev1.ProtocolTCP}},
						LivenessProbe: &corev1.Probe{
							ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(10256)}},
							InitialDelaySeconds: 15, TimeoutSeconds: 15,
						},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("20m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
						},
						// kube-proxy programs the node's iptables or IPVS rules.
						SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)},
						VolumeMounts: []corev1.VolumeMount{
							{Name: "kube-proxy-config", MountPath: kubeProxyConfigDir, ReadOnly: true},
							{Name: "lib-modules", MountPath: "/lib/modules", ReadOnly: true},
							{Name: "xtables-lock", MountPath: "/run/xtables.lock"},
						},
					}},
					Volumes: []corev1.Volume{
						{Name: "kube-proxy-config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: kubeProxyConfigMap},
						}}},
						hostPath("lib-modules", "/lib/modules", corev1.HostPathDirectory),
						hostPath("xtables-lock", "/run/xtables.lock", corev1.HostPathFileOrCreate),
					},
				},
			},
		},
	}
	return kube.All(ds)
}
