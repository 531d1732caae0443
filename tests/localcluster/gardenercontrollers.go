package localcluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

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
// Each overlay is a YAML document merged over the generated configuration as a JSON merge patch
// (RFC 7386): mappings merge key by key, any other value (lists included) replaces what was there,
// and null removes a key. For example
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
	if strings.TrimSpace(overlay) == "" {
		return base, nil
	}
	var patch map[string]any
	if err := yaml.Unmarshal([]byte(overlay), &patch); err != nil {
		return nil, fmt.Errorf("overlay is not a YAML mapping: %w", err)
	}
	merged, _ := mergePatch(base, patch).(map[string]any)
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
		configPath, err := p.writeGardenerControllerConfig(c.binary, c.config, c.overlay)
		if err != nil {
			return err
		}
		if procs[i], err = p.run(c.binary, []string{"--config=" + configPath}); err != nil {
			return err
		}
	}
	// Both start at once; waiting for one after the other costs only the slower one's time.
	var errs []error
	for i, c := range controllers {
		if err := waitReady(ctx, procs[i], c.healthPort); err != nil {
			errs = append(errs, fmt.Errorf("plane %s %s: %w", p.opts.Name, c.binary, err))
		}
	}
	return errors.Join(errs...)
}

// waitReady waits for a controller's /readyz: its /healthz answers as soon as the server listens,
// /readyz once the informers of its controllers have synced, so that it acts on what a test
// writes next (cmd/gardener-controller-manager/app/app.go, pkg/healthz/informer.go).
func waitReady(ctx context.Context, proc *process, healthPort int) error {
	return waitHTTP(ctx, proc, "http://127.0.0.1:"+strconv.Itoa(healthPort)+"/readyz", nil, "")
}
