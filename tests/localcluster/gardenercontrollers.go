package localcluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"
)

// gardener-controller-manager and gardener-scheduler on a GardenerAPI plane: the real binaries of
// the pinned release, run as plain processes beside gardener-apiserver, as gardener-operator runs
// them in the runtime cluster of a garden. Neither serves anything kube-apiserver must reach: they
// register no webhooks, APIServices or Services (cmd/gardener-controller-manager/app/app.go,
// pkg/controllermanager/controller/add.go, cmd/gardener-scheduler/app/app.go and
// pkg/scheduler/controller/add.go at Gardener v1.120.0 only add controllers, health probes and
// metrics to their managers), so their only servers are health probes and metrics on loopback.

// GardenerControllers turns on gardener-controller-manager and gardener-scheduler on a GardenerAPI
// plane (PlaneOptions.GardenerControllers). Its overlays change the configurations the helper
// generates.
//
// Each overlay is YAML merged over the generated configuration as a JSON merge patch (RFC 7386):
// mappings merge key by key, any other value (lists included) replaces what was there, and null
// removes a key; an overlay of several documents (separated by ---) merges them in order. For
// example
//
//	controllers:
//	  seed: {monitorPeriod: 10s}
//	  shootHibernation: {triggerDeadlineDuration: 10m}
//	  project:
//	    quotas:
//	    - config: {spec: {hard: {count/shoots.core.gardener.cloud: "5"}}}
//
// sets fields of ControllerManagerConfiguration (pkg/controllermanager/apis/config/v1alpha1/types.go
// at Gardener v1.120.0), and `schedulers: {shoot: {candidateDeterminationStrategy: MinimalDistance}}`
// one of SchedulerConfiguration (pkg/scheduler/apis/config/v1alpha1/types.go). Gardener decodes
// these files leniently: a misspelt key is ignored without a word, so check names against those
// types. What the helper owns (apiVersion, kind, the kubeconfig, the servers it probes) cannot be
// overlaid; the start fails naming the field.
type GardenerControllers struct {
	// ControllerManagerOverlay is merged over gardener-controller-manager's
	// ControllerManagerConfiguration.
	ControllerManagerOverlay string
	// SchedulerOverlay is merged over gardener-scheduler's SchedulerConfiguration.
	SchedulerOverlay string
}

// LocalLandscapeControllerManagerOverlay is gardener-controller-manager's configuration as
// landscapes/local's garden declares it (its controller_manager block, rendered into the
// ControllerManagerConfiguration of the gardener-controller-manager the garden deploys, whose pods
// never run locally): the ResourceQuota every project namespace gets. With it, what plans of that
// landscape predict of the controller is what the local one does.
const LocalLandscapeControllerManagerOverlay = `controllers:
  project:
    quotas:
    - config:
        apiVersion: v1
        kind: ResourceQuota
        spec:
          hard:
            count/credentialsbindings.security.gardener.cloud: "10"
            count/secrets: "800"
            count/shoots.core.gardener.cloud: "100"
      projectSelector: {}
`

// SteadyControllerManagerOverlay holds off, for the length of a test, two loops of
// gardener-controller-manager that act at the wall-clock time, which tests neither control nor
// wait for:
//
//   - The seed lifecycle loop turns a Seed's GardenletReady Unknown once the Lease in
//     gardener-system-seed-lease is older than the monitor period (40s by default), and five periods
//     later its shoots' conditions (pkg/controllermanager/controller/seed/lifecycle/reconciler.go at
//     Gardener v1.120.0). An apply renews the Lease once; between applies only `gardener daemon`
//     does, and a test's next apply may be minutes away. A day outlasts every test.
//   - The hibernation loop carries out a Shoot's schedule at its start and end, in real time, and
//     a missed one up to the trigger deadline later (2h by default,
//     pkg/controllermanager/controller/shoot/hibernation/reconciler.go). Tests plan schedules at
//     other times (plan --at) and write the loop's flips themselves; a schedule's real start
//     falling inside a test would flip the Shoot under it. The loop wakes up 100ms after a trigger
//     and, with a deadline of zero, finds it missed: it never flips. A plane of a test's own with
//     Gardener's default shows the real loop (TestShootsBesideGardenerControllerManager in
//     tests/garden).
//
// The maintenance loop cannot be held off by its configuration: it maintains a Shoot created
// inside its maintenance window at once, and others at a random time in their window.
const SteadyControllerManagerOverlay = `controllers:
  seed: {monitorPeriod: 24h}
  shootHibernation: {triggerDeadlineDuration: 0s}
`

