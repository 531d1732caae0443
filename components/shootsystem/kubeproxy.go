package shootsystem

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
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
	"github.com/declarative-gardener/gardener/components/internal/unique"
)

// kube-proxy as gardenlet deploys it (pkg/component/kubernetes/proxy and
// pkg/gardenlet/operation/botanist/kubeproxy.go at gardener/gardener v1.120.0): shared objects in
// the ManagedResource shoot-core-kube-proxy, and one DaemonSet per worker pool and Kubernetes
// version in a ManagedResource of its own.
const (
	kubeProxyName = "kube-proxy"
	// The names of the shared Secret and ConfigMaps before the checksum of their data.
	kubeProxyConfigMap        = "kube-proxy-config"
	kubeProxyConntrackFix     = "kube-proxy-conntrack-fix-script"
	kubeProxyCleanup          = "kube-proxy-cleanup-script"
	kubeProxyKubeconfigDir    = "/var/lib/kube-proxy-kubeconfig"
	kubeProxyConfigDir        = "/var/lib/kube-proxy-config"
	kubeProxyStateDir         = "/var/lib/kube-proxy"
	kubeProxyModeFile         = kubeProxyStateDir + "/mode"
	kubeProxyScriptDir        = "/script"
	kubeProxyMetricsPort      = 10249
	kubeProxyHealthzPort      = 10256
	kubeProxyConntrackFixName = "conntrack-fix"
	// kubeProxyTokenFile is where the projected-token-mount webhook of the shoot's
	// gardener-resource-manager mounts the ServiceAccount's token, which kube-proxy's kubeconfig
	// reads.
	kubeProxyTokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token"
	// kubernetesVersionLabel is the worker pool's Kubernetes version on its nodes. Gardener's
	// "Gardener Node Agent" docs/concepts/node-agent.md names the key as the node agent's annotation;
	// Gardener also puts it on nodes as a label through the worker's machine labels.
	kubernetesVersionLabel = "worker.gardener.cloud/kubernetes-version"
)

// kubeProxyLabels are the labels of kube-proxy's Service and pods (GetLabels in proxy/resources.go).
var kubeProxyLabels = map[string]string{"app": "kubernetes", "role": "proxy"}

// systemComponentLabels mark the shoot's system components (origin=gardener,
// gardener.cloud/role=system-component).
var systemComponentLabels = map[string]string{"origin": "gardener", "gardener.cloud/role": "system-component"}

// KubeProxyDaemonSetName is the DaemonSet of one worker pool at one Kubernetes version: a new
// version rolls out as a new DaemonSet on the pool's updated nodes. Gardener keeps the old
// version's for the nodes that still run it; the landscape deletes it with the update
// (superseded, see ManagedResources), as it cannot see the shoot's nodes.
func KubeProxyDaemonSetName(pool, version string) string {
	return fmt.Sprintf("kube-proxy-%s-v%s", pool, strings.TrimPrefix(version, "v"))
}

// KubeProxy renders kube-proxy: the shared objects and one DaemonSet per worker pool. Nothing when
// kube-proxy is disabled (Gardener's KubeProxyConfig in docs/api-reference/core.md).
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

// kubeProxyMode is the mode in KubeProxyConfiguration's spelling.
func (p *prepared) kubeProxyMode() string { return strings.ToLower(p.KubeProxy.Mode) }

// kubeProxyConfig is the KubeProxyConfiguration (getRawComponentConfig in proxy/resources.go):
// the kubeconfig, the metrics address, the mode, the conntrack limit, the feature gates, and in
// iptables mode the pod network as the cluster CIDR. The health address is kube-proxy's default,
// 0.0.0.0:10256.
func (p *prepared) kubeProxyConfig() (map[string]string, error) {
	cfg := map[string]any{
		"apiVersion":         "kubeproxy.config.k8s.io/v1alpha1",
		"kind":               "KubeProxyConfiguration",
		"clientConnection":   map[string]any{"kubeconfig": kubeProxyKubeconfigDir + "/kubeconfig"},
		"metricsBindAddress": fmt.Sprintf("0.0.0.0:%d", kubeProxyMetricsPort),
		"mode":               p.kubeProxyMode(),
		"conntrack":          map[string]any{"maxPerCore": 524288},
	}
	if len(p.KubeProxy.FeatureGates) > 0 {
		cfg["featureGates"] = kube.AnyMap(p.KubeProxy.FeatureGates)
	}
	if p.KubeProxy.Mode != ModeIPVS {
		cfg["clusterCIDR"] = p.PodCIDR
	}
	data, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("kube-proxy configuration: %w", err)
	}
	return map[string]string{"config.yaml": string(data)}, nil
}

