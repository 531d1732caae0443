package shoot

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/version"

	"github.com/declarative-gardener/gardener/engine/render"
)

// Version maintenance is gardener-controller-manager's: once a day, at a random instant in the
// Shoot's maintenance window (without its last 15 minutes, EffectiveShootMaintenanceTimeWindow in
// pkg/utils/gardener/shoot.go at Gardener v1.120.0), or at once when the Shoot is annotated
// gardener.cloud/operation=maintain, its maintenance loop raises the Shoot's Kubernetes and machine
// image versions by the CloudProfile (gcmversions.go, gcmmaintenance.go; Gardener's "Shoot
// Maintenance" docs/usage/shoot/shoot_maintenance.md). The shoot block never maintains:
//
//   - The landscape's versions are a floor: the Shoot carries the higher of the landscape's and
//     the live Shoot's, so a version the loop raised stays and a landscape version above the
//     live one is a deliberate upgrade. What the loop removed for a raised version (feature
//     gates, admission plugins) stays removed, with a notice.
//   - The control plane runs the Shoot's versions: the live Shoot's, or, in a plan for a later
//     time (render.Input.ObservedAt), the Shoot as the loop will have maintained it by then.
//   - The plan predicts the loop's next run that changes the Shoot (or fails), in the interval it
//     picks its instant from; the daily run that only asks for a reconciliation is not shown.
//
// The CloudProfile is read from the virtual garden as it is now; a plan for a later time
// predicts with it.

// maintenanceEndGuard is the end of the window the loop never starts a run in
// (EffectiveMaintenanceTimeWindow in pkg/utils/gardener/shoot.go).
const maintenanceEndGuard = 15 * time.Minute

// maintenance is what the shoot block decides about the versions the maintenance loop changes.
type maintenance struct {
	// predictions are the loop's runs by the evaluation time that change the shoot, and its
	// next run.
	predictions []maintenancePrediction
	// short lists the changes of runs predicted by the evaluation time, for the parts' notes.
	short []string
	// notices say what the Shoot leaves out of the landscape and why.
	notices []string
	// next is when the next run that changes versions will have happened; zero otherwise.
	next time.Time
}

// maintenancePrediction is one run of the loop: at an instant in [at, until), or as soon as the
// loop sees the Shoot when until is zero.
type maintenancePrediction struct {
	at, until   time.Time
	description string
}

// maintenanceInput is what the version decisions depend on.
type maintenanceInput struct {
	live          *unstructured.Unstructured
	profile       *maintenanceProfile
	observed, now time.Time
	// tasks are what a run asks gardenlet for (maintenanceTasks).
	tasks []string
}

// decideVersions decides the Shoot's versions (into b.shootValues) and the control plane's
// (into b.v).
func (b *builder) decideVersions(in render.Input, live *unstructured.Unstructured, tasks []string) (maintenance, error) {
	var m maintenance
	b.raiseToLive(live)
	m.notices = b.leaveOutWhatMaintenanceRemoved()
	shoot := cloneValues(b.v)
	b.shootValues = &shoot
	window, known, err := b.gcmWindow(live)
	if err != nil || !known {
		return m, err // no window known: Gardener picks one the landscape cannot know yet
	}
	profile, err := b.observeCloudProfile(in)
	if err != nil || profile == nil {
		return m, err
	}
	b.predictMaintenance(&m, window, maintenanceInput{live: live, profile: profile, observed: in.Observation(), now: in.Now, tasks: tasks})
	return m, nil
}

