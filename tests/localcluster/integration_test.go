package localcluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
)

// readyTimeout bounds every wait on the control plane; kwok acts within a second or two.
const readyTimeout = 90 * time.Second

func TestLocalClusterEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts control planes")
	}
	t.Parallel()
	ctx := context.Background()
	c, err := Launch(ctx, Options{Planes: Topology(1), Log: testLog{t}})
	require.NoError(t, err)
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = c.Stop()
		}
	})
	runtimePlane := c.Plane(RuntimePlane)
	require.NotNil(t, runtimePlane)

	t.Run("kubeconfig has a working context per plane", func(t *testing.T) {
		cfg, err := clientcmd.LoadFromFile(c.Kubeconfig())
		require.NoError(t, err)
		assert.Equal(t, RuntimePlane, cfg.CurrentContext)
		for _, name := range []string{RuntimePlane, VirtualGardenPlane, "seed-1"} {
			rest, err := clientcmd.NewNonInteractiveClientConfig(*cfg, name, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
			require.NoError(t, err, name)
			cs, err := kubernetes.NewForConfig(rest)
			require.NoError(t, err)
			v, err := cs.Discovery().ServerVersion()
			require.NoError(t, err, name)
			assert.Equal(t, "1", v.Major, name)
			// The version the binaries were built at (tests/tools/build.sh), not v0.0.0-master.
			assert.Regexp(t, `^v1\.[0-9]+\.[0-9]+$`, v.GitVersion, name)
			assert.Equal(t, "v"+v.Major+"."+v.Minor, v.GitVersion[:len("v"+v.Major+"."+v.Minor)], name)
			assert.Equal(t, c.Plane(name).Server(), rest.Host)
		}
	})

	t.Run("workload planes have Ready kwok nodes, the virtual garden none", func(t *testing.T) {
		for name, want := range map[string]int{RuntimePlane: 1, "seed-1": 1, VirtualGardenPlane: 0} {
			cs := clientset(t, c.Plane(name))
			nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
			require.NoError(t, err)
			assert.Len(t, nodes.Items, want, name)
			for _, n := range nodes.Items {
				assert.True(t, nodeReady(&n), n.Name)
			}
		}
	})

	t.Run("a Deployment with 2 replicas becomes available", func(t *testing.T) {
		cs := clientset(t, runtimePlane)
		labels := map[string]string{"app": "demo"}
		_, err := cs.AppsV1().Deployments("default").Create(ctx, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "demo"},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](2),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/demo:1"}}},
				},
			},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
		waitFor(t, "deployment demo 2/2 available", func(ctx context.Context) (bool, error) {
			d, err := cs.AppsV1().Deployments("default").Get(ctx, "demo", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return d.Status.ObservedGeneration == d.Generation && d.Status.AvailableReplicas == 2 && d.Status.UpdatedReplicas == 2, nil
		})
	})

	t.Run("an Etcd becomes ready for each generation", func(t *testing.T) {
		applySeedCRD(t, runtimePlane, "etcds.druid.gardener.cloud")
		dyn := dynamicClient(t, runtimePlane).Resource(schema.GroupVersionResource{Group: "druid.gardener.cloud", Version: "v1alpha1", Resource: "etcds"}).Namespace("default")
		_, err := dyn.Create(ctx, object("druid.gardener.cloud/v1alpha1", "Etcd", "etcd-main", map[string]any{
			"replicas":        int64(1),
			"labels":          map[string]any{"app": "etcd-main"},
			"selector":        map[string]any{"matchLabels": map[string]any{"app": "etcd-main"}},
			"etcd":            map[string]any{},
			"backup":          map[string]any{},
			"storageCapacity": "10Gi",
		}), metav1.CreateOptions{})
		require.NoError(t, err)
		waitForStatus(t, dyn, "etcd-main", 1, func(status map[string]any) bool { return status["ready"] == true })

		_, err = dyn.Patch(ctx, "etcd-main", types.MergePatchType, []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{})
		require.NoError(t, err)
		waitForStatus(t, dyn, "etcd-main", 2, func(status map[string]any) bool {
			return status["ready"] == true && status["readyReplicas"] == int64(3)
		})
	})

	t.Run("a shoot's token-requestor Secret gets a token", func(t *testing.T) {
		cs := kubernetes.NewForConfigOrDie(runtimePlane.RESTConfig())
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shoot-access-demo", Namespace: "default", Labels: map[string]string{
			"resources.gardener.cloud/purpose": "token-requestor", "resources.gardener.cloud/class": "shoot",
		}}}
		_, err := cs.CoreV1().Secrets("default").Create(ctx, secret, metav1.CreateOptions{})
		require.NoError(t, err)
		waitFor(t, "the token of shoot-access-demo", func(ctx context.Context) (bool, error) {
			s, err := cs.CoreV1().Secrets("default").Get(ctx, "shoot-access-demo", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return len(s.Data["token"]) > 0 && s.Annotations["serviceaccount.resources.gardener.cloud/token-renew-timestamp"] != "", nil
		})
		// Other Secrets stay as they are.
		plain, err := cs.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: "default"}}, metav1.CreateOptions{})
		require.NoError(t, err)
		time.Sleep(2 * time.Second)
		plain, err = cs.CoreV1().Secrets("default").Get(ctx, plain.Name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Empty(t, plain.Data)
	})

	t.Run("a ManagedResource becomes applied, healthy and not progressing", func(t *testing.T) {
		applySeedCRD(t, runtimePlane, "managedresources.resources.gardener.cloud")
		dyn := dynamicClient(t, runtimePlane).Resource(schema.GroupVersionResource{Group: "resources.gardener.cloud", Version: "v1alpha1", Resource: "managedresources"}).Namespace("default")
		_, err := dyn.Create(ctx, object("resources.gardener.cloud/v1alpha1", "ManagedResource", "demo", map[string]any{
			"class":      "seed",
			"secretRefs": []any{map[string]any{"name": "managedresource-demo"}},
		}), metav1.CreateOptions{})
		require.NoError(t, err)
		waitForStatus(t, dyn, "demo", 1, func(status map[string]any) bool {
			conditions := conditionStatuses(status)
			return conditions["ResourcesApplied"] == "True" && conditions["ResourcesHealthy"] == "True" && conditions["ResourcesProgressing"] == "False"
		})
	})

	t.Run("an extension resource succeeds and honours reconcile requests", func(t *testing.T) {
		applySeedCRD(t, runtimePlane, "infrastructures.extensions.gardener.cloud")
		dyn := dynamicClient(t, runtimePlane).Resource(schema.GroupVersionResource{Group: "extensions.gardener.cloud", Version: "v1alpha1", Resource: "infrastructures"}).Namespace("default")
		_, err := dyn.Create(ctx, object("extensions.gardener.cloud/v1alpha1", "Infrastructure", "infrastructure", map[string]any{
			"type":      "local",
			"region":    "local",
			"secretRef": map[string]any{"name": "cloudprovider", "namespace": "default"},
		}), metav1.CreateOptions{})
		require.NoError(t, err)
		succeeded := func(status map[string]any) bool {
			op, _ := status["lastOperation"].(map[string]any)
			return op["state"] == "Succeeded" && op["type"] == "Reconcile"
		}
		waitForStatus(t, dyn, "infrastructure", 1, succeeded)

		_, err = dyn.Patch(ctx, "infrastructure", types.MergePatchType, []byte(`{"metadata":{"annotations":{"gardener.cloud/operation":"reconcile"}}}`), metav1.PatchOptions{})
		require.NoError(t, err)
		waitFor(t, "reconcile annotation removed", func(ctx context.Context) (bool, error) {
			obj, err := dyn.Get(ctx, "infrastructure", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			_, requested := obj.GetAnnotations()["gardener.cloud/operation"]
			return !requested, nil
		})
	})

	t.Run("the virtual garden serves the real Gardener API", func(t *testing.T) {
		vg := c.Plane(VirtualGardenPlane)
		dyn := dynamicClient(t, vg)
		// Every group version is an APIService backed by gardener-apiserver, not a CRD.
		for _, gv := range GardenerAPIGroupVersions {
			s, err := dyn.Resource(apiServiceResource).Get(ctx, gv.Version+"."+gv.Group, metav1.GetOptions{})
			require.NoError(t, err, gv)
			assert.True(t, apiServiceAvailable(s), gv)
			namespace, _, _ := unstructured.NestedString(s.Object, "spec", "service", "namespace")
			name, _, _ := unstructured.NestedString(s.Object, "spec", "service", "name")
			assert.Equal(t, "garden/gardener-apiserver", namespace+"/"+name, gv)
		}
		crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
		_, err := crds.Get(ctx, "shoots.core.gardener.cloud", metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "no stand-in CRD for shoots: %v", err)
		_, err = crds.Get(ctx, "gardens.operator.gardener.cloud", metav1.GetOptions{})
		assert.NoError(t, err, "gardener-operator's kinds stay CRDs")

		projects := dyn.Resource(schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "projects"})
		_, err = projects.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Project",
			"metadata": map[string]any{"name": "dev"},
			"spec":     map[string]any{"namespace": "garden-dev"},
		}}, metav1.CreateOptions{})
		require.NoError(t, err)
		// Gardener's own validation, which no schema expresses: project names have at most 10
		// characters.
		_, err = projects.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Project",
			"metadata": map[string]any{"name": "far-too-long-a-name"},
		}}, metav1.CreateOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "metadata.name: Too long: may not be more than 10 bytes")
		// gardener-controller-manager's project controller creates its namespace and reports it
		// Ready.
		waitFor(t, "project dev Ready", func(ctx context.Context) (bool, error) {
			p, err := projects.Get(ctx, "dev", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			phase, _, _ := unstructured.NestedString(p.Object, "status", "phase")
			return phase == "Ready", nil
		})
	})

	t.Run("gardener-admission-controller's webhooks judge the virtual garden's writes", func(t *testing.T) {
		cs := clientset(t, c.Plane(VirtualGardenPlane))
		// A kubeconfig with an exec plugin is refused (validate-kubeconfig-secrets).
		_, err := cs.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "exec-kubeconfig"},
			StringData: map[string]string{"kubeconfig": "apiVersion: v1\nkind: Config\nusers: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh}}}]\n"},
		}, metav1.CreateOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "exec configurations are not supported")
		// A project's namespace goes only with its Project (validate-namespace-deletion): the
		// namespace gardener-controller-manager created for project dev in the subtest before.
		ns, err := cs.CoreV1().Namespaces().Get(ctx, "garden-dev", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, "dev", ns.Labels["project.gardener.cloud/name"])
		assert.Equal(t, "project", ns.Labels["gardener.cloud/role"])
		err = cs.CoreV1().Namespaces().Delete(ctx, "garden-dev", metav1.DeleteOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), `direct deletion of namespace "garden-dev" is not permitted`)
	})

	t.Run("the virtual garden's kube-controller-manager deletes namespaces and collects garbage", func(t *testing.T) {
		cs := clientset(t, c.Plane(VirtualGardenPlane))
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gc"}}, metav1.CreateOptions{})
		require.NoError(t, err)
		owner, err := cs.CoreV1().ConfigMaps("gc").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
		require.NoError(t, err)
		_, err = cs.CoreV1().ConfigMaps("gc").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dependent",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID, Controller: ptr.To(true)}},
		}}, metav1.CreateOptions{})
		require.NoError(t, err)
		// An object of the aggregated Gardener API, which only discovery tells the namespace
		// controller about.
		quotas := dynamicClient(t, c.Plane(VirtualGardenPlane)).Resource(schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "quotas"}).Namespace("gc")
		_, err = quotas.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Quota", "metadata": map[string]any{"name": "q"},
			"spec": map[string]any{"scope": map[string]any{"apiVersion": "v1", "kind": "Secret"}, "metrics": map[string]any{"cpu": "1"}},
		}}, metav1.CreateOptions{})
		require.NoError(t, err)

		require.NoError(t, cs.CoreV1().ConfigMaps("gc").Delete(ctx, "owner", metav1.DeleteOptions{}))
		waitFor(t, "the garbage collector deleting the owner's dependent", func(ctx context.Context) (bool, error) {
			_, err := cs.CoreV1().ConfigMaps("gc").Get(ctx, "dependent", metav1.GetOptions{})
			return gone(err)
		})
		require.NoError(t, cs.CoreV1().Namespaces().Delete(ctx, "gc", metav1.DeleteOptions{}))
		waitFor(t, "the namespace controller emptying and deleting namespace gc", func(ctx context.Context) (bool, error) {
			_, err := cs.CoreV1().Namespaces().Get(ctx, "gc", metav1.GetOptions{})
			return gone(err)
		})
	})

	t.Run("stop leaves no process and no data behind", func(t *testing.T) {
		pids := c.PIDs()
		// etcd and kube-apiserver on all three planes; kube-controller-manager, kube-scheduler and
		// kwok on the two workload planes; the stage kwok on all three, since every plane has
		// Services whose load balancers it gives addresses to; gardener-apiserver,
		// gardener-admission-controller, a virtual garden's kube-controller-manager,
		// gardener-controller-manager and gardener-scheduler on the virtual garden.
		assert.Len(t, pids, 3*2+2*3+3+5)
		require.NoError(t, c.Stop())
		stopped = true
		for _, pid := range pids {
			assert.False(t, ProcessAlive(pid), "pid %d still running", pid)
		}
		left, err := ProcessesUsing(c.Dir())
		require.NoError(t, err)
		assert.Empty(t, left)
		_, err = os.Stat(c.Dir())
		assert.True(t, os.IsNotExist(err), "temporary directory removed")
		assert.Empty(t, c.PIDs())
		assert.NoError(t, c.Stop(), "a second Stop is a no-op")
	})
}

