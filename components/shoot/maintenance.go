package shoot

import (
	"fmt"
	"strconv"

	"github.com/declarative-gardener/gardener/engine/render"
)

// confineToWindow: with .spec.maintenance.confineSpecUpdateRollout, "changes to the shoot
// specification are not rolled out immediately but only during the respective maintenance time
// window" (Gardener's "gardenlet" docs/concepts/gardenlet.md, "Shoot Maintenance"
// docs/usage/shoot/shoot_maintenance.md). The Shoot itself takes the new specification at once
// (Gardener accepts it, without a new generation), while every part of the control plane holds its
// changes until the window. The hold applies to the whole control plane or to none of it: not
// before the Shoot exists (a new shoot, or one whose first apply did not finish, is created at
// once), not while its hibernation changes, the one change Gardener rolls out at once (Gardener's
// Maintenance in docs/api-reference/core.md), and not when the live Shoot asks for the reconcile or
// maintain operation (see OperationReconcile). Generated Secrets and copies are not held: their
// renewals and rotations (asked for with --rotate) would otherwise be generated anew on every plan
// without being written. Gardener picks a window for a shoot that has none, which a landscape
// cannot know, so confining needs an explicit time_window.
func (b *builder) confineToWindow() error {
	m := b.onShoot().v.Maintenance // the Shoot's: one Gardener picked a window for cannot confine (below)
	if m == nil || !m.ConfineSpecUpdateRollout {
		return nil
	}
	if m.TimeWindow == nil || m.TimeWindow.Begin == "" || m.TimeWindow.End == "" {
		return fmt.Errorf("maintenance.confine_spec_update_rollout needs maintenance.time_window: the changes wait for that window")
	}
	if b.operation.rollsOutNow() {
		return nil // the live Shoot asks for a reconcile or maintain operation (Gardener's docs/usage/shoot-operations/shoot_operations.md)
	}
	// The window in force: the landscape's, or the old one until the upcoming maintenance
	// after the landscape changed it (Gardener's docs/usage/shoot/shoot_maintenance.md).
	inForce := b.window.window
	if inForce.Begin == "" || inForce.End == "" {
		inForce = render.MaintenanceWindow{Begin: m.TimeWindow.Begin, End: m.TimeWindow.End} // Parts: no live Shoot read
	}
	w := &render.MaintenanceWindow{Begin: inForce.Begin, End: inForce.End, HoldWhile: b.holdWhile()}
	for i := range b.parts {
		p := &b.parts[i]
		if p.Name != "shoot" && p.Secret == nil && p.Copy == nil {
			p.Window = w
		}
	}
	return nil
}

// holdWhile are the conditions under which the window holds the control plane's changes: the
// Shoot's last operation succeeded (a shoot whose creation or last reconciliation did not
// finish goes on), and the control plane already has the hibernation it gets now, as its
// extensions Cluster's copy of the Shoot says (hibernating and waking up are never held, whether
// the landscape or gardener-controller-manager flipped the Shoot).
func (b *builder) holdWhile() []render.LiveCondition {
	return []render.LiveCondition{
		{
			Ref: render.LiveRef{
				Cluster: b.seed.VirtualCluster, Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots",
				Namespace: ProjectNamespace(b.v.Project), Name: b.name, Paths: []string{"status.lastOperation.state"},
			},
			Value: "Succeeded",
		},
		{
			Ref: render.LiveRef{
				Cluster: b.seed.Cluster, Group: "extensions.gardener.cloud", Version: "v1alpha1", Resource: "clusters",
				Name: b.ns, Paths: []string{"spec.shoot.spec.hibernation.enabled"},
			},
			Value: strconv.FormatBool(b.hibernated), Default: "false",
		},
	}
}