// predictMaintenance runs the loop on the control plane's values for every run due by the
// evaluation time and predicts the next one.
func (b *builder) predictMaintenance(m *maintenance, window render.DailyWindow, in maintenanceInput) {
	auto := b.autoUpdate()
	runs := maintenanceRunsUntil(window, in)
	for _, r := range runs.done {
		run := maintain(&b.v, in.profile, auto, r.evaluate)
		if run.changed || run.failureReason != "" {
			m.short = append(m.short, run.short...)
			m.predictions = append(m.predictions, maintenancePrediction{at: r.at, until: r.until, description: maintenanceDescription(run, in.tasks)})
		}
	}
	next := runs.next
	if next.evaluate.IsZero() {
		return
	}
	preview := cloneValues(b.v)
	run := maintain(&preview, in.profile, auto, next.evaluate)
	if !run.changed && run.failureReason == "" {
		return // a run that only asks for the daily reconciliation is not worth a line of every plan
	}
	m.predictions = append(m.predictions, maintenancePrediction{at: next.at, until: next.until, description: maintenanceDescription(run, in.tasks)})
	if run.changed {
		m.next = next.until
		if next.until.IsZero() {
			m.next = next.at
		}
	}
}

// maintenanceDescription is what a run does, in the loop's words: status.lastMaintenance, and the
// reconciliation it asks gardenlet for.
func maintenanceDescription(run maintenanceRun, tasks []string) string {
	what := "no version to update"
	if run.description != "" {
		what = run.description
	}
	if run.failureReason != "" {
		what += "; failed: " + run.failureReason
	}
	return fmt.Sprintf("maintenance: %s; asks for a reconciliation (gardener.cloud/operation=reconcile, tasks %s)", what, strings.Join(tasks, ", "))
}

// maintenanceSlot is when a run happens: at a random instant in [at, until), or as soon as the
// loop sees the Shoot when until is zero; evaluate is the instant its expiration checks are
// made at (the earliest it can run).
type maintenanceSlot struct {
	at, until, evaluate time.Time
}

// maintenanceSchedule is the loop's runs between the reading of the Shoot and the evaluation
// time, and its next run.
type maintenanceSchedule struct {
	done []maintenanceSlot
	next maintenanceSlot
}

// maintenanceRunsUntil lists the loop's runs: at once when the live Shoot asks for it
// (gardener.cloud/operation=maintain), then once in each window, at a random instant in its
// effective part, and not again in a window it already maintained the Shoot in
// (status.lastMaintenance.triggeredTime; the requeue after a run goes to the next window,
// RandomDurationUntilNext). Runs whose window ends by the evaluation time are done; a window the
// evaluation time falls in may or may not be.
func maintenanceRunsUntil(window render.DailyWindow, in maintenanceInput) maintenanceSchedule {
	var s maintenanceSchedule
	var maintainedSince time.Time
	if in.live != nil {
		maintainedSince = lastMaintenance(in.live)
		if in.live.GetAnnotations()[AnnotationOperation] == OperationMaintain {
			slot := maintenanceSlot{evaluate: in.observed}
			if in.now.After(in.observed) {
				s.done = append(s.done, slot)
				maintainedSince = in.observed
			} else {
				s.next = slot
				return s
			}
		}
	} else if inEffectiveWindow(window, in.now) {
		// Created inside its window: the loop maintains it at once (its create event).
		s.next = maintenanceSlot{evaluate: in.now}
		return s
	}
	for begin := window.NextBegin(in.observed).AddDate(0, 0, -1); ; begin = begin.AddDate(0, 0, 1) {
		until := begin.Add(windowDuration(window) - maintenanceEndGuard)
		if !until.After(in.observed) || !maintainedSince.Before(begin) {
			continue // over before the Shoot was read, or maintained in already
		}
		slot := maintenanceSlot{at: begin, until: until, evaluate: laterOf(begin, in.observed)}
		if until.After(in.now) {
			slot.evaluate = laterOf(slot.evaluate, in.now)
			s.next = slot
			return s
		}
		s.done = append(s.done, slot)
	}
}

// inEffectiveWindow reports whether t falls in the window without its last 15 minutes.
func inEffectiveWindow(window render.DailyWindow, t time.Time) bool {
	begin := window.NextBegin(t).AddDate(0, 0, -1)
	return !t.Before(begin) && t.Before(begin.Add(windowDuration(window)-maintenanceEndGuard))
}

// windowDuration is how long the window lasts.
func windowDuration(window render.DailyWindow) time.Duration {
	begin := window.NextBegin(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))
	return window.NextEnd(begin).Sub(begin)
}