// TestSignalsAndDeathLeaveNoProcess runs a cluster in a child test process and ends that process
// with SIGTERM, SIGINT and SIGKILL: the first two go through the helper's signal handler, the last
// through the parent-death signal of every binary.
func TestSignalsAndDeathLeaveNoProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts control planes")
	}
	if dir := os.Getenv("LOCALCLUSTER_HELPER_DIR"); dir != "" {
		runHelperProcess(dir)
		return
	}
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestSignalsAndDeathLeaveNoProcess$", "-test.v")
			cmd.Env = append(os.Environ(), "LOCALCLUSTER_HELPER_DIR="+dir)
			out, err := os.Create(filepath.Join(dir, "helper.log"))
			require.NoError(t, err)
			defer out.Close()
			cmd.Stdout, cmd.Stderr = out, out
			require.NoError(t, cmd.Start())
			waitFor(t, "helper cluster ready", func(context.Context) (bool, error) {
				_, err := os.Stat(filepath.Join(dir, "ready"))
				return err == nil, nil
			})
			before, err := ProcessesUsing(filepath.Join(dir, "cluster"))
			require.NoError(t, err)
			assert.GreaterOrEqual(t, len(before), 5, "etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok")

			require.NoError(t, cmd.Process.Signal(sig))
			err = cmd.Wait()
			var exitErr *exec.ExitError
			require.ErrorAs(t, err, &exitErr)
			if sig == syscall.SIGKILL {
				assert.Equal(t, "signal: killed", exitErr.Error())
			} else {
				assert.Equal(t, 128+int(sig), exitErr.ExitCode(), "helper exits with 128+signal after stopping")
			}
			waitFor(t, "no control plane process left", func(context.Context) (bool, error) {
				left, err := ProcessesUsing(filepath.Join(dir, "cluster"))
				return len(left) == 0, err
			})
		})
	}
}

