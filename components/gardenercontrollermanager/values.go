// Package gardenercontrollermanager renders the gardener_controller_manager component: the
// controllers that work on the virtual garden's Gardener resources without touching seeds or
// shoots (projects, seeds' lifecycle, shoot maintenance, hibernation and quotas, finalizers,
// ControllerInstallations, ...; Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md). gardener-operator runs it in the garden runtime
// cluster; it needs gardener-apiserver serving (Gardener's "Topology Aware Routing"
// docs/operations/topology_aware_routing.md).
//
// In the runtime cluster it renders the Deployment (1 replica, 2 with high availability), the
// ConfigMap with its ControllerManagerConfiguration, a metrics Service, a PodDisruptionBudget and
// the token-requestor Secret of its identity; in the virtual garden its ClusterRole and binding.
package gardenercontrollermanager

import (
	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/internal/projectcontroller"
)

// Name is the name of the Deployment, the Service and the virtual garden ServiceAccount.
const Name = "gardener-controller-manager"

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	gardenercontrolplane.Common

	// BastionMaxLifetime is how long Bastions may live at most (Gardener's
	// docs/concepts/controller-manager.md).
	BastionMaxLifetime string `json:"bastion_max_lifetime"`
	// EventTTL, when set, enables the event controller, which deletes non-shoot events older than
	// it (Gardener's docs/concepts/controller-manager.md); the virtual kube-apiserver's --event-ttl
	// must be larger.
	EventTTL string `json:"event_ttl"`
	// SeedMonitorPeriod is how long a seed's Lease may go unrenewed before GardenletReady turns
	// Unknown (Gardener's docs/concepts/controller-manager.md); Gardener's documentation gives no
	// default, the schema's is 40s.
	SeedMonitorPeriod string `json:"seed_monitor_period"`
	// BackupBucketsConditionThreshold, when set, is how long a seed's BackupBucketsReady is
	// Progressing before it turns False when a BackupBucket has an error (Gardener's
	// docs/concepts/controller-manager.md).
	BackupBucketsConditionThreshold string `json:"backup_buckets_condition_threshold"`
	// Values of the project and stale controllers (projectcontroller): the quota templates of
	// project namespaces and the stale check's days, published as the output project_controller.
	projectcontroller.Values

	// The shoot loops' settings (ShootLoops): when hibernation schedules, maintenance, cluster
	// lifetimes and retries act, which shoots read to predict them.
	ShootHibernationTriggerDeadline     string `json:"shoot_hibernation_trigger_deadline"`
	ShootMaintenanceRestartControlPlane bool   `json:"shoot_maintenance_restart_control_plane"`
	ShootMaintenanceRestartCoreAddons   bool   `json:"shoot_maintenance_restart_core_addons"`
	ShootQuotaSyncPeriod                string `json:"shoot_quota_sync_period"`
	ShootRetryPeriod                    string `json:"shoot_retry_period"`
	ShootRetryJitterPeriod              string `json:"shoot_retry_jitter_period"`
}
