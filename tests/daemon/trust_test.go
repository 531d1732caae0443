package daemon_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/declarative-gardener/gardener/components/landscapedaemon"
	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/daemon"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// scrape GETs a URL of the daemon's HTTPS metrics endpoint (self-signed) with a bearer token ("" for
// none); 0 when it does not answer.
func scrape(url, token string) (int, string) {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // #nosec G402 -- the daemon's self-signed test certificate
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, ""
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// buildDaemon builds the gardener binary the way the image does.
func buildDaemon(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gardener")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/declarative-gardener/gardener/cmd/gardener").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// trustLandscape keeps its state in the daemon's namespace and manages ServiceAccounts, each
// annotated with a secret from var.token (a variable that does not say sensitive: the value is
// sensitive because it comes from GARDENER_SENSITIVE_VAR_token, as the component's
// variables_secret hands it over). Like a landscape that deploys its daemon with the
// landscape_daemon component, it owns the daemon's status ConfigMap, which the daemon writes
// after every plan.
func trustLandscape(accounts ...string) string {
	var objs []string
	for _, n := range accounts {
		objs = append(objs, fmt.Sprintf(`{ apiVersion = "v1", kind = "ServiceAccount", metadata = { name = %q, annotations = { token = var.token } } }`, n))
	}
	return fmt.Sprintf(`landscape "daemon-trust" {
  state {
    backend   = "kubernetes"
    cluster   = cluster.runtime
    namespace = "daemon-trust"
  }
}

cluster "runtime" {
  context = "runtime"
}

variable "token" {
  type = string
}

component "manifests" "daemon_status" {
  cluster   = cluster.runtime
  namespace = "daemon-trust"
  objects   = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "gardener-daemon-status" } }]
}

component "manifests" "accounts" {
  cluster   = cluster.runtime
  namespace = "daemon-trust-apps"
  objects   = [%s]
}
`, strings.Join(objs, ", "))
}

// applyRendered creates the objects of the landscape_daemon component the daemon's rights and
// status consist of, as an apply of the landscape would (not the Deployment: the test runs the
// binary itself, with the ServiceAccount's token).
func applyRendered(t *testing.T, cfg *rest.Config, v landscapedaemon.Values) {
	t.Helper()
	objs, err := landscapedaemon.Objects(v)
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	resources := map[string]schema.GroupVersionResource{
		"ServiceAccount":     {Version: "v1", Resource: "serviceaccounts"},
		"ConfigMap":          {Version: "v1", Resource: "configmaps"},
		"Role":               {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"},
		"RoleBinding":        {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"},
		"ClusterRole":        {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
		"ClusterRoleBinding": {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"},
	}
	for _, o := range objs {
		gvr, ok := resources[o.Object.GetKind()]
		if !ok {
			continue // the Deployment, its Service and PodDisruptionBudget
		}
		var ri dynamic.ResourceInterface = dyn.Resource(gvr)
		if ns := o.Object.GetNamespace(); ns != "" {
			ri = dyn.Resource(gvr).Namespace(ns)
		}
		_, err := ri.Apply(context.Background(), o.Object.GetName(), o.Object, metav1.ApplyOptions{FieldManager: "trust-test", Force: true})
		require.NoError(t, err, "%s %s", o.Object.GetKind(), o.Object.GetName())
		t.Cleanup(func() {
			if o.Object.GetNamespace() == "" {
				_ = ri.Delete(context.Background(), o.Object.GetName(), metav1.DeleteOptions{})
			}
		})
	}
}

// tokenKubeconfig writes a kubeconfig whose context "runtime" authenticates with a
// ServiceAccount's token.
func tokenKubeconfig(t *testing.T, admin *rest.Config, cs kubernetes.Interface, namespace, name string) (path, token string) {
	t.Helper()
	tr, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(context.Background(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptrTo(int64(3600))}}, metav1.CreateOptions{})
	require.NoError(t, err)
	token = tr.Status.Token
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["runtime"] = &clientcmdapi.Cluster{Server: admin.Host, CertificateAuthorityData: admin.CAData}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["runtime"] = &clientcmdapi.Context{Cluster: "runtime", AuthInfo: name}
	cfg.CurrentContext = "runtime"
	path = filepath.Join(t.TempDir(), name+".kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path, token
}

func ptrTo[T any](v T) *T { return &v }

// The daemon's trust boundary on the real API server: the binary runs as the ServiceAccount of
// the landscape_daemon component with exactly the component's rights (limited by name) and plans,
// applies, keeps its state and status and elects itself leader with them; it cannot write its own
// approval, the old approval annotation approves nothing and is reported, an approver (who may not
// touch the status) approves; /metrics refuses unauthenticated and unauthorized clients; a value
// from GARDENER_SENSITIVE_VAR_ reaches the cluster and never the status.
func TestDaemonTrustBoundary(t *testing.T) {
	c := localcluster.Shared(t)
	admin := c.Plane(localcluster.RuntimePlane).RESTConfig()
	cs, err := kubernetes.NewForConfig(admin)
	require.NoError(t, err)
	ctx := context.Background()
	const ns, apps, secret = "daemon-trust", "daemon-trust-apps", "t0k3n-fr0m-a-s3cret"
	for _, n := range []string{ns, apps} {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
	files := map[string]string{"main.hcl": trustLandscape("a", "b")}
	v := landscapedaemon.Type.Defaults()
	v.Cluster.Name = "runtime"
	v.Namespace, v.Landscape, v.Image, v.Files = ns, "daemon-trust", "unused", files
	v.ClusterRules = []landscapedaemon.Rule{
		{APIGroups: []string{""}, Resources: []string{"serviceaccounts"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
		// Reading ConfigMaps to plan its status ConfigMap; writing it is the Role's, by name.
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}},
	}
	v.Approvers = []landscapedaemon.Subject{{Kind: "User", Name: "approver@example.com"}}
	v.MetricsReaders = []landscapedaemon.Subject{{Kind: "ServiceAccount", Name: "prometheus", Namespace: ns}}
	applyRendered(t, admin, v)
	for _, sa := range []string{"prometheus", "nobody"} {
		_, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
	kubeconfig, _ := tokenKubeconfig(t, admin, cs, ns, "gardener-daemon")
	_, prometheus := tokenKubeconfig(t, admin, cs, ns, "prometheus")
	_, nobody := tokenKubeconfig(t, admin, cs, ns, "nobody")

	dir := landscapetest.Dir(t, files)
	// Nothing but the ServiceAccount's kubeconfig: the landscape's cluster block reads it too.
	r := startReplica(t, buildDaemon(t), "trust", []string{"KUBECONFIG=" + kubeconfig, "GARDENER_SENSITIVE_VAR_token=" + secret},
		"--landscape", dir, "--policy", "approve-destructive",
		"--kubeconfig", kubeconfig, "--context", "runtime", "--status-namespace", ns,
		"--resync", "1h", "--poll", "200ms", "--timeout", "1m")

	status := daemon.StatusStore{Client: cs, Namespace: ns, Name: "gardener-daemon-status"}
	phase := func(want string) map[string]string {
		t.Helper()
		var data map[string]string
		require.Eventually(t, func() bool {
			read, _, err := status.Read(ctx)
			if err != nil {
				return false
			}
			data = read
			return data["phase"] == want
		}, 2*time.Minute, 200*time.Millisecond, "phase %s; the status: %v", want, data)
		return data
	}
	account := func(name string) (*corev1.ServiceAccount, error) {
		return cs.CoreV1().ServiceAccounts(apps).Get(ctx, name, metav1.GetOptions{})
	}

	// With nothing but the component's rights the daemon applies the landscape, keeps its state
	// and publishes its status.
	data := phase(daemon.PhaseApplied)
	a, err := account("a")
	require.NoError(t, err)
	assert.Equal(t, secret, a.Annotations["token"], "the value from the Secret is applied")
	for k, v := range data {
		assert.NotContains(t, v, secret, "the status's %s shows the sensitive value", k)
	}
	_, err = cs.CoreV1().Secrets(ns).Get(ctx, "gardener-state-daemon-trust", metav1.GetOptions{})
	assert.NoError(t, err, "the state is kept")

	// /metrics answers only whom the API server authenticates and authorizes.
	url := "https://" + r.metrics + "/metrics"
	require.Eventually(t, func() bool { code, _ := scrape(url, ""); return code != 0 }, 30*time.Second, 100*time.Millisecond, "the metrics endpoint answers")
	code, _ := scrape(url, "")
	assert.Equal(t, http.StatusUnauthorized, code, "no token")
	code, _ = scrape(url, "not-a-token")
	assert.Equal(t, http.StatusUnauthorized, code, "a token the API server does not know")
	code, _ = scrape(url, nobody)
	assert.Equal(t, http.StatusForbidden, code, "a ServiceAccount without GET /metrics")
	code, page := scrape(url, prometheus)
	assert.Equal(t, http.StatusOK, code, "a metrics reader")
	assert.Contains(t, page, "gardener_daemon_cycles_total")
	code, _ = get("http://" + r.metrics + "/metrics")
	assert.NotEqual(t, http.StatusOK, code, "not served without TLS")

	// The daemon cannot approve its own plans: it may not create or write the approval.
	self, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	selfClient, err := kubernetes.NewForConfig(self)
	require.NoError(t, err)
	_, err = selfClient.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: status.ApprovalName()},
		Data: map[string]string{daemon.ApprovalKey: "anything"}}, metav1.CreateOptions{})
	assert.True(t, apierrors.IsForbidden(err), "the daemon creates its approval: %v", err)
	_, err = selfClient.CoreV1().Secrets(ns).Update(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "gardener-daemon-token-elsewhere"}}, metav1.UpdateOptions{})
	assert.True(t, apierrors.IsForbidden(err), "the daemon overwrites a Secret that is not its state's head: %v", err)

	// Removing b deletes it: the daemon waits for approval.
	landscapetest.Write(t, dir, map[string]string{"main.hcl": trustLandscape("a")})
	data = phase(daemon.PhaseWaitingForApproval)
	hash := data["last-plan-hash"]
	assert.Contains(t, data["message"], "gardener approve "+hash)
	// The annotation that approved plans before is an edit of the status like any other: it is
	// ignored, and the status says so.
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, status.Name, metav1.GetOptions{})
	require.NoError(t, err)
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[daemon.ApproveAnnotation] = hash // as kubectl annotate would
	_, err = cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		read, _, err := status.Read(ctx)
		if err != nil {
			return false
		}
		data = read
		return strings.Contains(data["warnings"], "declarative-gardener.io/approve="+hash+" on ConfigMap daemon-trust/gardener-daemon-status is ignored")
	}, 30*time.Second, 200*time.Millisecond, "the status warns about the annotation: %v", data)
	assert.Equal(t, daemon.PhaseWaitingForApproval, data["phase"])
	_, err = account("b")
	assert.NoError(t, err, "the annotation approved nothing")

	// An approver approves; the approver may not change the status itself.
	impersonated := rest.CopyConfig(admin)
	impersonated.Impersonate = rest.ImpersonationConfig{UserName: "approver@example.com"}
	approverClient, err := kubernetes.NewForConfig(impersonated)
	require.NoError(t, err)
	cm, err = approverClient.CoreV1().ConfigMaps(ns).Get(ctx, status.Name, metav1.GetOptions{})
	require.NoError(t, err, "approvers read the status")
	cm.Data["phase"] = daemon.PhaseApplied
	_, err = approverClient.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
	assert.True(t, apierrors.IsForbidden(err), "an approver writes the status: %v", err)
	approver := daemon.StatusStore{Client: approverClient, Namespace: ns, Name: status.Name}
	require.NoError(t, approver.Approve(ctx, hash))
	phase(daemon.PhaseApplied)
	_, err = account("b")
	assert.True(t, apierrors.IsNotFound(err), "approved, b is deleted: %v", err)
	_, err = account("a")
	assert.NoError(t, err)
}

