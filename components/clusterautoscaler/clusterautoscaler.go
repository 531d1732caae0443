// Package clusterautoscaler renders the cluster_autoscaler component: Gardener's fork of the
// Kubernetes cluster-autoscaler in a shoot's control-plane namespace of the seed. It scales the
// shoot's worker pools by changing the replicas of their MachineDeployments, which the
// machine-controller-manager turns into machines (Gardener's "Shoot Autoscaling"
// docs/usage/autoscaling/shoot_autoscaling.md, "Worker" docs/extensions/resources/worker.md). A
// shoot gets it only if at least one worker pool has minimum < maximum (Gardener's
// docs/usage/autoscaling/shoot_autoscaling.md, docs/extensions/resources/worker.md): see Needed.
package clusterautoscaler

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/machinecontrollermanager"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Name is the name of the Deployment, its container, the Service, the ServiceAccounts and the
// PodDisruptionBudget (pkg/component/autoscaling/clusterautoscaler in gardener/gardener v1.120.0).
const Name = "cluster-autoscaler"

// Port serves the autoscaler's metrics (gardener/gardener v1.120.0).
const Port = 8085

// Pool is a worker pool of the shoot as far as the autoscaler cares.
type Pool struct {
	// Name of the pool (.spec.provider.workers[].name).
	Name string `json:"name"`
	// Minimum and Maximum are the pool's bounds over all its zones.
	Minimum int32 `json:"minimum"`
	Maximum int32 `json:"maximum"`
	// Zones the pool spreads over; none counts as one.
	Zones []string `json:"zones"`
	// Priority of the pool for the priority expander; nil for none (Gardener's Worker in
	// docs/api-reference/core.md).
	Priority *int32 `json:"priority"`
}

// Needed tells whether a shoot with these pools gets a cluster-autoscaler: only if some pool
// has minimum < maximum (Gardener's docs/usage/autoscaling/shoot_autoscaling.md,
// docs/extensions/resources/worker.md).
func Needed(pools []Pool) bool {
	for _, p := range pools {
		if p.Minimum < p.Maximum {
			return true
		}
	}
	return false
}

// MachineDeployment is one node group of the autoscaler: a MachineDeployment with its bounds,
// as the Worker resource reports them in status.machineDeployments (Gardener's
// docs/extensions/resources/worker.md).
type MachineDeployment struct {
	Name    string `json:"name"`
	Minimum int32  `json:"minimum"`
	Maximum int32  `json:"maximum"`
}

// MachineDeployments derives the node groups of pools by the provider extensions' convention:
// one MachineDeployment per pool and zone, named <namespace>-<pool>-z<n> (Gardener's
// docs/extensions/resources/worker.md), with minimum and maximum divided by the number of zones
// (Gardener's "Implementing High Availability and Tolerating Zone Outages"
// docs/usage/high-availability/shoot_high_availability_best_practices.md). Where a division leaves
// a remainder, the first zones get one more, so that the sums stay the pool's bounds (Gardener's
// documentation show only even divisions).
func MachineDeployments(namespace string, pools []Pool) []MachineDeployment {
	var out []MachineDeployment
	for _, p := range pools {
		zones := max(len(p.Zones), 1)
		for i := range zones {
			out = append(out, MachineDeployment{
				Name:    fmt.Sprintf("%s-%s-z%d", namespace, p.Name, i+1),
				Minimum: share(p.Minimum, i, zones),
				Maximum: share(p.Maximum, i, zones),
			})
		}
	}
	return out
}

func share(total int32, zone, zones int) int32 {
	s := total / int32(zones)
	if int32(zone) < total%int32(zones) {
		s++
	}
	return s
}

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults, which are those of the Shoot's .spec.kubernetes.clusterAutoscaler (Gardener's
// ClusterAutoscaler in docs/api-reference/core.md).
type Values struct {
	// Cluster is the seed.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace is the shoot's control-plane namespace shoot--<project>--<shoot>; required.
	Namespace string `json:"namespace"`
	// Images overrides image vector entries by name (cluster-autoscaler).
	Images map[string]string `json:"images"`
	// KubernetesVersion of the shoot (MAJOR.MINOR.PATCH) picks the autoscaler release; "" takes
	// the image vector's default.
	KubernetesVersion string `json:"kubernetes_version"`
	// Replicas of the autoscaler; 0 stops it.
	Replicas int32 `json:"replicas"`
	// WorkerPools are the shoot's worker pools; without one that autoscales nothing is rendered.
	WorkerPools []Pool `json:"worker_pools"`
	// MachineDeployments, when set, are the node groups as the Worker reported them and replace
	// the ones derived from WorkerPools by convention.
	MachineDeployments []MachineDeployment `json:"machine_deployments"`

	// The Shoot's general autoscaler flags.
	ScaleDownDelayAfterAdd        string   `json:"scale_down_delay_after_add"`
	ScaleDownDelayAfterDelete     string   `json:"scale_down_delay_after_delete"`
	ScaleDownDelayAfterFailure    string   `json:"scale_down_delay_after_failure"`
	ScaleDownUnneededTime         string   `json:"scale_down_unneeded_time"`
	ScaleDownUtilizationThreshold float64  `json:"scale_down_utilization_threshold"`
	ScanInterval                  string   `json:"scan_interval"`
	Expander                      string   `json:"expander"`
	MaxNodeProvisionTime          string   `json:"max_node_provision_time"`
	MaxGracefulTerminationSeconds int32    `json:"max_graceful_termination_seconds"`
	NewPodScaleUpDelay            string   `json:"new_pod_scale_up_delay"`
	MaxEmptyBulkDelete            int32    `json:"max_empty_bulk_delete"`
	IgnoreDaemonsetsUtilization   bool     `json:"ignore_daemonsets_utilization"`
	IgnoreTaints                  []string `json:"ignore_taints"`
	StartupTaints                 []string `json:"startup_taints"`
	StatusTaints                  []string `json:"status_taints"`
	Verbosity                     int32    `json:"verbosity"`
	// MaxNodesTotal caps the shoot's nodes (--max-nodes-total); 0 is no cap. gardenlet gives the
	// most nodes the shoot's networks and its CloudProfile allow (MaxNodesTotal).
	MaxNodesTotal int64 `json:"max_nodes_total"`

	// GenericKubeconfigSecretName names the Secret (key kubeconfig) with the shoot's generic
	// token kubeconfig (Gardener's "Conventions" docs/extensions/conventions.md).
	GenericKubeconfigSecretName string `json:"generic_kubeconfig_secret_name"`
	// AccessSecretName names the token-requestor Secret rendered for the autoscaler's shoot
	// ServiceAccount.
	AccessSecretName string `json:"access_secret_name"`
	// PriorityClassName of the pods (Gardener's "Priority Classes"
	// docs/development/priority-classes.md).
	PriorityClassName string `json:"priority_class_name"`
	// Hibernated scales the component to zero replicas: Gardener scales every control-plane
	// component in the shoot namespace to zero when a shoot hibernates, keeping etcd's volumes
	// (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component Checklist"
	// docs/development/component-checklist.md). It wins over Replicas; like Replicas it renders
	// nothing when no worker pool autoscales.
	Hibernated bool `json:"-"`
}

