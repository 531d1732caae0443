package dependencywatchdog

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// ConfigKey is the ConfigMap key, and file name, of an instance's configuration.
const ConfigKey = "dep-config.yaml"

// ScaleTarget is one control-plane Deployment the prober scales: Optional ones (absent for
// shoots without workers or autoscaling) are skipped when missing. Lower levels are scaled first.
type ScaleTarget struct {
	Name                         string
	Optional                     bool
	ScaleDownLevel, ScaleUpLevel int
}

// ProberTargets are the Deployments the prober scales down while a kube-apiserver is reachable
// only in-cluster (Gardener's "Seed Bootstrapping" docs/operations/seed_bootstrapping.md, "Seed
// Settings" docs/operations/seed_settings.md). Gardener's documentation gives the set, not the
// order: dependants go first when scaling down (cluster-autoscaler depends on
// machine-controller-manager, Gardener's docs/operations/seed_settings.md), and come back last when
// scaling up; kube-controller-manager, which marks nodes NotReady, goes last and comes back first.
var ProberTargets = []ScaleTarget{
	{Name: "kube-controller-manager", ScaleDownLevel: 2, ScaleUpLevel: 0},
	{Name: "machine-controller-manager", Optional: true, ScaleDownLevel: 1, ScaleUpLevel: 1},
	{Name: "cluster-autoscaler", Optional: true, ScaleDownLevel: 0, ScaleUpLevel: 2},
}

// The prober's timing is an operator's choice; Gardener's documentation gives none.
const (
	probeInterval       = "10s"
	probeInitialDelay   = "30s"
	probeTimeout        = "30s"
	backoffJitterFactor = 0.2
	scaleTimeout        = "30s"
	scaleUpDelay        = "30s"
)

// weederWatchDuration is how long the weeder watches crash-looping dependants after a Service
// has endpoints again; an operator's choice.
const weederWatchDuration = "5m0s"

// controlPlane selects the pods of a shoot control plane (gardener.cloud/role=controlplane,
// Gardener's docs/operations/seed_bootstrapping.md) with further requirements on their role label.
func controlPlane(roleOp metav1.LabelSelectorOperator, roles ...string) metav1.LabelSelector {
	return metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "gardener.cloud/role", Operator: metav1.LabelSelectorOpIn, Values: []string{"controlplane"}},
		{Key: "role", Operator: roleOp, Values: roles},
	}}
}

// WeederDependants maps each Service the weeder watches to the pods it restarts when the Service
// is available again: kube-apiserver after etcd, and every other control-plane pod after
// kube-apiserver (Gardener's docs/operations/seed_bootstrapping.md). The etcd pods (roles main,
// events) depend on no Service.
func WeederDependants() map[string][]metav1.LabelSelector {
	return map[string][]metav1.LabelSelector{
		"etcd-main-client": {controlPlane(metav1.LabelSelectorOpIn, "apiserver")},
		"kube-apiserver":   {controlPlane(metav1.LabelSelectorOpNotIn, "main", "events", "apiserver")},
	}
}

// configuration is an instance's configuration file.
func configuration(r Role) (string, error) {
	var cfg map[string]any
	switch r {
	case Prober:
		var infos []any
		for _, t := range ProberTargets {
			infos = append(infos, map[string]any{
				"ref":       map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": t.Name},
				"optional":  t.Optional,
				"scaleUp":   map[string]any{"level": t.ScaleUpLevel, "initialDelay": scaleUpDelay, "timeout": scaleTimeout},
				"scaleDown": map[string]any{"level": t.ScaleDownLevel, "initialDelay": "0s", "timeout": scaleTimeout},
			})
		}
		cfg = map[string]any{
			"probeInterval":          probeInterval,
			"initialDelay":           probeInitialDelay,
			"probeTimeout":           probeTimeout,
			"backoffJitterFactor":    backoffJitterFactor,
			"dependentResourceInfos": infos,
		}
	case Weeder:
		services := map[string]any{}
		for svc, selectors := range WeederDependants() {
			services[svc] = map[string]any{"podSelectors": selectors}
		}
		cfg = map[string]any{"watchDuration": weederWatchDuration, "servicesAndDependantSelectors": services}
	default:
		return "", fmt.Errorf("dependency-watchdog role %q is not one of prober, weeder", r)
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return "", fmt.Errorf("dependency-watchdog %s configuration: %w", r, err)
	}
	return string(out), nil
}
