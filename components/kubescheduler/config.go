package kubescheduler

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
)

const (
	configKey = "config.yaml"
	// BinPackingSchedulerName is the scheduler name of the bin-packing profile, which a
	// webhook in the shoot sets on new pods (Gardener's "Shoot Scheduling Profiles"
	// docs/usage/shoot/shoot_scheduling_profiles.md).
	BinPackingSchedulerName = "bin-packing-scheduler"
	// labelGarbageCollectable lets the resource manager delete a unique ConfigMap or Secret once
	// no workload refers to it any more (Gardener's docs/concepts/resource-manager.md).
	labelGarbageCollectable = "resources.gardener.cloud/garbage-collectable-reference"
)

// configuration is the KubeSchedulerConfiguration, byte for byte the text gardenlet writes
// (componentConfigTmpl in pkg/component/kubernetes/scheduler/scheduler.go, gardener/gardener
// v1.120.0), so that the ConfigMap's checksum suffix is Gardener's too: the generic kubeconfig and
// leader election; balanced adds no profiles (the default-scheduler with the default plugins),
// bin-packing adds the bin-packing-scheduler profile, which scores nodes by the most allocated
// resources without the balanced-allocation plugin, next to the default-scheduler.
func configuration(v Values) string {
	lines := []string{
		"apiVersion: kubescheduler.config.k8s.io/v1",
		"kind: KubeSchedulerConfiguration",
		"clientConnection:",
		"  kubeconfig: " + shootaccess.KubeconfigPath,
		"leaderElection:",
		"  leaderElect: true",
	}
	if v.Profile == ProfileBinPacking {
		lines = append(lines,
			"profiles:",
			"- schedulerName: "+corev1.DefaultSchedulerName,
			"- schedulerName: "+BinPackingSchedulerName,
			"  pluginConfig:",
			"  - name: NodeResourcesFit",
			"    args:",
			"      scoringStrategy:",
			"        type: MostAllocated",
			"  plugins:",
			"    score:",
			"      disabled:",
			"      - name: NodeResourcesBalancedAllocation",
		)
	}
	return strings.Join(lines, "\n")
}

// configMap is the configuration in a ConfigMap made unique as Gardener makes them (MakeUnique in
// pkg/utils/kubernetes/object.go, gardener/gardener v1.120.0): immutable, named after the first
// eight hex digits of its data's checksum, and garbage-collectable; a new configuration is a new
// ConfigMap, which rolls the pods.
func configMap(v Values) (*corev1.ConfigMap, error) {
	data := map[string]string{configKey: configuration(v)}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:      ConfigMapPrefix + "-" + dataChecksum(data)[:8],
			Namespace: v.Namespace,
			Labels:    map[string]string{labelGarbageCollectable: "true"},
		},
		Immutable: ptr.To(true),
		Data:      data,
	}, nil
}

// dataChecksum is the checksum Gardener names unique ConfigMaps and Secrets by
// (ComputeSecretChecksum in pkg/utils/checksums.go, gardener/gardener v1.120.0): the SHA-256 of
// the concatenated hex SHA-256 digests of the values in key order.
func dataChecksum(data map[string]string) string {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var digests strings.Builder
	for _, k := range keys {
		digests.WriteString(sha256Hex([]byte(data[k])))
	}
	return sha256Hex([]byte(digests.String()))
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