// runHelperProcess is the child side of TestSignalsAndDeathLeaveNoProcess: it starts a cluster with
// one workload plane, restarts its API server (so that the signal handling and the parent-death
// signal are shown to cover a restarted process too), reports readiness through a file and waits
// to be signalled.
func runHelperProcess(dir string) {
	c, err := Launch(context.Background(), Options{Planes: []PlaneOptions{{Name: "runtime", Workloads: true}}, Dir: filepath.Join(dir, "cluster"), Log: os.Stdout})
	if err != nil {
		fmt.Println("helper:", err)
		os.Exit(3)
	}
	p := c.Plane(RuntimePlane)
	if err := p.StopAPIServer(); err != nil {
		fmt.Println("helper:", err)
		os.Exit(5)
	}
	if err := p.StartAPIServer(context.Background()); err != nil {
		fmt.Println("helper:", err)
		os.Exit(6)
	}
	if err := os.WriteFile(filepath.Join(dir, "ready"), nil, 0o600); err != nil {
		os.Exit(4)
	}
	select {} // the signal handler exits the process
}

func clientset(t *testing.T, p *Plane) *kubernetes.Clientset {
	t.Helper()
	cs, err := p.Clientset()
	require.NoError(t, err)
	return cs
}

func dynamicClient(t *testing.T, p *Plane) *dynamic.DynamicClient {
	t.Helper()
	d, err := dynamic.NewForConfig(p.RESTConfig())
	require.NoError(t, err)
	return d
}

