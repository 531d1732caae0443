package shoot

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/version"

	"github.com/declarative-gardener/gardener/engine/render"
)

// Version maintenance is gardener-controller-manager's Shoot Maintenance loop (Gardener's "Shoot
// Maintenance" docs/usage/shoot/shoot_maintenance.md, "Shoot Kubernetes and Operating System
// Versioning in Gardener" docs/usage/shoot-operations/shoot_versions.md) as behaviour of the shoot
// block. Inside the shoot's daily maintenance window the plan moves the control plane's Kubernetes
// version and every worker pool's machine image version to what the CloudProfile makes eligible,
// automatically when the shoot opted in (auto_update, on by default, Gardener's
// MaintenanceAutoUpdate in docs/api-reference/core.md) and by force when the version in use is
// expired or no longer offered (Gardener's docs/usage/shoot-operations/shoot_versions.md). Outside
// the window the plan keeps the versions and says what the next window will do.
//
// The landscape's versions are a floor: a version maintenance raised stays, since Gardener
// never lets a shoot go back to an older version, so the version in force is the higher of the
// landscape's and the live Shoot's. The CloudProfile is read from the virtual garden; before it
// exists (a landscape applied from empty) there is nothing to maintain against.

// AnnotationMaintained is the begin of the last maintenance window in which maintenance
// changed the shoot's versions (RFC 3339): "Gardener runs one maintenance operation per day"
// (Gardener's docs/usage/shoot/shoot_maintenance.md), so a forced update that needs several steps
// takes one per window (Gardener's docs/usage/shoot-operations/shoot_versions.md).
const AnnotationMaintained = "declarative-gardener.io/maintained-window"

// maintenance is what version maintenance decided for a shoot.
type maintenance struct {
	// maintained is AnnotationMaintained's value: the live one, or this window's begin when
	// maintenance changed versions now.
	maintained string
	// changes describe the updates made now, in Gardener's event wording; short the same in a
	// few words, for the notes of the parts they change.
	changes, short []string
	// upcoming says what the next window will do, or why it will fail.
	upcoming []string
	// failures are the updates that cannot be made (Gardener's docs/usage/shoot/shoot_maintenance.md).
	failures []string
	// next is the next window's begin when an update waits for it; zero otherwise.
	next time.Time
}

