package localcluster

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

func TestOverlayConfigMergesLikeAJSONMergePatch(t *testing.T) {
	base := map[string]any{
		"logLevel":    "info",
		"server":      map[string]any{"healthProbes": map[string]any{"bindAddress": "127.0.0.1", "port": 1234}},
		"controllers": map[string]any{"seed": map[string]any{"syncPeriod": "10s"}, "event": map[string]any{"ttlNonShootEvents": "1h"}},
		"list":        []any{"a", "b"},
	}
	merged, err := overlayConfig(base, `
logLevel: debug
controllers:
  seed: {monitorPeriod: 10s}
  event: null
  shootHibernation: {triggerDeadlineDuration: 10m}
list: [c]
`)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"logLevel": "debug",
		"server":   base["server"],
		"controllers": map[string]any{
			"seed":             map[string]any{"syncPeriod": "10s", "monitorPeriod": "10s"},
			"shootHibernation": map[string]any{"triggerDeadlineDuration": "10m"},
		},
		"list": []any{"c"},
	}, merged)
	assert.Equal(t, "info", base["logLevel"], "the generated configuration is left as it was")
	assert.Contains(t, base["controllers"], "event")

	same, err := overlayConfig(base, "  \n")
	require.NoError(t, err)
	assert.Equal(t, base, same, "an empty overlay changes nothing")

	// Documents merge in order: a later one changes what an earlier one set.
	merged, err = overlayConfig(base, "logLevel: debug\ncontrollers: {seed: {monitorPeriod: 10s}}\n---\ncontrollers: {seed: {monitorPeriod: 1m}}\n")
	require.NoError(t, err)
	assert.Equal(t, "debug", merged["logLevel"])
	assert.Equal(t, map[string]any{"syncPeriod": "10s", "monitorPeriod": "1m"}, merged["controllers"].(map[string]any)["seed"])
}

func TestOverlayConfigRefusesWhatTheHelperOwns(t *testing.T) {
	for overlay, field := range map[string]string{
		"server: {metrics: {port: 8080}}":              "server",
		"server: null":                                 "server",
		"gardenClientConnection: {kubeconfig: /other}": "gardenClientConnection.kubeconfig",
		"clientConnection: {kubeconfig: /other}":       "clientConnection.kubeconfig",
		"apiVersion: controllermanager.config/v2":      "apiVersion",
		"kind: OtherConfiguration":                     "kind",
	} {
		for _, base := range []map[string]any{(&Plane{}).gardenerControllerManagerConfig(), (&Plane{}).gardenerSchedulerConfig()} {
			_, err := overlayConfig(base, overlay)
			assert.ErrorContains(t, err, "overlay may not change "+field, overlay)
		}
	}
	_, err := overlayConfig(map[string]any{}, "[a list]")
	assert.ErrorContains(t, err, "not a YAML mapping")

	// The client connection's other settings are the caller's, and restating an owned value is
	// no change.
	p := &Plane{kubeconfigPath: "/kubeconfig", controllerPorts: gardenerControllerPorts{controllerManagerHealth: 1, controllerManagerMetrics: 2}}
	merged, err := overlayConfig(p.gardenerControllerManagerConfig(), "gardenClientConnection: {qps: 100, kubeconfig: /kubeconfig}\nserver: {healthProbes: {port: 1}}")
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"kubeconfig": "/kubeconfig", "qps": float64(100)}, merged["gardenClientConnection"])
}