// shardedTrustLandscape keeps its state in namespace ns and manages a ServiceAccount in apps for
// the garden shard and one per stand-in seed (seedsByName: component.manifests.seed_<x> is shard
// seed.<x>).
func shardedTrustLandscape(ns, apps string, seeds ...string) string {
	account := func(component, name string) string {
		return fmt.Sprintf(`
component "manifests" %q {
  cluster   = cluster.runtime
  namespace = %q
  objects   = [{ apiVersion = "v1", kind = "ServiceAccount", metadata = { name = %q } }]
}
`, component, apps, name)
	}
	out := fmt.Sprintf(`landscape %[1]q {
  state {
    backend   = "kubernetes"
    cluster   = cluster.runtime
    namespace = %[1]q
  }
}

cluster "runtime" {
  context = "runtime"
}
`, ns) + account("garden", "garden")
	for _, s := range seeds {
		name := strings.TrimPrefix(s, "seed.")
		out += account("seed_"+name, "seed-"+name)
	}
	return out
}

// A sharded daemon with exactly the rights the landscape_daemon component grants with
// shard_by_seed and seed_shards: every shard elects its leader, keeps its own state under its own
// lock and publishes its own status, the replica announces itself, and the daemon still cannot
// create or write a shard's approval. It runs as daemon.Sharder in the test process (as
// `gardener daemon --shard-by-seed` does) so that its seeds can be stand-ins, with the
// ServiceAccount's token for every request.
func TestShardedDaemonTrustBoundary(t *testing.T) {
	c := localcluster.Shared(t)
	admin := c.Plane(localcluster.RuntimePlane).RESTConfig()
	cs, err := kubernetes.NewForConfig(admin)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const ns, apps = "daemon-trust-shards", "daemon-trust-shards-apps"
	seeds := []string{"seed.a", "seed.b"}
	for _, n := range []string{ns, apps} {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
	files := map[string]string{"main.hcl": shardedTrustLandscape(ns, apps, seeds...)}
	v := landscapedaemon.Type.Defaults()
	v.Cluster.Name = "runtime"
	v.Namespace, v.Landscape, v.Image, v.Files = ns, ns, "unused", files
	v.ShardBySeed, v.SeedShards = true, seeds
	v.ClusterRules = []landscapedaemon.Rule{
		{APIGroups: []string{""}, Resources: []string{"serviceaccounts"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
	}
	applyRendered(t, admin, v)
	kubeconfig, _ := tokenKubeconfig(t, admin, cs, ns, "gardener-daemon")
	t.Setenv("KUBECONFIG", kubeconfig) // the landscape's cluster block too
	self, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	selfClient, err := kubernetes.NewForConfig(self)
	require.NoError(t, err)

	dir := landscapetest.Dir(t, files)
	clusterOpts := cluster.Options{NoDiskCache: true}
	sharder := daemon.NewSharder(daemon.ShardOptions{
		Daemon: daemon.Options{
			Dir: dir, WorkDir: t.TempDir(), Policy: daemon.PolicyApproveDestructive,
			Resync: time.Hour, Poll: 200 * time.Millisecond, RetryLock: time.Second, Holder: "sharded-trust",
			Planner: func(dir string) planner.Options {
				return landscapetest.Options(dir, planner.LiveConnector(clusterOpts))
			},
			Cluster: clusterOpts,
			Apply:   apply.Options{Timeout: time.Minute},
			Status:  daemon.StatusStore{Client: selfClient, Namespace: ns, Name: "gardener-daemon-status"},
			Metrics: daemon.NewMetrics(prometheus.NewRegistry()),
			Log:     testr.New(t), WatchDrift: true, Assign: seedsByName,
		},
		Client: selfClient, Namespace: ns, LeaseName: "gardener-daemon", Identity: "sharded-trust",
		LeaseDuration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: 500 * time.Millisecond,
	})
	done := make(chan error, 1)
	go func() { done <- sharder.Start(ctx) }()

	phase := func(shard string) string {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, daemon.StatusName("gardener-daemon-status", shard), metav1.GetOptions{})
		if err != nil {
			return ""
		}
		return cm.Data["phase"]
	}
	for _, s := range append([]string{state.GardenShard}, seeds...) {
		require.Eventually(t, func() bool { return phase(s) == daemon.PhaseApplied || phase(s) == daemon.PhaseUpToDate }, 2*time.Minute, 200*time.Millisecond,
			"shard %q applies and publishes its status with the component's rights; phase %q", s, phase(s))
		_, err := cs.CoreV1().Secrets(ns).Get(ctx, state.ShardHeadName(ns, s), metav1.GetOptions{})
		assert.NoError(t, err, "shard %q keeps its state", s)
	}
	for _, name := range []string{"garden", "seed-a", "seed-b"} {
		_, err := cs.CoreV1().ServiceAccounts(apps).Get(ctx, name, metav1.GetOptions{})
		assert.NoError(t, err, "ServiceAccount %s is applied", name)
	}
	require.Eventually(t, func() bool {
		leases, err := cs.CoordinationV1().Leases(ns).List(ctx, metav1.ListOptions{LabelSelector: "daemon.declarative-gardener.io/replicas-of=gardener-daemon"})
		require.NoError(t, err)
		return len(leases.Items) == 1
	}, 10*time.Second, 100*time.Millisecond, "the replica announces itself")

	// No shard's approval is the daemon's to create or write.
	for _, s := range seeds {
		approval := daemon.StatusName("gardener-daemon-status", s) + daemon.ApprovalSuffix
		_, err = selfClient.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: approval},
			Data: map[string]string{daemon.ApprovalKey: "anything"}}, metav1.CreateOptions{})
		assert.True(t, apierrors.IsForbidden(err), "the daemon creates the approval of shard %s: %v", s, err)
	}
	cancel()
	require.NoError(t, <-done)
}