// kubeProxyKubeconfig reaches the shoot's API server by its internal domain, not through the
// kubernetes Service whose routing kube-proxy itself programs, with the ServiceAccount token the
// shoot's resource manager mounts (DeployKubeProxy in botanist/kubeproxy.go), its context named
// after the control-plane namespace. The cluster CA comes as a generated-secret marker.
func (p *prepared) kubeProxyKubeconfig() (string, error) {
	return kube.TokenKubeconfig(p.VPN.ControlPlaneNamespace, "https://"+p.APIServerHost, p.ClusterCA.ref("ca.crt"), kubeProxyTokenFile)
}

// kubeProxyNames are the content-derived names of the shared Secret and ConfigMaps the
// DaemonSets mount.
type kubeProxyNames struct{ kubeconfig, config, conntrackFix, cleanup string }

// kubeProxySharedObjects are the objects all pools' DaemonSets share, and their names.
func (p *prepared) kubeProxySharedObjects() ([]*unstructured.Unstructured, kubeProxyNames, error) {
	if p.PodCIDR == "" {
		return nil, kubeProxyNames{}, fmt.Errorf("shoot system components: kube-proxy needs the pod network")
	}
	if p.APIServerHost == "" {
		return nil, kubeProxyNames{}, fmt.Errorf("shoot system components: kube-proxy needs the API server's host")
	}
	cfg, err := p.kubeProxyConfig()
	if err != nil {
		return nil, kubeProxyNames{}, err
	}
	kubeconfig, err := p.kubeProxyKubeconfig()
	if err != nil {
		return nil, kubeProxyNames{}, err
	}
	configLabels := merge(kubeProxyLabels, systemComponentLabels)
	secret := &corev1.Secret{
		ObjectMeta: meta(kubeProxyName, nil),
		Type:       corev1.SecretTypeOpaque,
		StringData: map[string]string{"kubeconfig": kubeconfig},
	}
	config := &corev1.ConfigMap{ObjectMeta: meta(kubeProxyConfigMap, configLabels), Data: cfg}
	conntrack := &corev1.ConfigMap{ObjectMeta: meta(kubeProxyConntrackFix, configLabels), Data: map[string]string{"conntrack_fix.sh": conntrackFixScript}}
	cleanup := &corev1.ConfigMap{ObjectMeta: meta(kubeProxyCleanup, configLabels), Data: map[string]string{"cleanup.sh": cleanupScript}}
	uniqueSecret(secret)
	for _, cm := range []*corev1.ConfigMap{config, conntrack, cleanup} {
		unique.ConfigMap(cm)
	}
	objs, err := kube.All(
		serviceAccount(kubeProxyName, nil, false),
		// system:node-proxier is Kubernetes' built-in role for kube-proxy.
		clusterRoleBinding("gardener.cloud:target:node-proxier", "system:node-proxier", kubeProxyName, nil),
		&corev1.Service{
			ObjectMeta: meta(kubeProxyName, kubeProxyLabels),
			Spec: corev1.ServiceSpec{
				Type:      corev1.ServiceTypeClusterIP,
				ClusterIP: corev1.ClusterIPNone,
				Selector:  kubeProxyLabels,
				Ports: []corev1.ServicePort{{Name: "metrics", Port: kubeProxyMetricsPort, Protocol: corev1.ProtocolTCP,
					TargetPort: intstr.FromInt32(kubeProxyMetricsPort)}},
			},
		},
		secret, config, conntrack, cleanup,
	)
	return objs, kubeProxyNames{kubeconfig: secret.Name, config: config.Name, conntrackFix: conntrack.Name, cleanup: cleanup.Name}, err
}

// kubeProxyShared are the objects of the ManagedResource shoot-core-kube-proxy.
func (p *prepared) kubeProxyShared() ([]*unstructured.Unstructured, error) {
	objs, _, err := p.kubeProxySharedObjects()
	return objs, err
}

