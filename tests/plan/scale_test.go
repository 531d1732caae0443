package plan_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// scaleKinds are the eight kinds of the scale landscape, each rendered by one template.
var scaleKinds = []string{
	`apiVersion: v1
kind: ConfigMap
metadata: {name: cm-%[1]d}
data: {index: "%[1]d", mode: fast}`,
	`apiVersion: v1
kind: Secret
metadata: {name: secret-%[1]d}
stringData: {token: "token-%[1]d"}`,
	`apiVersion: v1
kind: Service
metadata: {name: svc-%[1]d}
spec:
  selector: {app: app-%[1]d}
  ports: [{name: http, port: 80, targetPort: 8080}]`,
	`apiVersion: v1
kind: ServiceAccount
metadata: {name: sa-%[1]d}`,
	`apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: role-%[1]d}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [get, list]}]`,
	`apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb-%[1]d}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: role-%[1]d}
subjects: [{kind: ServiceAccount, name: sa-%[1]d}]`,
	`apiVersion: apps/v1
kind: Deployment
metadata: {name: app-%[1]d}
spec:
  replicas: 1
  selector: {matchLabels: {app: app-%[1]d}}
  template:
    metadata: {labels: {app: app-%[1]d}}
    spec:
      serviceAccountName: sa-%[1]d
      containers: [{name: app, image: "registry.local/app:1.0.0", resources: {requests: {cpu: 10m, memory: 16Mi}}}]`,
	`apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb-%[1]d}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: app-%[1]d}}`,
}

// scaleLandscape writes a landscape of objects objects (a multiple of eight kinds) spread over
// namespaces namespaces, one manifests component per namespace, and returns its directory.
func scaleLandscape(t testing.TB, name string, objects, namespaces int) string {
	t.Helper()
	dir := t.TempDir()
	var hcl strings.Builder
	fmt.Fprintf(&hcl, "landscape %q {}\n\ncluster \"runtime\" {\n  context = \"runtime\"\n}\n", name)
	perNamespace := objects / namespaces
	for n := 0; n < namespaces; n++ {
		ns := fmt.Sprintf("%s-%d", name, n)
		var docs []string
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}", ns))
		for i := 0; i < perNamespace; i++ {
			docs = append(docs, fmt.Sprintf(scaleKinds[i%len(scaleKinds)], i/len(scaleKinds)))
		}
		file := fmt.Sprintf("ns-%d.yaml", n)
		require.NoError(t, os.WriteFile(filepath.Join(dir, file), []byte(strings.Join(docs, "\n---\n")+"\n"), 0o644))
		fmt.Fprintf(&hcl, "\ncomponent \"manifests\" \"ns_%d\" {\n  cluster   = cluster.runtime\n  namespace = %q\n  files     = [%q]\n}\n", n, ns, file)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(hcl.String()), 0o644))
	return dir
}

// countingTransport counts the HTTP requests a client makes.
type countingTransport struct {
	next  http.RoundTripper
	count *atomic.Int64
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.count.Add(1)
	if os.Getenv("DEBUG_REQUESTS") != "" {
		fmt.Println("REQ", r.Method, r.URL.Path, r.URL.RawQuery)
	}
	return c.next.RoundTrip(r)
}

// noOpPlanRequests applies a scale landscape and counts the requests of a no-op plan of it.
func noOpPlanRequests(t *testing.T, cfgName string, objects int) (int64, int) {
	c := localcluster.Shared(t)
	cfg := c.Plane(localcluster.RuntimePlane).RESTConfig()
	dir := scaleLandscape(t, cfgName, objects, 4)
	applyDesired(t, runPlan(t, options(dir, liveConnector(cfg, cluster.Options{}))))

	var count atomic.Int64
	opts := options(dir, liveConnector(cfg, cluster.Options{WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
		return countingTransport{next: rt, count: &count}
	}}))
	opts.Differs = planner.LocalDiffers(t.TempDir()) // a cold OpenAPI cache: documents are fetched
	out := runPlan(t, opts)
	pl := out.Result.Plan
	assert.False(t, pl.HasChanges(), "a plan right after applying the landscape has no changes: %+v", pl.Summary)
	n := 0
	for _, comp := range pl.Components {
		n += len(comp.Objects)
	}
	return count.Load(), n
}

// TestNoOpPlanRequestsScaleWithKinds proves the plan's cost model: a no-op plan reads discovery,
// the OpenAPI documents of the group versions it diffs and one LIST per GroupKind, whatever the
// number of objects.
func TestNoOpPlanRequestsScaleWithKinds(t *testing.T) {
	small, objects := noOpPlanRequests(t, "requests-small", 512)
	require.GreaterOrEqual(t, objects, 500)
	large, objectsLarge := noOpPlanRequests(t, "requests-large", 1024)
	require.GreaterOrEqual(t, objectsLarge, 1000)
	t.Logf("no-op plan requests: %d for %d objects, %d for %d objects", small, objects, large, objectsLarge)

	// 9 GroupKinds (the eight kinds and Namespace) in 4 group versions (v1, apps/v1,
	// rbac.authorization.k8s.io/v1, policy/v1): discovery (2), one LIST per kind (9), the OpenAPI
	// index (1) and at most one document per group version (4; none when the index's hashes
	// match the documents embedded for this Kubernetes version, which is the case here).
	const kinds, groupVersions = 9, 4
	assert.LessOrEqual(t, small, int64(2+kinds+1+groupVersions), "requests of a no-op plan")
	assert.Equal(t, small, large, "doubling the objects must not add requests")
}