// maintainVersions decides the shoot's versions at now and writes them into b.v.
func (b *builder) maintainVersions(in render.Input, live *unstructured.Unstructured) (maintenance, error) {
	var m maintenance
	if live != nil {
		m.maintained = live.GetAnnotations()[AnnotationMaintained]
	}
	window, ok, err := b.maintenanceWindow()
	if err != nil || !ok {
		return m, err // no window known: Gardener picks one the landscape cannot know yet
	}
	b.raiseToLive(live)
	profile, err := b.observeCloudProfile(in)
	if err != nil || profile == nil {
		return m, err
	}
	auto := autoUpdateDefaults()
	if mt := b.v.Maintenance; mt != nil && mt.AutoUpdate != nil {
		auto = *mt.AutoUpdate
	}
	autoK8s, autoImage := auto.KubernetesVersion, auto.MachineImageVersion
	// The maintain operation maintains now, inside the window or not (Gardener's "Trigger Shoot
	// Operations Through Annotations" docs/usage/shoot-operations/shoot_operations.md).
	inside := window.Contains(in.Now) || b.operation.maintainsNow()
	// This window's begin (the next begin is a day later while inside it); outside the window,
	// the last one's, which a maintain operation counts as maintained: the next window is a
	// day's maintenance of its own ("one maintenance operation per day", Gardener's
	// docs/usage/shoot/shoot_maintenance.md).
	occurrence := window.NextBegin(in.Now).Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	if inside && m.maintained == occurrence && !b.operation.maintainsNow() {
		inside = false // maintained in this window already: the rest waits for the next one
	}
	at := in.Now
	if !inside {
		at = window.NextBegin(in.Now)
	}
	record := func(what string, u versionUpdate, from, short string, apply func()) {
		change := fmt.Sprintf("%s: Updated %s to version %s. Reason: %s", what, from, u.Target, u.Reason)
		if inside {
			apply()
			m.changes = append(m.changes, change)
			m.short = append(m.short, short)
			m.maintained = occurrence
			return
		}
		m.upcoming = append(m.upcoming, fmt.Sprintf("maintenance window %s (next %s): %s", window.Text, at.UTC().Format(time.RFC3339), change))
		m.next = at
	}
	fail := func(err error) {
		msg := err.Error()
		if inside {
			m.failures = append(m.failures, msg)
		} else {
			m.upcoming = append(m.upcoming, fmt.Sprintf("maintenance window %s (next %s) will fail: %s", window.Text, at.UTC().Format(time.RFC3339), msg))
		}
	}

	if current := b.v.Kubernetes.Version; current != "" {
		u, err := kubernetesUpdate(current, profile.kubernetes, autoK8s, at)
		switch {
		case err != nil:
			fail(fmt.Errorf("Control Plane: %w", err))
		case u.Target != "":
			record("Control Plane", u, fmt.Sprintf("Kubernetes version '%s'", current),
				fmt.Sprintf("Kubernetes %s -> %s", current, u.Target), func() { b.v.Kubernetes.Version = u.Target })
		}
	}
	// "Automatic updates of Kubernetes versions ... also apply to worker pool Kubernetes
	// versions" (Gardener's "Controlling the Kubernetes Versions for Specific Worker Pools"
	// docs/usage/shoot-operations/worker_pool_k8s_versions.md), for pools that pin their own; the
	// others follow the control plane.
	for i := range b.v.Workers {
		w := &b.v.Workers[i]
		if w.KubernetesVersion == "" {
			continue
		}
		current := w.KubernetesVersion
		u, err := kubernetesUpdate(current, profile.kubernetes, autoK8s, at)
		switch {
		case err != nil:
			fail(fmt.Errorf("Worker pool %q: %w", w.Name, err))
		case u.Target != "":
			record(fmt.Sprintf("Worker pool %q", w.Name), u, fmt.Sprintf("Kubernetes version '%s'", current), // Gardener's docs/usage/shoot/shoot_maintenance.md
				fmt.Sprintf("pool %s Kubernetes %s -> %s", w.Name, current, u.Target), func() { w.KubernetesVersion = u.Target })
		}
	}
	for i := range b.v.Workers {
		w := &b.v.Workers[i]
		if w.MachineImage == nil || w.MachineImage.Version == "" {
			continue // Gardener defaults the newest version; nothing of ours to maintain
		}
		img, ok := profile.images[w.MachineImage.Name]
		if !ok {
			continue
		}
		current := w.MachineImage.Version
		u, err := imageUpdate(w.MachineImage.Name, current, img.versions, img.strategy, autoImage, at)
		switch {
		case err != nil:
			fail(fmt.Errorf("Worker pool %q: %w", w.Name, err))
		case u.Target != "":
			record(fmt.Sprintf("Worker pool %q", w.Name), u, fmt.Sprintf("image from '%s' version '%s'", w.MachineImage.Name, current),
				fmt.Sprintf("pool %s image %s %s -> %s", w.Name, w.MachineImage.Name, current, u.Target), func() { w.MachineImage.Version = u.Target })
		}
	}
	return m, nil
}

// maintenanceWindow is the window maintenance acts in now (decideWindow).
func (b *builder) maintenanceWindow() (render.DailyWindow, bool, error) {
	w := b.window.window
	if w.Begin == "" || w.End == "" {
		return render.DailyWindow{}, false, nil
	}
	d, err := w.Parse()
	return d, err == nil, err
}

// raiseToLive keeps versions maintenance raised before: the higher of the landscape's and the
// live Shoot's, for the control plane and each worker pool's Kubernetes version and image.
func (b *builder) raiseToLive(live *unstructured.Unstructured) {
	if live == nil {
		return
	}
	if v, _, _ := unstructured.NestedString(live.Object, "spec", "kubernetes", "version"); newer(v, b.v.Kubernetes.Version) {
		b.v.Kubernetes.Version = v
	}
	pools, _, _ := unstructured.NestedSlice(live.Object, "spec", "provider", "workers")
	for _, p := range pools {
		pool, ok := p.(map[string]any)
		if !ok {
			continue
		}
		name, _, _ := unstructured.NestedString(pool, "name")
		image, _, _ := unstructured.NestedString(pool, "machine", "image", "name")
		v, _, _ := unstructured.NestedString(pool, "machine", "image", "version")
		k8s, _, _ := unstructured.NestedString(pool, "kubernetes", "version")
		for i := range b.v.Workers {
			w := &b.v.Workers[i]
			if w.Name != name {
				continue
			}
			if w.MachineImage != nil && w.MachineImage.Name == image && newer(v, w.MachineImage.Version) {
				w.MachineImage.Version = v
			}
			if w.KubernetesVersion != "" && newer(k8s, w.KubernetesVersion) {
				w.KubernetesVersion = k8s
			}
		}
	}
}

