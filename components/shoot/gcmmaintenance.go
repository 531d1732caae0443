package shoot

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
)

// One run of gardener-controller-manager's maintenance loop on a shoot (shoot-maintenance,
// reconcile in pkg/controllermanager/controller/shoot/maintenance/reconciler.go at Gardener
// v1.120.0), ported onto the shoot block's values: the worker pools' machine images, the control
// plane's Kubernetes version, the pools' own Kubernetes versions (never above the control
// plane's), then the feature gates and admission plugins the new versions do not support
// removed. Its oidcConfig, kubelet swap and systemReserved steps touch fields a landscape cannot
// set. The description is the Shoot's status.lastMaintenance.description as the loop writes it
// (buildMaintenanceMessages), the worker pools in name order where the loop takes a map's.

// maintenanceProfile is what a CloudProfile offers that maintenance reads.
type maintenanceProfile struct {
	kubernetes []expirableVersion
	images     []profileImage
}

// maintenanceRun is the outcome of one run.
type maintenanceRun struct {
	// changed says whether the run changed the values it maintained.
	changed bool
	// description and failureReason are status.lastMaintenance's.
	description, failureReason string
	// short lists the changes in a few words each, for the notes of the parts they change.
	short []string
}

// maintain runs the loop once on v at now: v becomes the Shoot as the run leaves it.
func maintain(v *Values, profile *maintenanceProfile, auto AutoUpdate, now time.Time) maintenanceRun {
	var run maintenanceRun
	var images map[string]*versionUpdate
	if len(v.Workers) > 0 {
		images = maintainImages(v, profile, auto.MachineImageVersion, now)
	}
	controlPlane, _ := maintainKubernetesVersion(v.Kubernetes.Version, auto.KubernetesVersion, profile.kubernetes, now)
	if controlPlane != nil && controlPlane.ok {
		run.short = append(run.short, fmt.Sprintf("Kubernetes %s -> %s", v.Kubernetes.Version, controlPlane.target))
		v.Kubernetes.Version = controlPlane.target
	}
	pools := maintainPoolKubernetesVersions(v, profile, auto.KubernetesVersion, now, &run)
	for name, u := range images {
		if u.ok {
			i := slices.IndexFunc(v.Workers, func(w Worker) bool { return w.Name == name })
			run.short = append(run.short, fmt.Sprintf("pool %s image %s %s -> %s", name, v.Workers[i].MachineImage.Name, v.Workers[i].MachineImage.Version, u.target))
			v.Workers[i].MachineImage.Version = u.target
		}
	}
	operations := append(maintainFeatureGates(v), maintainAdmissionPlugins(v)...)
	run.changed = len(run.short) > 0 || len(operations) > 0
	if controlPlane == nil && len(pools) == 0 && len(images) == 0 && len(operations) == 0 {
		return run
	}
	run.description, run.failureReason = maintenanceMessages(controlPlane, pools, images)
	if len(operations) > 0 {
		run.description = fmt.Sprintf("%s, %s", run.description, strings.Join(operations, ", "))
	}
	return run
}

// maintainImages maintains each worker pool's machine image (maintainMachineImages): an image
// the profile does not offer fails the images of every pool.
func maintainImages(v *Values, profile *maintenanceProfile, auto bool, now time.Time) map[string]*versionUpdate {
	controlPlane, err := semver.NewVersion(v.Kubernetes.Version)
	if err != nil {
		return nil
	}
	out := map[string]*versionUpdate{}
	for _, w := range v.Workers {
		if w.MachineImage == nil || w.MachineImage.Version == "" {
			continue // Gardener picks the image; the landscape has no version of it to maintain
		}
		i := slices.IndexFunc(profile.images, func(p profileImage) bool { return strings.EqualFold(p.name, w.MachineImage.Name) })
		if i < 0 {
			return nil // determineMachineImage fails, and with it the images of every pool
		}
		kubelet := controlPlane
		if w.KubernetesVersion != "" {
			if kubelet, err = semver.NewVersion(w.KubernetesVersion); err != nil {
				return nil
			}
		}
		pool := poolImage{name: w.MachineImage.Name, version: w.MachineImage.Version, architecture: architectureOf(w), kubelet: kubelet}
		if w.CRI != nil {
			pool.cri = w.CRI.Name
		}
		if u := maintainMachineImage(pool, profile.images[i], auto, now); u != nil {
			out[w.Name] = u
		}
	}
	return out
}

