// Package priorityclasses renders the priority_classes component: the well-known PriorityClasses
// Gardener components rely on (S4:26345-26405). Every other component of the catalog names one
// of the constants below, so the classes must exist before any of their pods are created.
package priorityclasses

import (
	"fmt"

	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The garden runtime cluster's classes (S4:26364-26372).
const (
	GardenSystemCritical = "gardener-garden-system-critical"
	GardenSystem500      = "gardener-garden-system-500"
	GardenSystem400      = "gardener-garden-system-400"
	GardenSystem300      = "gardener-garden-system-300"
	GardenSystem200      = "gardener-garden-system-200"
	GardenSystem100      = "gardener-garden-system-100"
)

// The seed cluster's classes for seed system components and shoot control planes
// (S4:26374-26392).
const (
	SystemCritical             = "gardener-system-critical"
	System900                  = "gardener-system-900"
	System800                  = "gardener-system-800"
	System700                  = "gardener-system-700"
	System600                  = "gardener-system-600"
	System500                  = "gardener-system-500"
	System400                  = "gardener-system-400"
	System300                  = "gardener-system-300"
	System200                  = "gardener-system-200"
	System100                  = "gardener-system-100"
	ReserveExcessCapacity      = "gardener-reserve-excess-capacity"
	reserveExcessCapacityValue = -5
)

// Class is one PriorityClass.
type Class struct {
	Name        string
	Value       int32
	Description string
}

// Set names a group of classes: the garden runtime cluster's or a seed's.
type Set string

// The sets of classes the component can render.
const (
	Garden Set = "garden"
	Seed   Set = "seed"
)

// Classes returns the classes of a set, highest value first.
func Classes(set Set) ([]Class, error) {
	switch set {
	case Garden:
		return []Class{
			{GardenSystemCritical, 999999550, "gardener-operator, gardener-resource-manager, istio"},
			{GardenSystem500, 999999500, "virtual-garden-etcd-events, virtual-garden-etcd-main, virtual-garden-kube-apiserver, gardener-apiserver"},
			{GardenSystem400, 999999400, "virtual-garden-gardener-resource-manager, gardener-admission-controller, extension admission controllers"},
			{GardenSystem300, 999999300, "virtual-garden-kube-controller-manager, vpa-admission-controller, etcd-druid, nginx-ingress-controller"},
			{GardenSystem200, 999999200, "vpa-recommender, vpa-updater, gardener-scheduler, gardener-controller-manager, gardener-dashboard, extension controllers"},
			{GardenSystem100, 999999100, "observability components (fluent-bit, plutono, vali, prometheus, ...)"},
		}, nil
	case Seed:
		return []Class{
			{SystemCritical, 999998950, "gardenlet, gardener-resource-manager, istio-ingressgateway, istiod"},
			{System900, 999998900, "extensions, reversed-vpn-auth-server"},
			{System800, 999998800, "dependency-watchdog, etcd-druid, vpa-admission-controller"},
			{System700, 999998700, "vpa-recommender, vpa-updater"},
			{System600, 999998600, "seed observability, nginx-ingress-controller"},
			{System500, 999998500, "shoot control planes: etcd-events, etcd-main, kube-apiserver"},
			{System400, 999998400, "shoot control planes: gardener-resource-manager"},
			{System300, 999998300, "shoot control planes: kube-controller-manager, kube-scheduler, machine-controller-manager, vpn-seed-server, cluster-autoscaler"},
			{System200, 999998200, "shoot control planes: vpa, csi-snapshot-controller, extensions' controllers"},
			{System100, 999998100, "shoot control planes: observability"},
			{ReserveExcessCapacity, reserveExcessCapacityValue, "reserve-excess-capacity placeholder pods, preempted by every other pod"},
		}, nil
	}
	return nil, fmt.Errorf("set %q is not one of garden, seed", set)
}

// Values are the component's typed inputs.
type Values struct {
	Cluster decode.Cluster `json:"cluster"`
	Set     Set            `json:"set"`
}

// Render renders one priority_classes instance.
func Render(in render.Input) (*render.Output, error) {
	return decode.Render(in, Objects)
}

// Objects renders the PriorityClasses of the values' set.
func Objects(v Values) ([]render.Object, error) {
	classes, err := Classes(v.Set)
	if err != nil {
		return nil, err
	}
	var typed []runtime.Object
	for _, c := range classes {
		typed = append(typed, &schedulingv1.PriorityClass{
			ObjectMeta:  metav1.ObjectMeta{Name: c.Name},
			Value:       c.Value,
			Description: "Gardener well-known class (S4:26345); examples of its users: " + c.Description + ".",
		})
	}
	return kube.Typed(v.Cluster.Name, typed...)
}
