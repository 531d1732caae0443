// Package reserveexcesscapacity renders the reserve_excess_capacity component: one Deployment of
// pause pods in a seed's garden namespace per excess capacity reservation, which hold spare
// capacity with the lowest priority class, gardener-reserve-excess-capacity (-5). Any other pod
// preempts them, so new shoot control planes start at once while the cluster-autoscaler adds
// nodes for the evicted placeholders (Gardener's "Seed Settings" docs/operations/seed_settings.md).
// gardenlet packs them into the seed's "system" ManagedResource with its PriorityClasses
// (pkg/component/seed/system/system.go in gardener/gardener v1.120.0), one Deployment
// reserve-excess-capacity-<i> for the i-th entry of .spec.settings.excessCapacityReservation.configs.
package reserveexcesscapacity

import (
	"fmt"
	"math"
	"regexp"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Defaults of one reservation, the schema's (schema.go): the first reservation's name, 2 CPUs and
// 6Gi of memory per pod (the Seed API's default configs entry, setDefaults_ExcessCapacityReservationConfig
// in pkg/apis/core/v1beta1/defaults_seed.go), at least 2 replicas (newSystem in
// pkg/gardenlet/controller/seed/seed/components.go).
const (
	DefaultName            = "reserve-excess-capacity-0"
	DefaultNamespace       = "garden"
	DefaultCPU             = "2"
	DefaultMemory          = "6Gi"
	MinReplicas      int32 = 2
)

// Toleration lets the placeholder pods run on tainted nodes, for reservations on dedicated
// worker pools (Gardener's SeedSettingExcessCapacityReservationConfig in
// docs/api-reference/core.md).
type Toleration struct {
	Key      string `json:"key"`
	Operator string `json:"operator"`
	Value    string `json:"value"`
	Effect   string `json:"effect"`
}

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults. The seed composite calls Objects once per
// .spec.settings.excessCapacityReservation.configs entry, named reserve-excess-capacity-<index>
// (ConfigName).
type Values struct {
	// Cluster is the seed cluster.
	Cluster decode.Cluster `json:"cluster"`
	// Name of the Deployment.
	Name string `json:"name"`
	// Namespace of the Deployment (Gardener's docs/operations/seed_settings.md).
	Namespace string `json:"namespace"`
	// Images overrides image vector entries by name (pause).
	Images map[string]string `json:"images"`
	// Zones is the number of the seed's zones; replicas default to it, but at least 2
	// (Gardener's docs/operations/seed_settings.md). 0 counts as 1.
	Zones int `json:"zones"`
	// Replicas overrides the replica count; 0 means max(2, Zones).
	Replicas int `json:"replicas"`
	// CPU and Memory are each pod's requests (and limits, so the reservation is exact) (Gardener's
	// docs/operations/seed_settings.md).
	CPU    string `json:"cpu"`
	Memory string `json:"memory"`
	// NodeSelector restricts the pods to some nodes; empty means any node (Gardener's
	// docs/operations/seed_settings.md).
	NodeSelector map[string]string `json:"node_selector"`
	// Tolerations of the pods; none by default (Gardener's docs/operations/seed_settings.md).
	Tolerations []Toleration `json:"toleration"`
}

// Replicas is gardenlet's replica count: the number of zones, but at least 2.
func Replicas(zones int) int32 {
	return max(MinReplicas, int32(zones)) // #nosec G115 -- Objects refuses more zones than int32 holds; the seed passes the length of its zone list
}

// ConfigName is the Deployment of the i-th reservation.
func ConfigName(i int) string { return fmt.Sprintf("reserve-excess-capacity-%d", i) }

// Labels are the labels of every reservation's Deployment, pods and selector: the same for all of
// them, as gardenlet gives them (getExcessCapacityReservationLabels in
// pkg/component/seed/system/system.go).
func Labels() map[string]string {
	return map[string]string{"app": "kubernetes", "role": "reserve-excess-capacity"}
}

// beforeIndexedNames is the name of the only reservation before they were named by index.
const beforeIndexedNames = "reserve-excess-capacity"

// Type is the reserve_excess_capacity component type as the catalog registers it: its schema
// (schema.go) and its render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders the Deployment of pause pods.
func Objects(v Values) ([]render.Object, error) {
	name := v.Name
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return nil, fmt.Errorf("reserve-excess-capacity name %q: %s", name, errs[0])
	}
	// A Deployment counts replicas in 32 bits: a larger number would wrap around to another.
	if v.Zones < 0 || v.Replicas < 0 || v.Zones > math.MaxInt32 || v.Replicas > math.MaxInt32 {
		return nil, fmt.Errorf("reserve-excess-capacity %s: zones and replicas must be between 0 and %d", name, math.MaxInt32)
	}
	resources := corev1.ResourceList{}
	for _, r := range []struct {
		name  corev1.ResourceName
		value string
	}{{corev1.ResourceCPU, v.CPU}, {corev1.ResourceMemory, v.Memory}} {
		q, err := resource.ParseQuantity(r.value)
		if err != nil {
			return nil, fmt.Errorf("reserve-excess-capacity %s %s %q: %w", name, r.name, r.value, err)
		}
		resources[r.name] = q
	}
	tolerations, err := convert(v.Tolerations)
	if err != nil {
		return nil, fmt.Errorf("reserve-excess-capacity %s: %w", name, err)
	}
	image, err := images.Of(v.Images, images.Pause, "")
	if err != nil {
		return nil, fmt.Errorf("reserve-excess-capacity images: %w", err)
	}
	replicas := Replicas(v.Zones)
	if v.Replicas > 0 {
		replicas = int32(v.Replicas)
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: v.Namespace, Labels: Labels(),
			// The placeholders are preempted by design: their health says nothing about the seed.
			Annotations: map[string]string{"resources.gardener.cloud/skip-health-check": "true"},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(replicas),
			RevisionHistoryLimit: ptr.To(int32(2)),
			Selector:             &metav1.LabelSelector{MatchLabels: Labels()},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: Labels()},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: ptr.To(int64(5)),
					Containers: []corev1.Container{{
						Name:            "pause-container",
						Image:           image,
						ImagePullPolicy: corev1.PullIfNotPresent,
						Resources:       corev1.ResourceRequirements{Requests: resources, Limits: resources},
						SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
					}},
					NodeSelector: v.NodeSelector,
					// The lowest of the well-known classes: every other pod preempts these.
					PriorityClassName: priorityclasses.ReserveExcessCapacity,
					Tolerations:       tolerations,
				},
			},
		},
	}
	objs, err := kube.Typed(v.Cluster.Name, d)
	if err != nil {
		return nil, err
	}
	if name == DefaultName {
		// The first reservation was reserve-excess-capacity before its name carried the index.
		objs[0].Supersedes = regexp.MustCompile("^" + beforeIndexedNames + "$")
	}
	return objs, nil
}

var (
	operators = []string{"", string(corev1.TolerationOpEqual), string(corev1.TolerationOpExists)}
	effects   = []string{"", string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute)}
)

func convert(in []Toleration) ([]corev1.Toleration, error) {
	var out []corev1.Toleration
	for i, t := range in {
		if !slices.Contains(operators, t.Operator) {
			return nil, fmt.Errorf("toleration %d: operator %q is not one of Equal, Exists", i, t.Operator)
		}
		if !slices.Contains(effects, t.Effect) {
			return nil, fmt.Errorf("toleration %d: effect %q is not one of NoSchedule, PreferNoSchedule, NoExecute", i, t.Effect)
		}
		if t.Operator == string(corev1.TolerationOpExists) && t.Value != "" {
			return nil, fmt.Errorf("toleration %d: operator Exists takes no value", i)
		}
		out = append(out, corev1.Toleration{
			Key: t.Key, Operator: corev1.TolerationOperator(t.Operator), Value: t.Value, Effect: corev1.TaintEffect(t.Effect),
		})
	}
	return out, nil
}