// Expanders are the documented expander modes (Gardener's ClusterAutoscaler in
// docs/api-reference/core.md); several may be chained with commas.
var Expanders = []string{"least-waste", "most-pods", "priority", "random"}

// Type is the cluster_autoscaler component type as the catalog registers it: its schema (schema.go)
// and its render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders what gardenlet deploys for a shoot's cluster-autoscaler (Deploy in
// pkg/component/autoscaling/clusterautoscaler/cluster_autoscaler.go, gardener/gardener v1.120.0):
// see machinecontrollermanager.ShootController.Objects; with pool priorities the shoot also gets
// the priority expander's ConfigMap. Nothing when no worker pool autoscales (Needed).
func Objects(v Values) ([]render.Object, error) {
	if v.Namespace == "" {
		return nil, fmt.Errorf("namespace is required: the shoot's control-plane namespace")
	}
	if err := validate(v); err != nil {
		return nil, err
	}
	if !Needed(v.WorkerPools) {
		return nil, nil
	}
	shoot := shootRBAC()
	if poolsHavePriority(v.WorkerPools) {
		cm, err := priorityExpanderConfigMap(v)
		if err != nil {
			return nil, err
		}
		shoot = append(shoot, cm)
	}
	c := machinecontrollermanager.ShootController{
		Name: Name, Cluster: v.Cluster.Name, Namespace: v.Namespace, Labels: SelectorLabels(),
		SeedClusterRole:      SeedClusterRoleName,
		MetricsPorts:         []corev1.ServicePort{{Name: "metrics", Port: Port}},
		RevisionHistoryLimit: 1,
		Access:               shootaccess.Access{Namespace: v.Namespace, Component: Name, GenericKubeconfigSecretName: v.GenericKubeconfigSecretName, AccessSecretName: v.AccessSecretName},
		VPAContainer:         "*",
		ShootRBACName:        ShootRBACName, ShootObjects: shoot,
	}
	d, err := deployment(v, c)
	if err != nil {
		return nil, err
	}
	return c.Objects(d)
}

func validate(v Values) error {
	if v.MaxNodesTotal < 0 {
		return fmt.Errorf("max nodes total %d: must not be negative", v.MaxNodesTotal)
	}
	if v.Replicas < 0 {
		return fmt.Errorf("replicas %d: must not be negative", v.Replicas)
	}
	seen := map[string]bool{}
	for _, p := range v.WorkerPools {
		if p.Name == "" {
			return fmt.Errorf("worker pool without a name")
		}
		if seen[p.Name] {
			return fmt.Errorf("worker pool %q: listed twice", p.Name)
		}
		seen[p.Name] = true
		if p.Minimum < 0 || p.Maximum < p.Minimum {
			return fmt.Errorf("worker pool %q: minimum %d and maximum %d: need 0 <= minimum <= maximum", p.Name, p.Minimum, p.Maximum)
		}
	}
	for _, md := range v.MachineDeployments {
		if md.Name == "" || md.Minimum < 0 || md.Maximum < md.Minimum {
			return fmt.Errorf("machine deployment %q: needs a name and 0 <= minimum (%d) <= maximum (%d)", md.Name, md.Minimum, md.Maximum)
		}
	}
	for name, d := range map[string]string{
		"scale down delay after add": v.ScaleDownDelayAfterAdd, "scale down delay after delete": v.ScaleDownDelayAfterDelete,
		"scale down delay after failure": v.ScaleDownDelayAfterFailure, "scale down unneeded time": v.ScaleDownUnneededTime,
		"scan interval": v.ScanInterval, "max node provision time": v.MaxNodeProvisionTime, "new pod scale up delay": v.NewPodScaleUpDelay,
	} {
		if _, err := time.ParseDuration(d); err != nil {
			return fmt.Errorf("%s %q: %w", name, d, err)
		}
	}
	if t := v.ScaleDownUtilizationThreshold; t < 0 || t > 1 {
		return fmt.Errorf("scale down utilization threshold %v: must be between 0 and 1", t)
	}
	for _, e := range strings.Split(v.Expander, ",") {
		if !contains(Expanders, e) {
			return fmt.Errorf("expander %q: %q is not one of %s", v.Expander, e, strings.Join(Expanders, ", "))
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
