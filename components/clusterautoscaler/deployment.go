package clusterautoscaler

import (
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/machinecontrollermanager"
)

// SelectorLabels select the autoscaler's pods.
func SelectorLabels() map[string]string {
	return map[string]string{"app": "kubernetes", "role": Name}
}

// args are the autoscaler's flags: the Shoot's general settings with their documented defaults
// (Gardener's ClusterAutoscaler in docs/api-reference/core.md, "Implementing High Availability and
// Tolerating Zone Outages" docs/usage/high-availability/shoot_high_availability_best_practices.md),
// and one --nodes flag per MachineDeployment (min:max:<namespace>.<name>), the only thing the
// autoscaler needs to know of them (Gardener's "Worker" docs/extensions/resources/worker.md).
func args(v Values) []string {
	a := []string{
		fmt.Sprintf("--address=:%d", Port),
		// Gardener's fork talks to machine-controller-manager's API (Gardener's "Shoot Autoscaling"
		// docs/usage/autoscaling/shoot_autoscaling.md).
		"--cloud-provider=mcm",
		"--kubeconfig=" + shootaccess.KubeconfigPath,
		"--leader-elect=true",
		// Worker pools spread over zones are the same pool: keep their sizes balanced.
		"--balance-similar-node-groups=true",
		"--expander=" + v.Expander,
		"--ignore-daemonsets-utilization=" + strconv.FormatBool(v.IgnoreDaemonsetsUtilization),
		"--max-empty-bulk-delete=" + strconv.Itoa(int(v.MaxEmptyBulkDelete)),
		"--max-graceful-termination-sec=" + strconv.Itoa(int(v.MaxGracefulTerminationSeconds)),
		"--max-node-provision-time=" + v.MaxNodeProvisionTime,
		"--new-pod-scale-up-delay=" + v.NewPodScaleUpDelay,
		"--scale-down-delay-after-add=" + v.ScaleDownDelayAfterAdd,
		"--scale-down-delay-after-delete=" + v.ScaleDownDelayAfterDelete,
		"--scale-down-delay-after-failure=" + v.ScaleDownDelayAfterFailure,
		"--scale-down-unneeded-time=" + v.ScaleDownUnneededTime,
		"--scale-down-utilization-threshold=" + strconv.FormatFloat(v.ScaleDownUtilizationThreshold, 'f', -1, 64),
		"--scan-interval=" + v.ScanInterval,
		// Gardener's own pods in kube-system must not keep nodes alive.
		"--skip-nodes-with-local-storage=false",
		"--skip-nodes-with-system-pods=false",
		"--stderrthreshold=info",
		"--v=" + strconv.Itoa(int(v.Verbosity)),
	}
	for _, t := range v.IgnoreTaints {
		a = append(a, "--ignore-taint="+t)
	}
	mds := v.MachineDeployments
	if len(mds) == 0 {
		mds = MachineDeployments(v.Namespace, v.WorkerPools)
	}
	for _, md := range mds {
		a = append(a, fmt.Sprintf("--nodes=%d:%d:%s.%s", md.Minimum, md.Maximum, v.Namespace, md.Name))
	}
	return a
}

func deployment(v Values, c machinecontrollermanager.ShootController) (*appsv1.Deployment, error) {
	image, err := images.Of(v.Images, images.ClusterAutoscaler, "")
	if err != nil {
		return nil, fmt.Errorf("cluster-autoscaler images: %w", err)
	}
	return c.Deployment(replicas.UnlessHibernated(v.Replicas, v.Hibernated), v.PriorityClassName, nil, corev1.Container{
		Image:   image,
		Command: []string{"./cluster-autoscaler"},
		Args:    args(v),
		Env: []corev1.EnvVar{
			// The mcm cloud provider finds the MachineDeployments in this namespace of the seed,
			// and the shoot through this kubeconfig.
			{Name: "CONTROL_NAMESPACE", Value: v.Namespace},
			{Name: "TARGET_KUBECONFIG", Value: shootaccess.KubeconfigPath},
		},
		Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: Port, Protocol: corev1.ProtocolTCP}},
		// Requests an operator would start from; Gardener's documentation gives none.
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("10m"),
			corev1.ResourceMemory: resource.MustParse("64Mi"),
		}},
	}), nil
}
