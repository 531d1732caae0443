package dependencywatchdog

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// ConfigKey is the ConfigMap key, and file name, of an instance's configuration.
const ConfigKey = "dep-config.yaml"

// ProbeKubeconfigSecretName is the Secret in each shoot namespace with the kubeconfig the prober
// reaches the shoot's kube-apiserver through its external (load balancer) address with
// (KubeConfigSecretName in pkg/component/nodemanagement/dependencywatchdog/access.go).
const ProbeKubeconfigSecretName = "shoot-access-dependency-watchdog-probe"

// The prober's probe interval and the weeder's watch duration: DefaultProbeInterval and
// DefaultWatchDuration in pkg/component/nodemanagement/dependencywatchdog/access.go. Everything
// else of the two configurations is left to dependency-watchdog's own defaults, as gardenlet
// leaves it.
const (
	probeInterval = 30 * time.Second
	watchDuration = 5 * time.Minute
)

// The configuration files, with the JSON names of dependency-watchdog's API (api/prober and
// api/weeder of gardener/dependency-watchdog v1.4.0, the version Gardener v1.120.0 builds with):
// gardenlet marshals these types, so omitted fields are omitted here too.
type (
	proberConfig struct {
		KubeConfigSecretName   string                  `json:"kubeConfigSecretName"`
		ProbeInterval          *metav1.Duration        `json:"probeInterval,omitempty"`
		DependentResourceInfos []dependentResourceInfo `json:"dependentResourceInfos"`
	}
	dependentResourceInfo struct {
		Ref       crossVersionRef `json:"ref"`
		Optional  bool            `json:"optional"`
		ScaleUp   *scaleInfo      `json:"scaleUp,omitempty"`
		ScaleDown *scaleInfo      `json:"scaleDown,omitempty"`
	}
	crossVersionRef struct {
		Kind       string `json:"kind"`
		Name       string `json:"name"`
		APIVersion string `json:"apiVersion,omitempty"`
	}
	scaleInfo struct {
		Level        int              `json:"level"`
		InitialDelay *metav1.Duration `json:"initialDelay,omitempty"`
	}
	weederConfig struct {
		WatchDuration                 *metav1.Duration              `json:"watchDuration,omitempty"`
		ServicesAndDependantSelectors map[string]dependantSelectors `json:"servicesAndDependantSelectors"`
	}
	dependantSelectors struct {
		PodSelectors []metav1.LabelSelector `json:"podSelectors"`
	}
)

// ScaleTarget is one control-plane Deployment the prober scales while a shoot's kube-apiserver is
// reachable in-cluster only. Lower levels go first; Optional targets may be missing (shoots
// without cluster-autoscaler).
type ScaleTarget struct {
	Name                         string
	Optional                     bool
	ScaleDownLevel, ScaleUpLevel int
	// ScaleUpDelay waits before the target is scaled up again; zero leaves dependency-watchdog's
	// default.
	ScaleUpDelay time.Duration
}

// ProberTargets are the Deployments the prober scales, the kube-apiserver's contribution to its
// configuration (NewDependencyWatchdogProberConfiguration in
// pkg/component/kubernetes/apiserver/dependency_watchdog.go): machine-controller-manager and
// cluster-autoscaler go down first, kube-controller-manager after them; kube-controller-manager
// comes back first, machine-controller-manager 30s later, cluster-autoscaler last.
var ProberTargets = []ScaleTarget{
	{Name: "kube-controller-manager", ScaleDownLevel: 1, ScaleUpLevel: 0},
	{Name: "machine-controller-manager", ScaleDownLevel: 0, ScaleUpLevel: 1, ScaleUpDelay: 30 * time.Second},
	{Name: "cluster-autoscaler", Optional: true, ScaleDownLevel: 0, ScaleUpLevel: 2},
}

// controlPlane selects the pods of a shoot control plane (gardener.cloud/role=controlplane) with
// a further requirement on their role label.
func controlPlane(roleOp metav1.LabelSelectorOperator, roles ...string) metav1.LabelSelector {
	return metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "gardener.cloud/role", Operator: metav1.LabelSelectorOpIn, Values: []string{"controlplane"}},
		{Key: "role", Operator: roleOp, Values: roles},
	}}
}

// WeederDependants maps each Service the weeder watches to the pods it restarts once the Service
// has endpoints again: kube-apiserver after etcd-main-client (etcd's contribution,
// NewDependencyWatchdogWeederConfiguration in pkg/component/etcd/etcd/dependency_watchdog.go), and
// every other control-plane pod but etcd-main and kube-apiserver after kube-apiserver (the
// kube-apiserver's, pkg/component/kubernetes/apiserver/dependency_watchdog.go).
func WeederDependants() map[string][]metav1.LabelSelector {
	return map[string][]metav1.LabelSelector{
		"etcd-main-client": {controlPlane(metav1.LabelSelectorOpIn, "apiserver")},
		"kube-apiserver":   {controlPlane(metav1.LabelSelectorOpNotIn, "main", "apiserver")},
	}
}

// configuration is an instance's configuration file.
func configuration(r Role) (string, error) {
	var cfg any
	switch r {
	case Prober:
		c := proberConfig{KubeConfigSecretName: ProbeKubeconfigSecretName, ProbeInterval: &metav1.Duration{Duration: probeInterval}}
		for _, t := range ProberTargets {
			up := &scaleInfo{Level: t.ScaleUpLevel}
			if t.ScaleUpDelay > 0 {
				up.InitialDelay = &metav1.Duration{Duration: t.ScaleUpDelay}
			}
			c.DependentResourceInfos = append(c.DependentResourceInfos, dependentResourceInfo{
				Ref:      crossVersionRef{Kind: "Deployment", Name: t.Name, APIVersion: "apps/v1"},
				Optional: t.Optional, ScaleUp: up, ScaleDown: &scaleInfo{Level: t.ScaleDownLevel},
			})
		}
		cfg = c
	case Weeder:
		c := weederConfig{WatchDuration: &metav1.Duration{Duration: watchDuration}, ServicesAndDependantSelectors: map[string]dependantSelectors{}}
		for svc, selectors := range WeederDependants() {
			c.ServicesAndDependantSelectors[svc] = dependantSelectors{PodSelectors: selectors}
		}
		cfg = c
	default:
		return "", fmt.Errorf("dependency-watchdog role %q is not one of prober, weeder", r)
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return "", fmt.Errorf("dependency-watchdog %s configuration: %w", r, err)
	}
	return string(out), nil
}