// conntrackFixScript removes, two minutes after the node's kube-proxy started, the TCP connections
// stuck in SYN_SENT that no NAT rule rewrote (their reply tuple mirrors the original one) and that
// leave the 10.0.0.0/8 range: connections opened before kube-proxy's rules existed, which would
// otherwise never reach a Service's endpoints. Gardener's sidecar does the same
// (pkg/component/kubernetes/proxy/resources/conntrack-fix.sh at v1.120.0). It then sleeps until the
// pod stops.
const conntrackFixScript = `#!/bin/sh -e
trap "kill -s INT 1" TERM
sleep 120 & wait
date
conntrack -L -p tcp --state SYN_SENT | awk '
{
  n = 0
  for (i = 1; i <= NF; i++) {
    if (split($i, kv, "=") == 2 && (kv[1] == "src" || kv[1] == "dst" || kv[1] == "sport" || kv[1] == "dport")) {
      n++
      t[n] = kv[2]
    }
  }
  # t[1..4]: src dst sport dport of the original direction, t[5..8]: of the reply
  if (n >= 8 && t[1] !~ /^10\./ && t[2] !~ /^10\./ && t[1] == t[6] && t[2] == t[5] && t[3] == t[8] && t[4] == t[7])
    printf "conntrack -D -p tcp -s %s --sport %s -d %s --dport %s\n", t[1], t[3], t[2], t[4]
}' | sh
while true; do
  date
  sleep 3600 & wait
done
`

// cleanupScript runs before kube-proxy on every start: the file given as $1 records the mode
// kube-proxy last ran in on the node; when it differs from KUBE_PROXY_MODE, kube-proxy removes the
// old mode's rules first. Gardener's init container does the same
// (pkg/component/kubernetes/proxy/resources/cleanup.sh at v1.120.0).
const cleanupScript = `#!/bin/sh -e
previous="$(cat "$1")"
if [ -n "${previous}" ] && [ "${previous}" != "${KUBE_PROXY_MODE}" ]; then
  /usr/local/bin/kube-proxy --v=2 --cleanup --config=` + kubeProxyConfigDir + `/config.yaml --proxy-mode="${previous}"
else
  echo "kube-proxy mode unchanged: nothing to clean up"
fi
echo "${KUBE_PROXY_MODE}" >"$1"
`