// newer reports whether version a is a later version than b; versions that do not parse are
// never newer.
func newer(a, b string) bool {
	va, err := version.ParseGeneric(a)
	if err != nil {
		return false
	}
	vb, err := version.ParseGeneric(b)
	if err != nil {
		return false
	}
	return va.GreaterThan(vb)
}

// offeredImage is a machine image of a CloudProfile.
type offeredImage struct {
	strategy string
	versions []offeredVersion
}

// offeredProfile is what a CloudProfile offers that maintenance looks at.
type offeredProfile struct {
	kubernetes []offeredVersion
	images     map[string]offeredImage
}

// observeCloudProfile reads the shoot's CloudProfile (a NamespacedCloudProfile's resulting
// profile is its status.cloudProfileSpec, Gardener's NamespacedCloudProfileStatus in
// docs/api-reference/core.md); nil when it does not exist yet.
func (b *builder) observeCloudProfile(in render.Input) (*offeredProfile, error) {
	ref := render.LiveRef{Cluster: b.seed.VirtualCluster, Group: "core.gardener.cloud", Version: "v1beta1", Resource: "cloudprofiles", Name: b.v.CloudProfile}
	specPath := []string{"spec"}
	if b.v.CloudProfileKind == "NamespacedCloudProfile" {
		ref.Resource, ref.Namespace = "namespacedcloudprofiles", ProjectNamespace(b.v.Project)
		specPath = []string{"status", "cloudProfileSpec"}
	}
	u, err := in.Observed(ref)
	if err != nil {
		return nil, fmt.Errorf("read the cloud profile %s for maintenance: %w", b.v.CloudProfile, err)
	}
	if u == nil {
		return nil, nil
	}
	spec, _, _ := unstructured.NestedMap(u.Object, specPath...)
	p := &offeredProfile{images: map[string]offeredImage{}}
	k8s, _, _ := unstructured.NestedSlice(spec, "kubernetes", "versions")
	p.kubernetes = offeredVersions(k8s)
	images, _, _ := unstructured.NestedSlice(spec, "machineImages")
	for _, i := range images {
		img, ok := i.(map[string]any)
		if !ok {
			continue
		}
		name, _, _ := unstructured.NestedString(img, "name")
		strategy, _, _ := unstructured.NestedString(img, "updateStrategy")
		versions, _, _ := unstructured.NestedSlice(img, "versions")
		p.images[name] = offeredImage{strategy: strategy, versions: offeredVersions(versions)}
	}
	return p, nil
}

// offeredVersions reads ExpirableVersions; an expiration date that does not parse counts as
// none.
func offeredVersions(list []any) []offeredVersion {
	var out []offeredVersion
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		o := offeredVersion{}
		o.raw, _, _ = unstructured.NestedString(m, "version")
		o.classification, _, _ = unstructured.NestedString(m, "classification")
		if d, _, _ := unstructured.NestedString(m, "expirationDate"); d != "" {
			if t, err := time.Parse(time.RFC3339, d); err == nil {
				o.expires = t
			}
		}
		out = append(out, o)
	}
	return out
}

// note is the plan note of the shoot's parts when maintenance changed versions.
func (m maintenance) note() string {
	if len(m.short) == 0 {
		return ""
	}
	return "maintenance: " + strings.Join(m.short, ", ")
}

// summary describes a maintenance carried out now as Gardener's lastMaintenance does
// (Gardener's docs/usage/shoot/shoot_maintenance.md); empty when nothing was done or failed.
func (m maintenance) summary() string {
	done, failed := len(m.changes), len(m.failures)
	switch {
	case done+failed == 0:
		return ""
	case failed == 0:
		return "All maintenance operations successful. " + strings.Join(m.changes, "; ")
	}
	out := fmt.Sprintf("(%d/%d) maintenance operations successful", done, done+failed)
	if done > 0 {
		out += ": " + strings.Join(m.changes, "; ")
	}
	return out + ". Failed: " + strings.Join(m.failures, "; ")
}
