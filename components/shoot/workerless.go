package shoot

import (
	"fmt"
	"strings"
)

// workerlessForbidden names the settings of a shoot without workers that gardener-apiserver
// forbids on a workerless Shoot ("this field should not be set for workerless Shoot clusters",
// pkg/apis/core/validation/shoot.go at Gardener v1.120.0: validateProvider,
// validateKubernetesForWorkerlessShoot, ValidateKubeControllerManager, validateAddons,
// ValidateSystemComponents) and that the landscape declares explicitly. Settings that only have
// a default (ssh_access_enabled, auto_update.machine_image_version) are left out of the Shoot
// instead, as are the networks a workerless shoot does not take (docs/landscapes.md).
func workerlessForbidden(v Values) []string {
	if len(v.Workers) > 0 {
		return nil
	}
	var out []string
	add := func(declared bool, name string) {
		if declared {
			out = append(out, name)
		}
	}
	// validateShootSpec: "must not be set for workerless Shoot clusters".
	add(v.CredentialsBinding != "", "credentials_binding")
	add(v.SecretBinding != "", "secret_binding")
	add(v.Provider.InfrastructureConfig != nil, "provider.infrastructure_config")
	add(v.Provider.ControlPlaneConfig != nil, "provider.control_plane_config")
	k := v.Kubernetes
	add(k.KubeScheduler != nil, "kubernetes.kube_scheduler")
	add(k.KubeProxy != nil, "kubernetes.kube_proxy")
	add(k.VerticalPodAutoscalerEnabled != nil, "kubernetes.vertical_pod_autoscaler_enabled")
	if c := k.KubeControllerManager; c != nil {
		add(c.NodeCIDRMaskSize != nil, "kubernetes.kube_controller_manager.node_cidr_mask_size")
		add(c.NodeMonitorGracePeriod != "", "kubernetes.kube_controller_manager.node_monitor_grace_period")
	}
	add(v.SystemComponents != nil, "system_components")
	add(v.Addons != nil, "addons")
	return out
}

// checkWorkerless refuses what Gardener would refuse on a workerless Shoot, at plan time and
// naming the settings, rather than at apply time.
func checkWorkerless(name string, v Values) error {
	if bad := workerlessForbidden(v); len(bad) > 0 {
		return fmt.Errorf("shoot %s: Gardener forbids these settings on a shoot without workers: %s; remove them or add a workers block", name, strings.Join(bad, ", "))
	}
	return nil
}