// lastMaintenance is when the loop last changed the Shoot (status.lastMaintenance.triggeredTime);
// zero when it never did.
func lastMaintenance(live *unstructured.Unstructured) time.Time {
	s, _, _ := unstructured.NestedString(live.Object, "status", "lastMaintenance", "triggeredTime")
	t, _ := time.Parse(time.RFC3339, s)
	return t
}

// gcmWindow is the window the loop maintains the Shoot in: the landscape's time_window, or the
// one gardener-apiserver picked for the live Shoot (Gardener's MaintenanceTimeWindow in
// docs/api-reference/core.md). A confined shoot's previous window holds its rollouts only; the
// loop takes a changed window at once (its predicate on the time window).
func (b *builder) gcmWindow(live *unstructured.Unstructured) (render.DailyWindow, bool, error) {
	var w render.MaintenanceWindow
	if m := b.v.Maintenance; m != nil && m.TimeWindow != nil && m.TimeWindow.Begin != "" && m.TimeWindow.End != "" {
		w = render.MaintenanceWindow{Begin: m.TimeWindow.Begin, End: m.TimeWindow.End}
	} else if live != nil {
		w.Begin, _, _ = unstructured.NestedString(live.Object, "spec", "maintenance", "timeWindow", "begin")
		w.End, _, _ = unstructured.NestedString(live.Object, "spec", "maintenance", "timeWindow", "end")
	}
	if w.Begin == "" || w.End == "" {
		return render.DailyWindow{}, false, nil
	}
	d, err := w.Parse()
	return d, err == nil, err
}

// autoUpdate is the shoot's automatic updates (Gardener's MaintenanceAutoUpdate in
// docs/api-reference/core.md); a workerless Shoot has no machine images.
func (b *builder) autoUpdate() AutoUpdate {
	auto := autoUpdateDefaults()
	if mt := b.v.Maintenance; mt != nil && mt.AutoUpdate != nil {
		auto = *mt.AutoUpdate
	}
	return auto
}

// raiseToLive keeps versions maintenance raised: the higher of the landscape's and the live
// Shoot's, for the control plane and each worker pool's Kubernetes version and image (a pool
// whose image version the landscape leaves out takes the live one).
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
			if w.MachineImage != nil && w.MachineImage.Name == image && (w.MachineImage.Version == "" || newer(v, w.MachineImage.Version)) {
				img := *w.MachineImage
				img.Version = v
				w.MachineImage = &img
			}
			if w.KubernetesVersion != "" && newer(k8s, w.KubernetesVersion) {
				w.KubernetesVersion = k8s
			}
		}
	}
}

// leaveOutWhatMaintenanceRemoved drops the feature gates and admission plugins the Shoot's
// Kubernetes version does not support once maintenance raised it above the landscape's: the loop
// removed them from the Shoot, and writing them again would be refused by gardener-apiserver.
// It returns a notice for each.
func (b *builder) leaveOutWhatMaintenanceRemoved() []string {
	if b.v.Kubernetes.Version == b.declared.Kubernetes.Version {
		return nil // the landscape's version: validation judges its gates, not maintenance
	}
	b.v.Kubernetes = cloneKubernetes(b.v.Kubernetes)
	removed := append(maintainFeatureGates(&b.v), maintainAdmissionPlugins(&b.v)...)
	var notices []string
	for _, r := range removed {
		notices = append(notices, fmt.Sprintf("maintenance raised the shoot to Kubernetes %s: %s; the Shoot leaves them out, remove them from the landscape", b.v.Kubernetes.Version, r))
	}
	return notices
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
		return b == "" && a != ""
	}
	return va.GreaterThan(vb)
}

// note is the plan note of the control plane's parts when maintenance by the evaluation time
// changed versions.
func (m maintenance) note() string {
	if len(m.short) == 0 {
		return ""
	}
	return "gardener-controller-manager's maintenance: " + strings.Join(m.short, ", ")
}

