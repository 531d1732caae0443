// Package priorityclasses renders the priority_classes component: the well-known PriorityClasses
// Gardener components rely on (Gardener's "Priority Classes" docs/development/priority-classes.md).
// Every other component of the catalog names one of the constants below, so the classes must exist
// before any of their pods are created.
package priorityclasses

import (
	"fmt"

	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The garden runtime cluster's classes (Gardener's docs/development/priority-classes.md).
const (
	GardenSystemCritical = "gardener-garden-system-critical"
	GardenSystem500      = "gardener-garden-system-500"
	GardenSystem400      = "gardener-garden-system-400"
	GardenSystem300      = "gardener-garden-system-300"
	GardenSystem200      = "gardener-garden-system-200"
	GardenSystem100      = "gardener-garden-system-100"
)

// The seed cluster's classes for seed system components and shoot control planes
// (Gardener's docs/development/priority-classes.md).
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
	Name  string
	Value int32
	// Description is the description Gardener gives the class.
	Description string
}

// Set names a group of classes: the garden runtime cluster's or a seed's.
type Set string

// The sets of classes the component can render.
const (
	Garden Set = "garden"
	Seed   Set = "seed"
)

// The descriptions Gardener gives its classes: the critical classes come with gardener-operator's
// and gardenlet's Helm charts (charts/gardener/operator and charts/gardener/gardenlet,
// templates/priorityclass.yaml), the others with the garden and seed system components
// (pkg/component/garden/system/runtime and pkg/component/seed/system in Gardener's source).
const (
	gardenCriticalDescription        = "This class is used to ensure that the gardener-operator and some garden system components has a high priority and is not preempted in favor of other pods."
	gardenSystemDescription          = "PriorityClass for Garden system components"
	seedCriticalDescription          = "This class is used to ensure that the gardenlet and some seed system components has a high priority and is not preempted in favor of other pods."
	seedSystemDescription            = "PriorityClass for Seed system components"
	reserveExcessCapacityDescription = "PriorityClass for reserving excess capacity on a Seed cluster"
	shootControlPlaneDescription     = "PriorityClass for Shoot control plane components"
)

// Classes returns the classes of a set, highest value first. The comment of each names examples of
// its users (Gardener's "Priority Classes" docs/development/priority-classes.md).
func Classes(set Set) ([]Class, error) {
	switch set {
	case Garden:
		return []Class{
			{GardenSystemCritical, 999999550, gardenCriticalDescription}, // gardener-operator, gardener-resource-manager, istio
			{GardenSystem500, 999999500, gardenSystemDescription},        // virtual-garden etcds and kube-apiserver, gardener-apiserver
			{GardenSystem400, 999999400, gardenSystemDescription},        // virtual-garden-gardener-resource-manager, gardener-admission-controller, extension admission controllers
			{GardenSystem300, 999999300, gardenSystemDescription},        // virtual-garden-kube-controller-manager, vpa-admission-controller, etcd-druid, nginx-ingress-controller
			{GardenSystem200, 999999200, gardenSystemDescription},        // vpa-recommender, vpa-updater, gardener-scheduler, gardener-controller-manager, gardener-dashboard, extension controllers
			{GardenSystem100, 999999100, gardenSystemDescription},        // observability components (fluent-bit, plutono, vali, prometheus, ...)
		}, nil
	case Seed:
		return []Class{
			{SystemCritical, 999998950, seedCriticalDescription},                                  // gardenlet, gardener-resource-manager, istio-ingressgateway, istiod
			{System900, 999998900, seedSystemDescription},                                         // extensions, reversed-vpn-auth-server
			{System800, 999998800, seedSystemDescription},                                         // dependency-watchdog, etcd-druid, vpa-admission-controller
			{System700, 999998700, seedSystemDescription},                                         // vpa-recommender, vpa-updater
			{System600, 999998600, seedSystemDescription},                                         // seed observability, nginx-ingress-controller
			{System500, 999998500, shootControlPlaneDescription},                                  // shoot control planes: etcd-events, etcd-main, kube-apiserver
			{System400, 999998400, shootControlPlaneDescription},                                  // shoot control planes: gardener-resource-manager
			{System300, 999998300, shootControlPlaneDescription},                                  // shoot control planes: kube-controller-manager, kube-scheduler, machine-controller-manager, vpn-seed-server, cluster-autoscaler
			{System200, 999998200, shootControlPlaneDescription},                                  // shoot control planes: vpa, csi-snapshot-controller, extensions' controllers
			{System100, 999998100, shootControlPlaneDescription},                                  // shoot control planes: observability
			{ReserveExcessCapacity, reserveExcessCapacityValue, reserveExcessCapacityDescription}, // reserve-excess-capacity placeholder pods, preempted by every other pod
		}, nil
	}
	return nil, fmt.Errorf("set %q is not one of garden, seed", set)
}

// Values are the component's typed inputs.
type Values struct {
	Cluster decode.Cluster `json:"cluster"`
	Set     Set            `json:"set"`
}

// Type is the priority_classes component type as the catalog registers it: its schema (schema.go)
// and its render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

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
			Description: c.Description,
		})
	}
	return kube.Typed(v.Cluster.Name, typed...)
}
