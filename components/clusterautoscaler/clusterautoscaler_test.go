package clusterautoscaler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

func minimal() Values {
	return values(Values{
		Cluster:     decode.Cluster{Name: "seed"},
		Namespace:   "shoot--dev--a",
		WorkerPools: []Pool{{Name: "cpu-worker", Minimum: 3, Maximum: 5, Zones: []string{"eu-west-1b", "eu-west-1c"}}},
	})
}

func cases() map[string]Values {
	custom := minimal()
	custom.WorkerPools = append(custom.WorkerPools, Pool{Name: "fixed", Minimum: 1, Maximum: 1})
	custom.MachineDeployments = []MachineDeployment{{Name: "shoot--dev--a-cpu-worker-z1", Minimum: 2, Maximum: 3}, {Name: "shoot--dev--a-cpu-worker-z2", Minimum: 1, Maximum: 2}}
	custom.Expander = "priority,least-waste"
	custom.ScaleDownUtilizationThreshold = 0.65
	custom.ScaleDownUnneededTime = "10m"
	custom.IgnoreTaints = []string{"example.com/gpu"}
	custom.Verbosity = int32(4)
	custom.Replicas = int32(0)
	custom.WorkerPools[0].Priority = ptr.To(int32(40))
	custom.StartupTaints = []string{"example.com/starting"}
	custom.StatusTaints = []string{"example.com/status"}
	custom.MaxNodesTotal = 254
	return map[string]Values{"default": minimal(), "customised": custom}
}

func TestObjectsGolden(t *testing.T) {
	for name, v := range cases() {
		t.Run(name, func(t *testing.T) {
			objs, err := Objects(v)
			require.NoError(t, err)
			golden.Assert(t, name, objs)
		})
	}
}

func TestNeeded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pools []Pool
		want  bool
	}{
		// Gardener's "Shoot Autoscaling" docs/usage/autoscaling/shoot_autoscaling.md, Gardener's "Worker"
		// docs/extensions/resources/worker.md: at least one pool with minimum < maximum.
		{"none", nil, false},
		{"fixed", []Pool{{Name: "a", Minimum: 2, Maximum: 2}}, false},
		{"one autoscaling", []Pool{{Name: "a", Minimum: 2, Maximum: 2}, {Name: "b", Minimum: 1, Maximum: 3}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Needed(tc.pools))
			v := minimal()
			v.WorkerPools = tc.pools
			objs, err := Objects(v)
			require.NoError(t, err)
			assert.Equal(t, tc.want, len(objs) > 0)
		})
	}
}

func TestMachineDeployments(t *testing.T) {
	// Gardener's "Implementing High Availability and Tolerating Zone Outages"
	// docs/usage/high-availability/shoot_high_availability_best_practices.md: 6/60 over three zones
	// gives 2/20 per MachineDeployment.
	mds := MachineDeployments("shoot--foo--bar", []Pool{{Name: "cpu-worker", Minimum: 6, Maximum: 60, Zones: []string{"a", "b", "c"}}})
	assert.Equal(t, []MachineDeployment{
		{"shoot--foo--bar-cpu-worker-z1", 2, 20},
		{"shoot--foo--bar-cpu-worker-z2", 2, 20},
		{"shoot--foo--bar-cpu-worker-z3", 2, 20},
	}, mds)
	// Remainders go to the first zones; the sums stay the pool's bounds.
	mds = MachineDeployments("shoot--foo--bar", []Pool{{Name: "p", Minimum: 3, Maximum: 5, Zones: []string{"a", "b"}}})
	assert.Equal(t, []MachineDeployment{{"shoot--foo--bar-p-z1", 2, 3}, {"shoot--foo--bar-p-z2", 1, 2}}, mds)
	// No zones count as one.
	assert.Equal(t, []MachineDeployment{{"ns-p-z1", 1, 4}}, MachineDeployments("ns", []Pool{{Name: "p", Minimum: 1, Maximum: 4}}))
}

// TestHibernation checks that a hibernated autoscaler has no replicas whatever Replicas says
// (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component Checklist"
// docs/development/component-checklist.md), and that Replicas counts otherwise.
func TestHibernation(t *testing.T) {
	for _, tc := range []struct {
		name     string
		replicas int32
		asleep   bool
		want     int32
	}{
		{"awake default", 0, false, 1},
		{"awake replicas 2", 2, false, 2},
		{"hibernated default", 0, true, 0},
		{"hibernated wins over replicas", 2, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := minimal()
			if tc.replicas != 0 {
				v.Replicas = tc.replicas
			}
			v.Hibernated = tc.asleep
			objs, err := Objects(v)
			require.NoError(t, err)
			var d appsv1.Deployment
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(rendertest.MustFind(t, objs, "Deployment", Name).Object, &d))
			require.NotNil(t, d.Spec.Replicas)
			assert.Equal(t, tc.want, *d.Spec.Replicas)
		})
	}
}

func TestErrors(t *testing.T) {
	for name, mutate := range map[string]func(*Values){
		"no namespace":  func(v *Values) { v.Namespace = "" },
		"max below min": func(v *Values) { v.WorkerPools[0].Maximum = 1 },
		"pool twice":    func(v *Values) { v.WorkerPools = append(v.WorkerPools, v.WorkerPools[0]) },
		"nameless pool": func(v *Values) { v.WorkerPools[0].Name = "" },
		"bad duration":  func(v *Values) { v.ScanInterval = "ten seconds" },
		"bad threshold": func(v *Values) { v.ScaleDownUtilizationThreshold = 1.5 },
		"bad expander":  func(v *Values) { v.Expander = "cheapest" },
		"bad md":        func(v *Values) { v.MachineDeployments = []MachineDeployment{{Name: "x", Minimum: 2, Maximum: 1}} },
		"negative":      func(v *Values) { v.Replicas = int32(-1) },
		"negative cap":  func(v *Values) { v.MaxNodesTotal = -1 },
		"unknown image": func(v *Values) { v.Images = map[string]string{"ca": "x"} },
	} {
		t.Run(name, func(t *testing.T) {
			v := minimal()
			mutate(&v)
			_, err := Objects(v)
			assert.Error(t, err)
		})
	}
}

func TestRender(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Config: rendertest.JSONConfigOf(t, Type, `{
		"cluster": {"name": "seed"}, "namespace": "shoot--dev--a", "scale_down_utilization_threshold": 0.5,
		"worker_pools": [{"name": "a", "minimum": 1, "maximum": 3, "zones": ["z"]}], "machine_deployments": []
	}`)})
	require.NoError(t, err)
	assert.Len(t, out.Objects, 9)
	_, err = Type.RenderConfig(render.Input{Config: rendertest.FromJSON(t, `{"cluster": {"name": "seed"}, "bogus": 1}`)})
	assert.Error(t, err)
}