// architectureOf is a pool's machine architecture; the API defaults amd64.
func architectureOf(w Worker) string {
	if w.Architecture == "" {
		return "amd64"
	}
	return w.Architecture
}

// maintainPoolKubernetesVersions maintains the Kubernetes versions pools pin, never above the
// control plane's.
func maintainPoolKubernetesVersions(v *Values, profile *maintenanceProfile, auto bool, now time.Time, run *maintenanceRun) map[string]*versionUpdate {
	controlPlane, err := semver.NewVersion(v.Kubernetes.Version)
	if err != nil {
		return nil
	}
	out := map[string]*versionUpdate{}
	for i := range v.Workers {
		w := &v.Workers[i]
		if w.KubernetesVersion == "" {
			continue
		}
		u, _ := maintainKubernetesVersion(w.KubernetesVersion, auto, profile.kubernetes, now)
		if u == nil {
			continue
		}
		if u.ok {
			target, err := semver.NewVersion(u.target)
			if err == nil && target.GreaterThan(controlPlane) {
				target = controlPlane
			}
			if target != nil {
				u.target = target.String()
				u.description = fmt.Sprintf("Updated Kubernetes version from %q to %q", w.KubernetesVersion, u.target)
			}
			run.short = append(run.short, fmt.Sprintf("pool %s Kubernetes %s -> %s", w.Name, w.KubernetesVersion, u.target))
			w.KubernetesVersion = u.target
		}
		out[w.Name] = u
	}
	return out
}