// TopologyControllerManagerOverlay configures gardener-controller-manager in the topology every
// test shares (Topology): as landscapes/local's garden does
// (LocalLandscapeControllerManagerOverlay), with the loops that act at the wall-clock time held off
// (SteadyControllerManagerOverlay).
const TopologyControllerManagerOverlay = LocalLandscapeControllerManagerOverlay + "---\n" + SteadyControllerManagerOverlay

// TopologyControllers are gardener-controller-manager and gardener-scheduler as Topology runs
// them: Gardener's defaults with TopologyControllerManagerOverlay.
func TopologyControllers() *GardenerControllers {
	return &GardenerControllers{ControllerManagerOverlay: TopologyControllerManagerOverlay}
}

// gardenerControllerPorts are the loopback ports of the controllers' health probe and metrics
// servers. Gardener's defaults are fixed ports (2718 and 2719, 10251 and 19251 in
// pkg/controllermanager/apis/config/v1alpha1/defaults.go and
// pkg/scheduler/apis/config/v1alpha1/defaults.go), which parallel planes would share.
type gardenerControllerPorts struct {
	controllerManagerHealth, controllerManagerMetrics int
	schedulerHealth, schedulerMetrics                 int
}

// loopbackServer is a health probe or metrics server on loopback. Gardener's default bind address
// is empty, every interface.
func loopbackServer(port int) map[string]any {
	return map[string]any{"bindAddress": "127.0.0.1", "port": port}
}

// gardenerControllerManagerConfig is the generated ControllerManagerConfiguration: the plane's
// admin kubeconfig (a $KUBECONFIG would override it, cmd/gardener-controller-manager/app/app.go;
// processEnv drops it), one replica without leader election, text logs like the plane's other
// binaries, and its servers on ports of their own. Everything else keeps Gardener's defaults
// (pkg/controllermanager/apis/config/v1alpha1/defaults.go): every controller runs, the Event
// controller stays off, the seed monitor period is 40s.
func (p *Plane) gardenerControllerManagerConfig() map[string]any {
	return map[string]any{
		"apiVersion":             "controllermanager.config.gardener.cloud/v1alpha1",
		"kind":                   "ControllerManagerConfiguration",
		"gardenClientConnection": map[string]any{"kubeconfig": p.kubeconfigPath},
		"leaderElection":         map[string]any{"leaderElect": false},
		"logLevel":               "info",
		"logFormat":              "text",
		"server": map[string]any{
			"healthProbes": loopbackServer(p.controllerPorts.controllerManagerHealth),
			"metrics":      loopbackServer(p.controllerPorts.controllerManagerMetrics),
		},
		"controllers": map[string]any{},
	}
}

// gardenerSchedulerConfig is the generated SchedulerConfiguration, like gardener-controller-manager's,
// with the shoot scheduler's default strategy SameRegion spelt out (its key is
// candidateDeterminationStrategy, pkg/scheduler/apis/config/v1alpha1/types.go).
func (p *Plane) gardenerSchedulerConfig() map[string]any {
	return map[string]any{
		"apiVersion":       "scheduler.config.gardener.cloud/v1alpha1",
		"kind":             "SchedulerConfiguration",
		"clientConnection": map[string]any{"kubeconfig": p.kubeconfigPath},
		"leaderElection":   map[string]any{"leaderElect": false},
		"logLevel":         "info",
		"logFormat":        "text",
		"server": map[string]any{
			"healthProbes": loopbackServer(p.controllerPorts.schedulerHealth),
			"metrics":      loopbackServer(p.controllerPorts.schedulerMetrics),
		},
		"schedulers": map[string]any{"shoot": map[string]any{"candidateDeterminationStrategy": "SameRegion"}},
	}
}