// The generated configurations are what docs and the reference promise: the plane's kubeconfig,
// no leader election, servers on loopback at the plane's ports, the scheduler's strategy under the
// key Gardener reads.
func TestGardenerControllerConfigs(t *testing.T) {
	p := &Plane{
		opts:           PlaneOptions{Name: VirtualGardenPlane, GardenerControllers: &GardenerControllers{ControllerManagerOverlay: "controllers: {seed: {monitorPeriod: 10m}}"}},
		dir:            t.TempDir(),
		kubeconfigPath: "/plane/kubeconfig",
		controllerPorts: gardenerControllerPorts{
			controllerManagerHealth: 1001, controllerManagerMetrics: 1002, schedulerHealth: 1003, schedulerMetrics: 1004,
		},
	}
	path, err := p.writeGardenerControllerConfig(binGardenerControllerManager, p.gardenerControllerManagerConfig(), p.opts.GardenerControllers.ControllerManagerOverlay)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(p.dir, "gardener-controller-manager.yaml"), path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.YAMLEq(t, `
apiVersion: controllermanager.config.gardener.cloud/v1alpha1
kind: ControllerManagerConfiguration
gardenClientConnection: {kubeconfig: /plane/kubeconfig}
leaderElection: {leaderElect: false}
logLevel: info
logFormat: text
server:
  healthProbes: {bindAddress: 127.0.0.1, port: 1001}
  metrics: {bindAddress: 127.0.0.1, port: 1002}
controllers:
  seed: {monitorPeriod: 10m}
`, string(data))

	scheduler, err := yaml.Marshal(p.gardenerSchedulerConfig())
	require.NoError(t, err)
	assert.YAMLEq(t, `
apiVersion: scheduler.config.gardener.cloud/v1alpha1
kind: SchedulerConfiguration
clientConnection: {kubeconfig: /plane/kubeconfig}
leaderElection: {leaderElect: false}
logLevel: info
logFormat: text
server:
  healthProbes: {bindAddress: 127.0.0.1, port: 1003}
  metrics: {bindAddress: 127.0.0.1, port: 1004}
schedulers: {shoot: {candidateDeterminationStrategy: SameRegion}}
`, string(scheduler))
}

func TestValidatePlanesRefusesGardenerControllersWithoutTheGardenerAPI(t *testing.T) {
	assert.ErrorContains(t, validatePlanes([]PlaneOptions{{Name: "runtime", Workloads: true, GardenerControllers: &GardenerControllers{}}}),
		`plane "runtime": gardener controllers need the Gardener API`)
	assert.NoError(t, validatePlanes([]PlaneOptions{{Name: VirtualGardenPlane, GardenerAPI: true, GardenerControllers: &GardenerControllers{}}}))
}

// kwok plays neither gardener-controller-manager nor gardenlet: no stage acts on a Gardener API
// object (a Project's phase is gardener-controller-manager's, which Topology runs; Seeds, Shoots and
// ControllerInstallations are reported by the engine as gardenlet does, engine/report).
func TestStagesPlayNoGardenerController(t *testing.T) {
	stages, err := gardenerStages()
	require.NoError(t, err)
	gardenerGroups := []string{"operator.gardener.cloud"} // gardener-operator's, CRDs here as in Gardener
	for _, gv := range GardenerAPIGroupVersions {
		gardenerGroups = append(gardenerGroups, gv.Group)
	}
	for _, s := range stages {
		assert.NotContains(t, gardenerGroups, s.gvk.Group, "a stage for %s", s.gvk)
		var doc map[string]any
		assert.NoError(t, yaml.UnmarshalStrict(s.yaml, &doc), string(s.yaml))
	}
}

func TestLostDiscoveryTellsADiscoveryRaceFromOtherExits(t *testing.T) {
	dir := t.TempDir()
	exited := func(log string) *process {
		path := filepath.Join(dir, "controller.log")
		require.NoError(t, os.WriteFile(path, []byte(log), 0o600))
		done := make(chan struct{})
		close(done)
		return &process{name: "controller", logPath: path, done: done}
	}
	raced := "INFO\tAdding field indexes to informers\nfailed adding indexes: failed to add indexer for spec.namespace to Project Informer: " +
		"unable to retrieve the complete list of server APIs: core.gardener.cloud/v1beta1: no matches for core.gardener.cloud/v1beta1, Resource=\n"
	assert.True(t, lostDiscovery(exited(raced)))
	assert.False(t, lostDiscovery(exited("error: invalid configuration: unknown field \"controllers.foo\"\n")), "a bad configuration is not retried")

	running := &process{name: "controller", logPath: filepath.Join(dir, "controller.log"), done: make(chan struct{})}
	assert.False(t, lostDiscovery(running), "a running controller has not lost anything")
}