// kubeProxyPool is one worker pool's DaemonSet (computePoolResourcesData in proxy/resources.go):
// on the pool's nodes of its Kubernetes version, in the host network, node-critical; a cleanup
// init container when the mode changed, from Kubernetes 1.29 an init container that sets the
// node's kernel parameters so that kube-proxy itself needs no privileges, and the conntrack-fix
// sidecar.
func (p *prepared) kubeProxyPool(pool WorkerPool) ([]*unstructured.Unstructured, error) {
	version := p.poolVersion(pool)
	v, err := semver.NewVersion(version)
	if err != nil {
		return nil, fmt.Errorf("shoot system components: worker pool %s: kubernetes version %q: %w", pool.Name, version, err)
	}
	image, err := p.image(images.KubeProxy, version)
	if err != nil {
		return nil, err
	}
	conntrackImage, err := p.image(images.AlpineConntrack, "")
	if err != nil {
		return nil, err
	}
	_, names, err := p.kubeProxySharedObjects()
	if err != nil {
		return nil, err
	}
	from129 := !v.LessThan(semver.MustParse("1.29.0"))
	selector := merge(kubeProxyLabels, map[string]string{"pool": pool.Name, "version": version})
	critical := map[string]string{criticalComponentLabel: "true"} // Gardener's docs/usage/advanced/node-readiness.md
	mounts := []corev1.VolumeMount{
		{Name: "kubeconfig", MountPath: kubeProxyKubeconfigDir},
		{Name: "kube-proxy-config", MountPath: kubeProxyConfigDir},
		{Name: "ssl-certs-hosts", MountPath: "/etc/ssl/certs", ReadOnly: true},
		{Name: "kernel-modules", MountPath: "/lib/modules"},
		{Name: "xtables-lock", MountPath: "/run/xtables.lock"},
	}
	command := []string{"/usr/local/bin/kube-proxy", "--config=" + kubeProxyConfigDir + "/config.yaml", "--v=2"}
	healthz := "/healthz"
	if !v.LessThan(semver.MustParse("1.28.0")) {
		healthz = "/livez"
	}
	proxy := corev1.Container{
		Name:            kubeProxyName,
		Image:           image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         command,
		Ports:           []corev1.ContainerPort{{Name: "metrics", ContainerPort: kubeProxyMetricsPort, HostPort: kubeProxyMetricsPort, Protocol: corev1.ProtocolTCP}},
		ReadinessProbe: &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: healthz, Port: intstr.FromInt32(kubeProxyHealthzPort), Scheme: corev1.URISchemeHTTP}},
			InitialDelaySeconds: 15, TimeoutSeconds: 15, SuccessThreshold: 1, FailureThreshold: 2,
		},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("20m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
		},
		// From Kubernetes 1.29 the init container sets what needs privileges.
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN", "SYS_RESOURCE"}},
		},
		VolumeMounts: mounts,
	}
	if !from129 {
		proxy.SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
	}
	inits := []corev1.Container{{
		Name:            "cleanup",
		Image:           image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         []string{"sh", "-c", kubeProxyScriptDir + "/cleanup.sh " + kubeProxyModeFile},
		Env:             []corev1.EnvVar{{Name: "KUBE_PROXY_MODE", Value: p.kubeProxyMode()}},
		SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "kube-proxy-cleanup-script", MountPath: kubeProxyScriptDir},
			{Name: "kernel-modules", MountPath: "/lib/modules"},
			{Name: "kube-proxy-dir", MountPath: kubeProxyStateDir},
			{Name: "kube-proxy-mode", MountPath: kubeProxyModeFile},
			{Name: "kubeconfig", MountPath: kubeProxyKubeconfigDir},
			{Name: "kube-proxy-config", MountPath: kubeProxyConfigDir},
		},
	}}
	if from129 {
		init := *proxy.DeepCopy()
		init.Name, init.Command = kubeProxyName+"-init", append(append([]string{}, command...), "--init-only")
		init.Ports, init.ReadinessProbe = nil, nil
		init.SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
		inits = append(inits, init)
	}
	if p.VPAEnabled {
		// The limits Gardener sets when the shoot runs a VPA for kube-proxy.
		proxy.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2048Mi")}
		if from129 {
			inits[1].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}
		}
	}
	configMap := func(name, cm string, mode *int32) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: cm}, DefaultMode: mode,
		}}}
	}
	hostPathUntyped := func(name, path string) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path}}}
	}
	ds := &appsv1.DaemonSet{
		ObjectMeta: meta(KubeProxyDaemonSetName(pool.Name, version), merge(systemComponentLabels, critical)),
		Spec: appsv1.DaemonSetSpec{
			Selector:             &metav1.LabelSelector{MatchLabels: selector},
			RevisionHistoryLimit: ptr.To[int32](2),
			UpdateStrategy:       appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: merge(selector, systemComponentLabels, critical)},
				Spec: corev1.PodSpec{
					NodeSelector:       map[string]string{poolLabel: pool.Name, kubernetesVersionLabel: version},
					InitContainers:     inits,
					PriorityClassName:  SystemNodeCritical, // Gardener's docs/development/priority-classes.md
					SecurityContext:    &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
					Tolerations:        []corev1.Toleration{{Effect: corev1.TaintEffectNoSchedule, Operator: corev1.TolerationOpExists}, {Effect: corev1.TaintEffectNoExecute, Operator: corev1.TolerationOpExists}},
					HostNetwork:        true,
					ServiceAccountName: kubeProxyName,
					Containers: []corev1.Container{proxy, {
						Name:            kubeProxyConntrackFixName,
						Image:           conntrackImage,
						ImagePullPolicy: corev1.PullIfNotPresent,
						Command:         []string{"/bin/sh", kubeProxyScriptDir + "/conntrack_fix.sh"},
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							Capabilities:             &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}},
						},
						VolumeMounts: []corev1.VolumeMount{{Name: "conntrack-fix-script", MountPath: kubeProxyScriptDir}},
					}},
					Volumes: []corev1.Volume{
						{Name: "kubeconfig", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: names.kubeconfig}}},
						configMap("kube-proxy-config", names.config, nil),
						hostPathUntyped("ssl-certs-hosts", "/usr/share/ca-certificates"),
						hostPathUntyped("kernel-modules", "/lib/modules"),
						configMap("kube-proxy-cleanup-script", names.cleanup, ptr.To[int32](0o777)),
						hostPath("kube-proxy-dir", kubeProxyStateDir, corev1.HostPathDirectoryOrCreate),
						hostPath("kube-proxy-mode", kubeProxyModeFile, corev1.HostPathFileOrCreate),
						configMap("conntrack-fix-script", names.conntrackFix, nil),
						hostPath("xtables-lock", "/run/xtables.lock", corev1.HostPathFileOrCreate),
					},
				},
			},
		},
	}
	// The shoot's resource manager's garbage collector keeps the Secret and ConfigMaps the
	// DaemonSet names.
	unique.InjectTemplateReferences(&ds.ObjectMeta, &ds.Spec.Template)
	return kube.All(ds)
}
