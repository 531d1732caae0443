package kubescheduler

import (
	"encoding/base64"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/engine/render"
)

const (
	configKey = "config.yaml"
	// accessDir is where the access Secret is mounted: its kubeconfig and the token the token
	// requestor writes next to it.
	accessDir = "/var/run/secrets/gardener.cloud/shoot/access"
	configDir = "/var/lib/kube-scheduler-config"
	tlsDir    = "/var/lib/kube-scheduler-server"
	// BinPackingSchedulerName is the scheduler name of the bin-packing profile, which a
	// webhook in the shoot sets on new pods (Gardener's "Shoot Scheduling Profiles"
	// docs/usage/shoot/shoot_scheduling_profiles.md).
	BinPackingSchedulerName = "bin-packing-scheduler"
)

// accessSecret is the shoot access Secret: a kubeconfig for the shoot's kube-apiserver, reached
// through its Service in the same namespace, that authenticates with the token the shoot's
// gardener-resource-manager requests for the ServiceAccount kube-system/kube-scheduler of the
// shoot and writes into the Secret's token key (token requestor, class shoot, Gardener's "Gardener
// Resource Manager" docs/concepts/resource-manager.md).
func accessSecret(v Values) (*corev1.Secret, error) {
	ca := render.GeneratedRef(v.Namespace, v.CASecretName, "ca.crt", true)
	if v.CABundle != "" {
		ca = caData(v.CABundle)
	}
	cfg := map[string]any{
		"apiVersion":      "v1",
		"kind":            "Config",
		"current-context": "shoot",
		"clusters": []any{map[string]any{"name": "shoot", "cluster": map[string]any{
			"server":                     kubeapiserver.InternalEndpoint("", v.Namespace),
			"certificate-authority-data": ca,
		}}},
		"contexts": []any{map[string]any{"name": "shoot", "context": map[string]any{"cluster": "shoot", "user": Name}}},
		"users":    []any{map[string]any{"name": Name, "user": map[string]any{"tokenFile": accessDir + "/token"}}},
	}
	kubeconfig, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("kube-scheduler kubeconfig: %w", err)
	}
	return shootaccess.Access{Namespace: v.Namespace, Component: Name, AccessSecretName: v.AccessSecretName}.KubeconfigSecret(string(kubeconfig)), nil
}

// caData is certificate-authority-data: PEM is base64-encoded, anything else (base64, an
// engine marker) is used as it is.
func caData(s string) string {
	if strings.HasPrefix(strings.TrimSpace(s), "-----BEGIN") {
		return base64.StdEncoding.EncodeToString([]byte(s))
	}
	return s
}

// configuration is the KubeSchedulerConfiguration. balanced starts kube-scheduler without
// profiles, which gives the default-scheduler with the default plugins (Gardener's
// docs/usage/shoot/shoot_scheduling_profiles.md). bin-packing adds the bin-packing-scheduler
// profile, which scores nodes by the most allocated resources without the balanced-allocation
// plugin (Gardener's docs/usage/shoot/shoot_scheduling_profiles.md); default-scheduler stays, so
// that pods created while the shoot's webhook is not yet in place are still scheduled (an
// operator's choice: Gardener's documentation shows only the added profile).
func configuration(v Values) (string, error) {
	cfg := map[string]any{
		"apiVersion":       "kubescheduler.config.k8s.io/v1",
		"kind":             "KubeSchedulerConfiguration",
		"clientConnection": map[string]any{"kubeconfig": accessDir + "/kubeconfig"},
		"leaderElection": map[string]any{
			"leaderElect":       true,
			"resourceLock":      "leases",
			"resourceName":      Name,
			"resourceNamespace": "kube-system",
		},
	}
	if v.Profile == ProfileBinPacking {
		cfg["profiles"] = []any{
			map[string]any{"schedulerName": corev1.DefaultSchedulerName},
			map[string]any{
				"schedulerName": BinPackingSchedulerName,
				"pluginConfig": []any{map[string]any{
					"name": "NodeResourcesFit",
					"args": map[string]any{"scoringStrategy": map[string]any{"type": "MostAllocated"}},
				}},
				"plugins": map[string]any{"score": map[string]any{
					"disabled": []any{map[string]any{"name": "NodeResourcesBalancedAllocation"}},
				}},
			},
		}
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return "", fmt.Errorf("kube-scheduler configuration: %w", err)
	}
	return string(out), nil
}

func configMap(v Values) (*corev1.ConfigMap, error) {
	cfg, err := configuration(v)
	if err != nil {
		return nil, err
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName, Namespace: v.Namespace, Labels: SelectorLabels()},
		Data:       map[string]string{configKey: cfg},
	}, nil
}