// maintenanceMessages is status.lastMaintenance's description and failure reason
// (buildMaintenanceMessages).
func maintenanceMessages(controlPlane *versionUpdate, pools, images map[string]*versionUpdate) (string, string) {
	var description, failure []string
	succeeded, failed := 0, 0
	if u := controlPlane; u != nil {
		if u.ok {
			succeeded++
			description = append(description, fmt.Sprintf("Control Plane: %s. Reason: %s", u.description, u.reason))
		} else {
			failed++
			description = append(description, fmt.Sprintf("Control Plane: Kubernetes version update failed. Reason for update: %s", u.reason))
			failure = append(failure, fmt.Sprintf("Control Plane: Kubernetes maintenance failure due to: %s", u.description))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(pools)) {
		u := pools[name]
		if u.ok {
			succeeded++
			description = append(description, fmt.Sprintf("Worker pool %q: %s. Reason: %s", name, u.description, u.reason))
			continue
		}
		failed++
		description = append(description, fmt.Sprintf("Worker pool %q: Kubernetes version maintenance failed. Reason for update: %s", name, u.reason))
		failure = append(failure, fmt.Sprintf("Worker pool %q: Kubernetes maintenance failure due to: %s", name, u.description))
	}
	for _, name := range slices.Sorted(maps.Keys(images)) {
		u := images[name]
		if u.ok {
			succeeded++
			description = append(description, fmt.Sprintf("Worker pool %q: %s. Reason: %s", name, u.description, u.reason))
			continue
		}
		failed++
		description = append(description, fmt.Sprintf("Worker pool %q: machine image version maintenance failed. Reason for update: %s", name, u.reason))
		failure = append(failure, fmt.Sprintf("Worker pool %q: %s", name, u.description))
	}
	text := strings.Join(description, ", ")
	if failed == 0 {
		return "All maintenance operations successful. " + text, ""
	}
	return fmt.Sprintf("(%d/%d) maintenance operations successful. %s", succeeded, succeeded+failed, text), strings.Join(failure, ", ")
}

// versionRange is a range of Kubernetes versions, [added, removed), either end open when empty
// (VersionRange in pkg/utils/version/version.go).
type versionRange struct{ added, removed string }

// contains reports whether version is in the range.
func (r versionRange) contains(version string) bool {
	var constraint string
	switch {
	case r.added != "" && r.removed == "":
		constraint = ">= " + r.added
	case r.added == "" && r.removed != "":
		constraint = "< " + r.removed
	case r.added != "" && r.removed != "":
		constraint = fmt.Sprintf(">= %s, < %s", r.added, r.removed)
	default:
		constraint = "*"
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return false
	}
	v, err := semver.NewVersion(normalizeVersion(version))
	return err == nil && c.Check(v)
}

// featureGateSupported is Gardener's IsFeatureGateSupported: an unknown gate is not.
func featureGateSupported(gate, version string) bool {
	r, ok := featureGateVersions[gate]
	return ok && r.contains(version)
}

// admissionPluginSupported is Gardener's IsAdmissionPluginSupported: an unknown plugin is not.
func admissionPluginSupported(plugin, version string) bool {
	r, ok := admissionPluginVersions[plugin]
	return ok && r.contains(version)
}

// featureGateSets are the shoot's feature gates by the field Gardener names them by, with the
// Kubernetes version each must support (maintainFeatureGatesForShoot; the landscape sets no
// kubelet gates).
func featureGateSets(v *Values) []struct {
	field string
	gates *map[string]bool
} {
	var out []struct {
		field string
		gates *map[string]bool
	}
	add := func(field string, gates *map[string]bool) {
		out = append(out, struct {
			field string
			gates *map[string]bool
		}{field, gates})
	}
	k := &v.Kubernetes
	if a := k.KubeAPIServer; a != nil && a.FeatureGates != nil {
		add("spec.kubernetes.kubeAPIServer.featureGates", &a.FeatureGates)
	}
	if c := k.KubeControllerManager; c != nil && c.FeatureGates != nil {
		add("spec.kubernetes.kubeControllerManager.featureGates", &c.FeatureGates)
	}
	if s := k.KubeScheduler; s != nil && s.FeatureGates != nil {
		add("spec.kubernetes.kubeScheduler.featureGates", &s.FeatureGates)
	}
	if p := k.KubeProxy; p != nil && p.FeatureGates != nil {
		add("spec.kubernetes.kubeProxy.featureGates", &p.FeatureGates)
	}
	return out
}

// maintainFeatureGates removes the feature gates the control plane's Kubernetes version does not
// support (maintainFeatureGates), in Gardener's words.
func maintainFeatureGates(v *Values) []string {
	var reasons []string
	for _, set := range featureGateSets(v) {
		var removed []string
		kept := map[string]bool{}
		for gate, enabled := range *set.gates {
			if featureGateSupported(gate, v.Kubernetes.Version) {
				kept[gate] = enabled
			} else {
				removed = append(removed, gate)
			}
		}
		*set.gates = kept
		if len(removed) > 0 {
			slices.Sort(removed)
			reasons = append(reasons, fmt.Sprintf("Removed feature gates from %q because they are not supported in Kubernetes version %q: %s", set.field, v.Kubernetes.Version, strings.Join(removed, ", ")))
		}
	}
	return reasons
}

// maintainAdmissionPlugins removes the admission plugins the control plane's Kubernetes version
// does not support (maintainAdmissionPluginsForShoot), in Gardener's words.
func maintainAdmissionPlugins(v *Values) []string {
	a := v.Kubernetes.KubeAPIServer
	if a == nil || a.AdmissionPlugins == nil {
		return nil
	}
	var removed []string
	kept := a.AdmissionPlugins[:0:0]
	for _, p := range a.AdmissionPlugins {
		if admissionPluginSupported(p.Name, v.Kubernetes.Version) {
			kept = append(kept, p)
		} else {
			removed = append(removed, p.Name)
		}
	}
	a.AdmissionPlugins = kept
	if len(removed) == 0 {
		return nil
	}
	slices.Sort(removed)
	return []string{fmt.Sprintf("Removed admission plugins from %q because they are not supported in Kubernetes version %q: %s", "spec.kubernetes.kubeAPIServer.admissionPlugins", v.Kubernetes.Version, strings.Join(removed, ", "))}
}

// maintenanceTasks are the tasks a run asks gardenlet for besides the reconciliation it requests
// (maintainTasks), by the controller manager's restarter settings.
func maintenanceTasks(restartControlPlane, restartCoreAddons bool) []string {
	tasks := []string{"deployInfrastructure", "deployDNSRecordInternal", "deployDNSRecordExternal", "deployDNSRecordIngress"}
	if restartControlPlane {
		tasks = append(tasks, "restartControlPlanePods")
	}
	if restartCoreAddons {
		tasks = append(tasks, "restartCoreAddons")
	}
	return tasks
}
