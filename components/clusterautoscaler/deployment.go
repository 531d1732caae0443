package clusterautoscaler

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	yamlv2 "sigs.k8s.io/yaml/goyaml.v2"

	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/machinecontrollermanager"
)

// SelectorLabels select the autoscaler's pods.
func SelectorLabels() map[string]string {
	return map[string]string{"app": "kubernetes", "role": Name}
}

// taintCriticalComponentsNotReady is the taint Gardener gives new nodes until their critical
// components run; the autoscaler must not take such a node for one that cannot take pods.
const taintCriticalComponentsNotReady = "node.gardener.cloud/critical-components-not-ready"

// PriorityExpanderConfigMap is the ConfigMap in the shoot's kube-system with the node groups by
// priority, which the priority expander reads.
const PriorityExpanderConfigMap = "cluster-autoscaler-priority-expander"

// command is the autoscaler's command line, flag for flag in gardenlet's order (computeCommand in
// pkg/component/autoscaling/clusterautoscaler/cluster_autoscaler.go, gardener/gardener v1.120.0):
// the fixed flags, then the Shoot's settings as Go prints them (durations like 1h0m0s, the
// threshold with six decimals), the node limit, the taints and one --nodes per MachineDeployment
// (min:max:<namespace>.<name>). A pool with a priority puts the priority expander first.
func command(v Values) []string {
	duration := func(s string) string {
		d, _ := time.ParseDuration(s) // checked by validate
		return d.String()
	}
	c := []string{
		"./cluster-autoscaler",
		fmt.Sprintf("--address=:%d", Port),
		"--kubeconfig=" + shootaccess.KubeconfigPath,
		"--cloud-provider=mcm",
		"--stderrthreshold=info",
		"--skip-nodes-with-system-pods=false",
		"--skip-nodes-with-local-storage=false",
		"--expendable-pods-priority-cutoff=-10",
		"--balance-similar-node-groups=true",
		"--ignore-taint=" + taintCriticalComponentsNotReady,
		"--expander=" + expander(v),
		"--max-graceful-termination-sec=" + strconv.Itoa(int(v.MaxGracefulTerminationSeconds)),
		"--max-node-provision-time=" + duration(v.MaxNodeProvisionTime),
		fmt.Sprintf("--scale-down-utilization-threshold=%f", v.ScaleDownUtilizationThreshold),
		"--scale-down-unneeded-time=" + duration(v.ScaleDownUnneededTime),
		"--scale-down-delay-after-add=" + duration(v.ScaleDownDelayAfterAdd),
		"--scale-down-delay-after-delete=" + duration(v.ScaleDownDelayAfterDelete),
		"--scale-down-delay-after-failure=" + duration(v.ScaleDownDelayAfterFailure),
		"--scan-interval=" + duration(v.ScanInterval),
		"--ignore-daemonsets-utilization=" + strconv.FormatBool(v.IgnoreDaemonsetsUtilization),
		"--v=" + strconv.Itoa(int(v.Verbosity)),
		"--max-empty-bulk-delete=" + strconv.Itoa(int(v.MaxEmptyBulkDelete)),
		"--new-pod-scale-up-delay=" + duration(v.NewPodScaleUpDelay),
		"--max-nodes-total=" + strconv.FormatInt(v.MaxNodesTotal, 10),
	}
	for _, t := range v.StartupTaints {
		c = append(c, "--startup-taint="+t)
	}
	for _, t := range v.StatusTaints {
		c = append(c, "--status-taint="+t)
	}
	for _, t := range v.IgnoreTaints {
		c = append(c, "--ignore-taint="+t)
	}
	for _, md := range machineDeployments(v) {
		c = append(c, fmt.Sprintf("--nodes=%d:%d:%s.%s", md.Minimum, md.Maximum, v.Namespace, md.Name))
	}
	return c
}

// expander is the Shoot's expander, with priority put first when a pool has a priority and the
// expander does not name it yet.
func expander(v Values) string {
	if poolsHavePriority(v.WorkerPools) && !strings.Contains(v.Expander, "priority") {
		return "priority," + v.Expander
	}
	return v.Expander
}

func poolsHavePriority(pools []Pool) bool {
	return slices.ContainsFunc(pools, func(p Pool) bool { return p.Priority != nil })
}

func machineDeployments(v Values) []MachineDeployment {
	if len(v.MachineDeployments) > 0 {
		return v.MachineDeployments
	}
	return MachineDeployments(v.Namespace, v.WorkerPools)
}

// priorityExpanderConfigMap lists the node groups by priority for the priority expander, in the
// YAML the autoscaler parses (a map from priority to MachineDeployment names); a MachineDeployment
// takes the priority of its pool, 0 without one.
func priorityExpanderConfigMap(v Values) (*corev1.ConfigMap, error) {
	byPool := map[string]int32{}
	for _, p := range v.WorkerPools {
		if p.Priority != nil {
			byPool[p.Name] = *p.Priority
		}
	}
	priorities := map[int32][]string{}
	for _, md := range machineDeployments(v) {
		pool := strings.TrimPrefix(md.Name, v.Namespace+"-")
		if i := strings.LastIndex(pool, "-z"); i != -1 {
			pool = pool[:i]
		}
		priorities[byPool[pool]] = append(priorities[byPool[pool]], md.Name)
	}
	out, err := yamlv2.Marshal(priorities)
	if err != nil {
		return nil, fmt.Errorf("cluster-autoscaler priorities: %w", err)
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: PriorityExpanderConfigMap, Namespace: metav1.NamespaceSystem},
		Data:       map[string]string{"priorities": string(out)},
	}, nil
}

func deployment(v Values, c machinecontrollermanager.ShootController) (*appsv1.Deployment, error) {
	image, err := image(v.Images, v.KubernetesVersion)
	if err != nil {
		return nil, fmt.Errorf("cluster-autoscaler images: %w", err)
	}
	return c.Deployment(replicas.UnlessHibernated(v.Replicas, v.Hibernated), v.PriorityClassName, corev1.Container{
		Image:   image,
		Command: command(v),
		Ports:   []corev1.ContainerPort{{Name: "metrics", ContainerPort: Port, Protocol: corev1.ProtocolTCP}},
		Env: []corev1.EnvVar{
			// The mcm cloud provider finds the MachineDeployments in this namespace of the seed,
			// and the shoot through this kubeconfig.
			{Name: "CONTROL_NAMESPACE", Value: v.Namespace},
			{Name: "TARGET_KUBECONFIG", Value: shootaccess.KubeconfigPath},
		},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("10m"),
			corev1.ResourceMemory: resource.MustParse("30M"),
		}},
	}), nil
}
