package diff

import (
	"os"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// testdata/deployment-live.yaml is testdata/deployment-desired.yaml as the API server stored it
// after `kubectl apply --server-side --field-manager=gardener` (defaults, status and
// kube-controller-manager's managedFields included).

func loadFile(t testing.TB, name string) *unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return obj(t, string(data))
}

// benchmarkDiff diffs a realistic Deployment; the schema is loaded before the timer starts.
func benchmarkDiff(b *testing.B, edit func(u *unstructured.Unstructured), want Action) {
	d := embeddedDiffer()
	desired, live := loadFile(b, "deployment-desired.yaml"), loadFile(b, "deployment-live.yaml")
	if edit != nil {
		edit(desired)
	}
	r, err := d.Diff(desired, live, false)
	require.NoError(b, err)
	require.Equal(b, want, r.Action)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := d.Diff(desired, live, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDiffNoOp(b *testing.B) { benchmarkDiff(b, nil, NoOp) }

func BenchmarkDiffUpdate(b *testing.B) {
	benchmarkDiff(b, func(u *unstructured.Unstructured) {
		require.NoError(b, unstructured.SetNestedField(u.Object, int64(3), "spec", "replicas"))
		setContainerImage("nginx:1.27")(u) // no container "web": a no-op edit kept for symmetry
		labels := u.GetLabels()
		labels["landscape.gardener.cloud/revision"] = "2"
		u.SetLabels(labels)
	}, Update)
}

// BenchmarkDiffNoOpParallel measures throughput on all cores, as a plan diffs objects.
func BenchmarkDiffNoOpParallel(b *testing.B) {
	d := embeddedDiffer()
	desired, live := loadFile(b, "deployment-desired.yaml"), loadFile(b, "deployment-live.yaml")
	_, err := d.Diff(desired, live, false)
	require.NoError(b, err)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := d.Diff(desired, live, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkNoOpPlan5000 diffs 5,000 unchanged objects (a third each Deployments, Services and
// ConfigMaps, captured from a real API server) on all cores, as a no-op plan does. One op is
// the whole plan.
func BenchmarkNoOpPlan5000(b *testing.B) {
	d := embeddedDiffer()
	type pair struct{ desired, live *unstructured.Unstructured }
	var kinds []pair
	for _, k := range []string{"deployment", "service", "configmap"} {
		p := pair{loadFile(b, k+"-desired.yaml"), loadFile(b, k+"-live.yaml")}
		r, err := d.Diff(p.desired, p.live, false)
		require.NoError(b, err)
		require.Equal(b, NoOp, r.Action, k)
		kinds = append(kinds, p)
	}
	const n = 5000
	workers := runtime.GOMAXPROCS(0)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < n; i += workers {
					p := kinds[i%len(kinds)]
					if _, err := d.Diff(p.desired, p.live, false); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
}
