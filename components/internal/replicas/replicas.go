// Package replicas holds the replica rules that Gardener states once for many components, so that
// each component applies them instead of restating them.
package replicas

// HighAvailability is the replica count of a controller or server (a webhook server, the VPN
// server): two with high availability, one without (Gardener's "High Availability Of
// Components" docs/development/high-availability-of-components.md).
func HighAvailability(highAvailability bool) int32 {
	if highAvailability {
		return 2
	}
	return 1
}

// UnlessHibernated is n, or none while the shoot hibernates: Gardener scales every control-plane
// component in the shoot namespace to zero when a shoot hibernates, keeping etcd's volumes
// (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component Checklist"
// docs/development/component-checklist.md).
func UnlessHibernated[T int32 | int64](n T, hibernated bool) T {
	if hibernated {
		return 0
	}
	return n
}