func applySeedCRD(t *testing.T, p *Plane, name string) {
	t.Helper()
	doc, err := SeedCRD(name)
	require.NoError(t, err)
	require.NoError(t, ApplyCRDs(context.Background(), p.RESTConfig(), [][]byte{doc}))
}

func object(apiVersion, kind, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": name},
		"spec":     spec,
	}}
}

// gone judges the error of a Get for waitFor: done when the object is not found.
func gone(err error) (bool, error) {
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return false, err
}

func waitFor(t *testing.T, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	var lastErr error
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, readyTimeout, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		lastErr = err
		return ok, nil
	})
	require.NoError(t, err, "waiting for %s (last error: %v)", what, lastErr)
}

// waitForStatus waits until the object has the generation, reports it as observed and its status
// satisfies ready.
func waitForStatus(t *testing.T, ri dynamic.ResourceInterface, name string, generation int64, ready func(map[string]any) bool) {
	t.Helper()
	var last map[string]any
	waitFor(t, name+" status", func(ctx context.Context) (bool, error) {
		obj, err := ri.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		status, _, _ := unstructured.NestedMap(obj.Object, "status")
		last = status
		observed, _, _ := unstructured.NestedInt64(obj.Object, "status", "observedGeneration")
		return obj.GetGeneration() == generation && observed == generation && ready(status), nil
	})
	assert.NotNil(t, last)
}