// helperOwnedFields are the fields of both configurations an overlay may not change: the helper
// needs them to reach the binaries and for the binaries to reach the plane.
var helperOwnedFields = [][]string{
	{"apiVersion"},
	{"kind"},
	{"gardenClientConnection", "kubeconfig"},
	{"clientConnection", "kubeconfig"},
	{"server"},
}

// overlayConfig merges overlay (YAML, see GardenerControllers) over base and fails when the
// result changes a field the helper owns.
func overlayConfig(base map[string]any, overlay string) (map[string]any, error) {
	merged := base
	for _, doc := range splitYAMLDocuments([]byte(overlay)) {
		var patch map[string]any
		if err := yaml.Unmarshal(doc, &patch); err != nil {
			return nil, fmt.Errorf("overlay is not a YAML mapping: %w", err)
		}
		merged, _ = mergePatch(merged, patch).(map[string]any)
	}
	for _, path := range helperOwnedFields {
		before, _ := nestedValue(base, path)
		after, _ := nestedValue(merged, path)
		if !reflect.DeepEqual(normalizeJSON(before), normalizeJSON(after)) {
			return nil, fmt.Errorf("overlay may not change %s: the local control plane sets it", strings.Join(path, "."))
		}
	}
	return merged, nil
}

// mergePatch applies patch to base as a JSON merge patch (RFC 7386) without changing either.
func mergePatch(base, patch any) any {
	patchMap, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	baseMap, _ := base.(map[string]any)
	merged := maps.Clone(baseMap)
	if merged == nil {
		merged = map[string]any{}
	}
	for key, value := range patchMap {
		if value == nil {
			delete(merged, key)
			continue
		}
		merged[key] = mergePatch(merged[key], value)
	}
	return merged
}

// nestedValue returns the value at path in nested mappings.
func nestedValue(m map[string]any, path []string) (any, bool) {
	var current any = m
	for _, key := range path {
		mapping, ok := current.(map[string]any)
		if !ok {
			return nil, false
		}
		if current, ok = mapping[key]; !ok {
			return nil, false
		}
	}
	return current, true
}

// normalizeJSON round-trips a value through JSON, so that the generated configuration's ints and an
// overlay's decoded numbers compare equal.
func normalizeJSON(v any) any {
	data, err := yaml.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := yaml.Unmarshal(data, &out); err != nil {
		return v
	}
	return out
}

// writeGardenerControllerConfig writes one controller's configuration with its overlay applied
// and returns the file's path.
func (p *Plane) writeGardenerControllerConfig(binary string, base map[string]any, overlay string) (string, error) {
	config, err := overlayConfig(base, overlay)
	if err != nil {
		return "", fmt.Errorf("plane %s %s config: %w", p.opts.Name, binary, err)
	}
	data, err := yaml.Marshal(config)
	if err != nil {
		return "", fmt.Errorf("plane %s %s config: %w", p.opts.Name, binary, err)
	}
	path := filepath.Join(p.dir, binary+".yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("plane %s %s config: %w", p.opts.Name, binary, err)
	}
	return path, nil
}