// maintenancePredictions are the maintenance loop's runs as the plan shows them.
func (b *builder) maintenancePredictions() []render.Prediction {
	var out []render.Prediction
	for _, p := range b.maintenance.predictions {
		out = append(out, b.shootPrediction("shoot-maintenance", p.at, p.until, p.description))
	}
	return out
}

// observeCloudProfile reads the shoot's CloudProfile (a NamespacedCloudProfile's resulting
// profile is its status.cloudProfileSpec, Gardener's NamespacedCloudProfileStatus in
// docs/api-reference/core.md); nil when it does not exist yet.
func (b *builder) observeCloudProfile(in render.Input) (*maintenanceProfile, error) {
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
	return profileOf(spec), nil
}

// profileOf reads what maintenance needs of a CloudProfile's spec.
func profileOf(spec map[string]any) *maintenanceProfile {
	p := &maintenanceProfile{}
	k8s, _, _ := unstructured.NestedSlice(spec, "kubernetes", "versions")
	for _, e := range k8s {
		if m, ok := e.(map[string]any); ok {
			p.kubernetes = append(p.kubernetes, expirableOf(m))
		}
	}
	images, _, _ := unstructured.NestedSlice(spec, "machineImages")
	for _, i := range images {
		img, ok := i.(map[string]any)
		if !ok {
			continue
		}
		pi := profileImage{}
		pi.name, _, _ = unstructured.NestedString(img, "name")
		pi.strategy, _, _ = unstructured.NestedString(img, "updateStrategy")
		versions, _, _ := unstructured.NestedSlice(img, "versions")
		for _, e := range versions {
			if m, ok := e.(map[string]any); ok {
				pi.versions = append(pi.versions, imageVersionOf(m))
			}
		}
		p.images = append(p.images, pi)
	}
	return p
}

// expirableOf reads an ExpirableVersion; an expiration date that does not parse counts as none.
func expirableOf(m map[string]any) expirableVersion {
	v := expirableVersion{}
	v.version, _, _ = unstructured.NestedString(m, "version")
	v.classification, _, _ = unstructured.NestedString(m, "classification")
	if d, _, _ := unstructured.NestedString(m, "expirationDate"); d != "" {
		if t, err := time.Parse(time.RFC3339, d); err == nil {
			v.expires = &t
		}
	}
	return v
}

// imageVersionOf reads a MachineImageVersion: its architectures from its capability sets when
// they name any, else from architectures (GetArchitecturesFromImageVersion).
func imageVersionOf(m map[string]any) imageVersion {
	v := imageVersion{expirableVersion: expirableOf(m)}
	sets, _, _ := unstructured.NestedSlice(m, "capabilitySets")
	for _, s := range sets {
		if set, ok := s.(map[string]any); ok {
			archs, _, _ := unstructured.NestedStringSlice(set, "capabilities", "architecture")
			v.architectures = append(v.architectures, archs...)
		}
	}
	if len(v.architectures) == 0 {
		v.architectures, _, _ = unstructured.NestedStringSlice(m, "architectures")
	}
	if len(v.architectures) == 0 {
		v.architectures = []string{"amd64"} // SetDefaults_CloudProfile, for a profile read without the server's defaults
	}
	cris, _, _ := unstructured.NestedSlice(m, "cri")
	for _, c := range cris {
		cm, ok := c.(map[string]any)
		if !ok {
			continue
		}
		cri := imageCRI{}
		cri.name, _, _ = unstructured.NestedString(cm, "name")
		runtimes, _, _ := unstructured.NestedSlice(cm, "containerRuntimes")
		for _, r := range runtimes {
			if rm, ok := r.(map[string]any); ok {
				t, _, _ := unstructured.NestedString(rm, "type")
				cri.runtimes = append(cri.runtimes, t)
			}
		}
		v.cris = append(v.cris, cri)
	}
	if len(v.cris) == 0 {
		v.cris = []imageCRI{{name: "containerd"}} // SetDefaults_MachineImageVersion
	}
	v.kubeletVersionConstraint, _, _ = unstructured.NestedString(m, "kubeletVersionConstraint")
	return v
}
