package plan_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// loggingTransport records the method, path and query of every request.
type loggingTransport struct {
	next http.RoundTripper
	mu   *sync.Mutex
	log  *[]string
}

func (l loggingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	*l.log = append(*l.log, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
	l.mu.Unlock()
	return l.next.RoundTrip(r)
}

// A kind the landscape writes in another version than the server prefers (HorizontalPodAutoscalers
// in autoscaling/v1, where autoscaling/v2 is preferred) is listed once, in the version written:
// the no-op plan reads none of its objects again one by one to diff them in that version.
func TestKindWrittenInAnotherVersionIsListedInIt(t *testing.T) {
	c := localcluster.Shared(t)
	cfg := c.Plane(localcluster.RuntimePlane).RESTConfig()
	dir := t.TempDir()
	const ns = "versions-hpa"
	docs := []string{fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}", ns)}
	for i := range 4 {
		docs = append(docs, fmt.Sprintf(`apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: hpa-%[1]d}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: app-%[1]d}
  minReplicas: 1
  maxReplicas: 2
  targetCPUUtilizationPercentage: 80`, i))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hpa.yaml"), []byte(strings.Join(docs, "\n---\n")+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(fmt.Sprintf(`landscape "versions" {}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "hpa" {
  cluster   = cluster.runtime
  namespace = %q
  files     = ["hpa.yaml"]
}
`, ns)), 0o644))

	first := runPlan(t, options(dir, liveConnector(cfg, cluster.Options{})))
	for _, d := range first.Result.Desired {
		gvr := d.Resource.GVR()
		gvr.Version = d.Object.GroupVersionKind().Version // as apply writes: in the version rendered
		_, err := first.Clusters[d.Cluster].(*cluster.Client).Dynamic().Resource(gvr).Namespace(d.Object.GetNamespace()).
			Apply(context.Background(), d.Object.GetName(), d.Object, metav1.ApplyOptions{FieldManager: inventory.FieldManager, Force: true})
		require.NoError(t, err)
	}

	var mu sync.Mutex
	var log []string
	out := runPlan(t, options(dir, liveConnector(cfg, cluster.Options{WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
		return loggingTransport{next: rt, mu: &mu, log: &log}
	}})))
	pl := out.Result.Plan
	assert.False(t, pl.HasChanges(), "a plan right after applying the landscape has no changes: %+v", pl.Summary)
	var hpaReads []string
	for _, r := range log {
		if strings.Contains(r, "/horizontalpodautoscalers") {
			hpaReads = append(hpaReads, r)
		}
	}
	require.Len(t, hpaReads, 1, "one read of the kind: %v", hpaReads)
	assert.True(t, strings.HasPrefix(hpaReads[0], "GET /apis/autoscaling/v1/") && strings.Contains(hpaReads[0], "horizontalpodautoscalers?labelSelector="),
		"a LIST in the version written: %s", hpaReads[0])
	hpa := schema.GroupKind{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}
	assert.Equal(t, "v1", out.Result.Observed["runtime"].Resources[hpa].Version, "the kind is observed in the version listed")
}