func conditionStatuses(status map[string]any) map[string]string {
	out := map[string]string{}
	conditions, _ := status["conditions"].([]any)
	for _, c := range conditions {
		m, _ := c.(map[string]any)
		typ, _ := m["type"].(string)
		st, _ := m["status"].(string)
		out[typ] = st
	}
	return out
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// A port chosen free but taken by another process before etcd binds it (planes of parallel test
// packages start at the same time) costs a second choice, not a failed start. Not parallel: it
// replaces choosePorts, which the parallel tests use only after it has finished.
func TestPlaneChoosesPortsAgainWhenOneIsTaken(t *testing.T) {
	if testing.Short() {
		t.Skip("starts control planes")
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	calls := 0
	choosePorts = func(n int) ([]int, error) {
		calls++
		ports, err := freePorts(n)
		if calls == 1 && err == nil {
			ports[0] = taken.Addr().(*net.TCPAddr).Port // etcd's client port
		}
		return ports, err
	}
	defer func() { choosePorts = freePorts }()
	c, err := Launch(context.Background(), Options{Planes: []PlaneOptions{{Name: RuntimePlane}}, Log: testLog{t}})
	require.NoError(t, err)
	defer c.Stop()
	assert.Equal(t, 2, calls, "the ports were chosen again once")
	cs, err := kubernetes.NewForConfig(c.Plane(RuntimePlane).RESTConfig())
	require.NoError(t, err)
	_, err = cs.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{})
	assert.NoError(t, err, "the plane serves")
}