// startGardenerControllers starts gardener-controller-manager and gardener-scheduler and waits
// until both are ready. They need the Gardener API served and the garden namespace (their
// bootstrap Secret, the scheduler's region ConfigMaps), so they start after registerGardenerAPI.
func (p *Plane) startGardenerControllers(ctx context.Context) error {
	gc := p.opts.GardenerControllers
	ports, err := choosePorts(4)
	if err != nil {
		return fmt.Errorf("plane %s: %w", p.opts.Name, err)
	}
	p.controllerPorts = gardenerControllerPorts{
		controllerManagerHealth: ports[0], controllerManagerMetrics: ports[1],
		schedulerHealth: ports[2], schedulerMetrics: ports[3],
	}
	controllers := []struct {
		binary     string
		config     map[string]any
		overlay    string
		healthPort int
	}{
		{binGardenerControllerManager, p.gardenerControllerManagerConfig(), gc.ControllerManagerOverlay, p.controllerPorts.controllerManagerHealth},
		{binGardenerScheduler, p.gardenerSchedulerConfig(), gc.SchedulerOverlay, p.controllerPorts.schedulerHealth},
	}
	procs := make([]*process, len(controllers))
	for i, c := range controllers {
		if _, err := p.writeGardenerControllerConfig(c.binary, c.config, c.overlay); err != nil {
			return err
		}
		if procs[i], err = p.run(c.binary, p.gardenerControllerArgs(c.binary)); err != nil {
			return err
		}
	}
	// Both start at once; waiting for one after the other costs only the slower one's time.
	var errs []error
	for i, c := range controllers {
		err := waitReady(ctx, procs[i], c.healthPort)
		for attempt := 1; err != nil && attempt <= discoveryRestarts && lostDiscovery(procs[i]); attempt++ {
			cs, cerr := p.Clientset()
			if cerr != nil {
				return cerr
			}
			if derr := p.waitGardenerDiscovery(ctx, cs); derr != nil {
				return derr
			}
			if procs[i], err = p.restart(procs[i]); err != nil {
				return err
			}
			err = waitReady(ctx, procs[i], c.healthPort)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("plane %s %s: %w", p.opts.Name, c.binary, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return p.waitGardenBootstrapped(ctx, procs[0])
}

// restart starts an exited Gardener controller again with the same configuration and log (appended
// to), in the same slot of the plane's processes, so that stop ends it in the same order as before.
func (p *Plane) restart(proc *process) (*process, error) {
	binary := filepath.Base(proc.cmd.Path)
	next, err := startProcess(proc.name, filepath.Join(p.binDir, binary), p.gardenerControllerArgs(binary), proc.logPath)
	if err != nil {
		return nil, fmt.Errorf("plane %s: %w", p.opts.Name, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return nil, errors.Join(p.errStopped(binary), next.stop(stopGrace))
	}
	p.procs[slices.Index(p.procs, proc)] = next
	return next, nil
}

// discoveryRestarts bounds how often a Gardener controller that exited at start-up because the
// Gardener API was missing from discovery is started again.
const discoveryRestarts = 3

// lostDiscovery reports whether proc exited because the server's discovery lacked a group version
// at start-up. Both controllers list every API once when they add their field indexes and exit
// when that list is incomplete, which happens on a loaded machine when the aggregator's
// availability check of gardener-apiserver times out for a moment; Gardener's deployments
// restart them, and so does the plane, after discovery lists the Gardener API again.
func lostDiscovery(proc *process) bool {
	return proc.exited() && strings.Contains(tailFile(proc.logPath, 15), "unable to retrieve the complete list of server APIs")
}

// waitGardenBootstrapped waits until gardener-controller-manager has bootstrapped the garden: its
// bootstrapper, which runs beside the controllers and which /readyz does not wait for
// (pkg/controllermanager/bootstrappers/bootstrap.go at Gardener v1.120.0), creates the Secret
// garden/observability-ingress-<hash> (gardener.cloud/role: global-monitoring), which every seed's
// namespace gets a copy of. A plane is up with it, so that the first plan of a test sees the garden
// as it stays.
func (p *Plane) waitGardenBootstrapped(ctx context.Context, proc *process) error {
	cs, err := p.Clientset()
	if err != nil {
		return err
	}
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if proc.exited() {
			return false, proc.failure()
		}
		secrets, err := cs.CoreV1().Secrets("garden").List(ctx, metav1.ListOptions{LabelSelector: "gardener.cloud/role=global-monitoring"})
		return err == nil && len(secrets.Items) > 0, nil
	})
	if err != nil {
		return fmt.Errorf("plane %s %s bootstrapping the garden: %w", p.opts.Name, binGardenerControllerManager, err)
	}
	return nil
}

// gardenerControllerArgs are the flags of gardener-controller-manager or gardener-scheduler: the
// configuration writeGardenerControllerConfig wrote.
func (p *Plane) gardenerControllerArgs(binary string) []string {
	return []string{"--config=" + filepath.Join(p.dir, binary+".yaml")}
}

// StopGardenerControllers ends gardener-controller-manager and gardener-scheduler (SIGTERM, SIGKILL
// after a grace period) and waits until both have exited; StartGardenerControllers brings them
// back. A test stops them while it plays their part at another time than now (plan --at): acting at
// the wall-clock time, they would undo what it writes (gardener-controller-manager marks a project
// younger than its minimum lifetime not stale at once) or carry out at once what the test wants to
// see waiting for them (a Shoot's maintain operation). Stopping controllers that are stopped is a
// no-op.
func (p *Plane) StopGardenerControllers() error {
	p.controllersMu.Lock()
	defer p.controllersMu.Unlock()
	procs, err := p.gardenerControllerProcesses()
	if err != nil {
		return err
	}
	var errs []error
	for _, proc := range procs {
		if err := proc.stop(stopGrace); err != nil {
			errs = append(errs, fmt.Errorf("plane %s: stop %s: %w", p.opts.Name, proc.name, err))
		}
	}
	return errors.Join(errs...)
}

// StartGardenerControllers starts gardener-controller-manager and gardener-scheduler again after
// StopGardenerControllers, with the same configuration, ports and logs, and returns once both are
// ready (their informers have synced, so they act on what the test writes next). On running
// controllers it only waits for readiness. Like at any start, they then reconcile every object
// they watch.
func (p *Plane) StartGardenerControllers(ctx context.Context) error {
	p.controllersMu.Lock()
	defer p.controllersMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	procs, err := p.gardenerControllerProcesses()
	if err != nil {
		return err
	}
	// The log is appended to: the bootstrap of this start is the one after those logged before.
	bootstrapped := bootstrapsLogged(procs[0].logPath)
	for i, proc := range procs {
		if !proc.exited() {
			continue
		}
		if procs[i], err = p.restart(proc); err != nil {
			return err
		}
	}
	var errs []error
	for i, port := range []int{p.controllerPorts.controllerManagerHealth, p.controllerPorts.schedulerHealth} {
		if err := waitReady(ctx, procs[i], port); err != nil {
			errs = append(errs, fmt.Errorf("plane %s %s: %w", p.opts.Name, procs[i].name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	// The bootstrapper regenerates garden/observability-ingress-<hash> on every start, and its
	// role label is missing for a moment in between: a plan then sees the seeds' copies of it
	// without their source. The restart is done once the bootstrapper says so.
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		if procs[0].exited() {
			return false, procs[0].failure()
		}
		return bootstrapsLogged(procs[0].logPath) > bootstrapped, nil
	})
	if err != nil {
		return fmt.Errorf("plane %s %s bootstrapping the garden again: %w", p.opts.Name, binGardenerControllerManager, err)
	}
	return nil
}

// bootstrapLogLine is what gardener-controller-manager logs once its bootstrapper is done
// (pkg/controllermanager/bootstrappers/bootstrap.go at Gardener v1.120.0).
const bootstrapLogLine = "Successfully bootstrapped Garden cluster"

// bootstrapsLogged counts the bootstraps logged in gardener-controller-manager's log so far.
func bootstrapsLogged(logPath string) int {
	data, err := os.ReadFile(logPath)
	if err != nil {
		return 0
	}
	return strings.Count(string(data), bootstrapLogLine)
}

// gardenerControllerProcesses returns the processes of gardener-controller-manager and
// gardener-scheduler, in that order.
func (p *Plane) gardenerControllerProcesses() ([]*process, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return nil, fmt.Errorf("plane %s: the plane has been stopped", p.opts.Name)
	}
	if p.opts.GardenerControllers == nil {
		return nil, fmt.Errorf("plane %s runs no gardener controllers (PlaneOptions.GardenerControllers)", p.opts.Name)
	}
	var procs []*process
	for _, binary := range []string{binGardenerControllerManager, binGardenerScheduler} {
		i := slices.IndexFunc(p.procs, func(proc *process) bool { return proc.name == p.opts.Name+"/"+binary })
		if i < 0 {
			return nil, fmt.Errorf("plane %s: %s was never started", p.opts.Name, binary)
		}
		procs = append(procs, p.procs[i])
	}
	return procs, nil
}

// waitReady waits for a controller's /readyz: its /healthz answers as soon as the server listens,
// /readyz once the informers of its controllers have synced, so that it acts on what a test
// writes next (cmd/gardener-controller-manager/app/app.go, pkg/healthz/informer.go).
func waitReady(ctx context.Context, proc *process, healthPort int) error {
	return waitHTTP(ctx, proc, "http://127.0.0.1:"+strconv.Itoa(healthPort)+"/readyz", nil, "")
}
