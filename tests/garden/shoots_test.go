package garden

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/internal/golden"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

var (
	etcdsGVR      = schema.GroupVersionResource{Group: "druid.gardener.cloud", Version: "v1alpha1", Resource: "etcds"}
	shootsGVR     = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}
	seedsGVR      = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "seeds"}
	workerGVR     = schema.GroupVersionResource{Group: "extensions.gardener.cloud", Version: "v1alpha1", Resource: "workers"}
	dnsRecordsGVR = schema.GroupVersionResource{Group: "extensions.gardener.cloud", Version: "v1alpha1", Resource: "dnsrecords"}
)

// order asserts that part a of shoot became ready before part b did.
func order(t *testing.T, ready []string, shoot, a, b string) {
	t.Helper()
	ia, ib := slices.Index(ready, "shoot."+shoot+"."+a), slices.Index(ready, "shoot."+shoot+"."+b)
	require.GreaterOrEqual(t, ia, 0, "shoot.%s.%s is in %v", shoot, a, ready)
	require.GreaterOrEqual(t, ib, 0, "shoot.%s.%s is in %v", shoot, b, ready)
	assert.Less(t, ia, ib, "shoot.%s: %s before %s", shoot, a, b)
}

// checkShoots checks the documented facts of the landscape's three shoots after the first
// apply: namespaces, labels and annotations (pkg/gardenlet/operation/botanist/namespaces.go), replicas by failure tolerance,
// priority classes, the workerless shoot's reduced control plane, and the reconcile order of
// the shoot flow (pkg/gardenlet/controller/shoot/shoot/reconciler_reconcile.go).
func checkShoots(t *testing.T, c *localcluster.Cluster, ready []string) {
	ctx := context.Background()
	cs, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	rdyn, vdyn := dyn(t, c.Plane(localcluster.RuntimePlane)), dyn(t, c.Plane(localcluster.VirtualGardenPlane))

	for shoot, tolerance := range map[string]string{"dev": "node", "qa": "", "ops": ""} {
		ns, err := cs.CoreV1().Namespaces().Get(ctx, "shoot--local--"+shoot, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, "shoot", ns.Labels["gardener.cloud/role"], "Gardener's docs/extensions/provider-local.md")
		assert.Equal(t, "local", ns.Labels["shoot.gardener.cloud/provider"], "Gardener's docs/extensions/controlplane-webhooks.md")
		assert.Equal(t, "local", ns.Labels["seed.gardener.cloud/provider"], "Gardener's docs/extensions/controlplane-webhooks.md")
		assert.Equal(t, "true", ns.Labels["high-availability-config.resources.gardener.cloud/consider"], "Gardener's docs/development/high-availability-of-components.md")
		assert.Equal(t, tolerance, ns.Annotations["high-availability-config.resources.gardener.cloud/failure-tolerance-type"])
		assert.Equal(t, "0", ns.Annotations["high-availability-config.resources.gardener.cloud/zones"], "one zone of the single-zone seed")

		_, err = vdyn.Resource(shootsGVR).Namespace("garden-local").Get(ctx, shoot, metav1.GetOptions{})
		require.NoError(t, err, "the Shoot %s is registered", shoot)

		// The reconcile order (Gardener's "Secrets Management" docs/development/secrets_management.md,
		// "ControllerRegistration" docs/extensions/registration.md, "Worker"
		// docs/extensions/resources/worker.md).
		order(t, ready, shoot, "namespace", "cluster")
		order(t, ready, shoot, "etcd_main", "kube_apiserver")
		order(t, ready, shoot, "etcd_events", "kube_apiserver")
		order(t, ready, shoot, "kube_apiserver", "kube_controller_manager")
		order(t, ready, shoot, "kube_apiserver", "gardener_resource_manager")
		order(t, ready, shoot, "shoot", "namespace") // gardenlet reconciles an existing Shoot into its control plane
		assert.Less(t, slices.Index(ready, "seed.local"), slices.Index(ready, "shoot."+shoot+".namespace"), "the seed is up before its shoots")
	}
	for _, shoot := range []string{"dev", "qa"} {
		order(t, ready, shoot, "infrastructure", "kube_apiserver")
		order(t, ready, shoot, "infrastructure", "worker")
		order(t, ready, shoot, "operating_system_configs", "worker")
		order(t, ready, shoot, "machine_controller_manager", "worker")
		order(t, ready, shoot, "gardener_resource_manager", "system_components")
	}
	order(t, ready, "dev", "worker", "cluster_autoscaler")

	// Replicas by failure tolerance (Gardener's docs/development/high-availability-of-components.md,
	// "Shoot High Availability" docs/usage/high-availability/shoot_high_availability.md) and priority
	// classes (Gardener's "Priority Classes" docs/development/priority-classes.md).
	for shoot, want := range map[string]int64{"dev": 3, "qa": 1, "ops": 1} {
		for _, role := range []string{"main", "events"} {
			e, err := rdyn.Resource(etcdsGVR).Namespace("shoot--local--"+shoot).Get(ctx, "etcd-"+role, metav1.GetOptions{})
			require.NoError(t, err)
			replicas, _, _ := unstructured.NestedInt64(e.Object, "spec", "replicas")
			assert.Equal(t, want, replicas, "shoot %s etcd-%s", shoot, role)
			pc, _, _ := unstructured.NestedString(e.Object, "spec", "priorityClassName")
			assert.Equal(t, "gardener-system-500", pc)
		}
	}
	for name, want := range map[string]struct {
		class    string
		replicas int32
	}{
		"kube-apiserver": {"gardener-system-500", -1}, "gardener-resource-manager": {"gardener-system-400", 2},
		"kube-controller-manager": {"gardener-system-300", 2}, "kube-scheduler": {"gardener-system-300", 2},
		"machine-controller-manager": {"gardener-system-300", -1}, "cluster-autoscaler": {"gardener-system-300", -1},
	} {
		d, err := cs.AppsV1().Deployments("shoot--local--dev").Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err, name)
		assert.Equal(t, want.class, d.Spec.Template.Spec.PriorityClassName, name)
		if want.replicas >= 0 {
			assert.Equal(t, want.replicas, *d.Spec.Replicas, "%s of the HA shoot", name)
		}
		assert.Equal(t, d.Status.Replicas, d.Status.AvailableReplicas, "%s is available", name)
	}
	kcm, err := cs.AppsV1().Deployments("shoot--local--qa").Get(ctx, "kube-controller-manager", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(1), *kcm.Spec.Replicas, "a controller of a shoot without HA runs once")
	// qa's pool does not autoscale: no cluster-autoscaler (Gardener's "Shoot Autoscaling"
	// docs/usage/autoscaling/shoot_autoscaling.md).
	_, err = cs.AppsV1().Deployments("shoot--local--qa").Get(ctx, "cluster-autoscaler", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "qa has no cluster-autoscaler: %v", err)
	// ops is workerless (Gardener's "Workerless Shoots" docs/usage/shoot/shoot_workerless.md).
	for _, name := range []string{"machine-controller-manager", "kube-scheduler", "vpn-seed-server"} {
		_, err = cs.AppsV1().Deployments("shoot--local--ops").Get(ctx, name, metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "workerless ops has no %s: %v", name, err)
	}
	workers, err := rdyn.Resource(workerGVR).Namespace("shoot--local--ops").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, workers.Items)
	// The infrastructure credentials, copied from the Secret of the shoot's binding (Gardener's
	// "Infrastructure" docs/extensions/resources/infrastructure.md).
	for _, shoot := range []string{"dev", "qa"} {
		_, err := cs.CoreV1().Secrets("shoot--local--"+shoot).Get(ctx, "cloudprovider", metav1.GetOptions{})
		assert.NoError(t, err, "shoot %s has its cloudprovider Secret", shoot)
	}
	// The API server is exposed through the seed's ingress gateway by SNI (Gardener's "Getting Started
	// Locally" docs/deployment/getting_started_locally.md).
	gw, err := rdyn.Resource(schema.GroupVersionResource{Group: "networking.istio.io", Version: "v1beta1", Resource: "gateways"}).Namespace("shoot--local--dev").Get(ctx, "kube-apiserver", metav1.GetOptions{})
	require.NoError(t, err)
	selector, _, _ := unstructured.NestedStringMap(gw.Object, "spec", "selector")
	assert.Equal(t, "seed-ingress", selector["gardener.cloud/role"])
	// vpn-shoot's client certificate travels into the shoot inside its ManagedResource, with the
	// generated key material filled in (Gardener's "Reversed VPN Tunnel"
	// docs/development/reversed-vpn-tunnel.md).
	// The Secret is content-named (managedresource-shoot-core-vpn-shoot-<checksum>): the
	// ManagedResource names it.
	mr, err := rdyn.Resource(schema.GroupVersionResource{Group: "resources.gardener.cloud", Version: "v1alpha1", Resource: "managedresources"}).
		Namespace("shoot--local--dev").Get(ctx, "shoot-core-vpn-shoot", metav1.GetOptions{})
	require.NoError(t, err)
	refs, _, _ := unstructured.NestedSlice(mr.Object, "spec", "secretRefs")
	require.Len(t, refs, 1)
	contents, err := cs.CoreV1().Secrets("shoot--local--dev").Get(ctx, refs[0].(map[string]any)["name"].(string), metav1.GetOptions{})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(contents.Name, "managedresource-shoot-core-vpn-shoot-"), contents.Name)
	packed := string(contents.Data["secret__kube-system__vpn-shoot-client.yaml"])
	assert.Contains(t, packed, "tls.key: ", "the packed Secret carries the client key")
	assert.NotContains(t, packed, "${generated:", "the engine filled in the generated material")
	checkDNSRecords(t, c, ready)
}

// checkDNSRecords checks that the DNSRecords point at the load balancers kwok gave the seed's
// gateways, addresses the engine read during the apply: the shoots' internal records at the
// Istio ingress gateway (Gardener's "Control Plane Endpoints And Ports"
// docs/usage/advanced/control-plane-endpoints-and-ports.md, "DNS Record"
// docs/extensions/resources/dnsrecord.md), their external records at the internal name (Gardener's
// docs/extensions/resources/dnsrecord.md), and the seed's wildcard record at nginx-ingress
// (Gardener's docs/extensions/resources/dnsrecord.md).
func checkDNSRecords(t *testing.T, c *localcluster.Cluster, ready []string) {
	ctx := context.Background()
	cs, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	rdyn := dyn(t, c.Plane(localcluster.RuntimePlane))
	address := func(namespace, name string) string {
		svc, err := cs.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		require.NotEmpty(t, svc.Status.LoadBalancer.Ingress, "Service %s/%s has a load balancer address", namespace, name)
		return svc.Status.LoadBalancer.Ingress[0].IP
	}
	record := func(namespace, name string) map[string]any {
		r, err := rdyn.Resource(dnsRecordsGVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err, "DNSRecord %s/%s", namespace, name)
		spec, _, _ := unstructured.NestedMap(r.Object, "spec")
		return spec
	}
	gateway := address("istio-ingress", "istio-ingressgateway")
	for _, shoot := range []string{"dev", "qa", "ops"} {
		ns := "shoot--local--" + shoot
		internal := record(ns, shoot+"-internal")
		assert.Equal(t, "api."+shoot+".local.internal.local.gardener.cloud", internal["name"])
		assert.Equal(t, []any{gateway}, internal["values"], "shoot %s's internal record points at the gateway's load balancer", shoot)
		assert.Equal(t, "A", internal["recordType"])
		external := record(ns, shoot+"-external")
		assert.Equal(t, "api."+shoot+".local.local.gardener.cloud", external["name"], "the default domain")
		assert.Equal(t, []any{internal["name"]}, external["values"])
		assert.Equal(t, "CNAME", external["recordType"])
		for _, which := range []string{"internal", "external"} {
			_, err := cs.CoreV1().Secrets(ns).Get(ctx, "dnsrecord-"+shoot+"-"+which, metav1.GetOptions{})
			assert.NoError(t, err, "the %s record's credentials are copied (Gardener's docs/extensions/resources/dnsrecord.md)", which)
		}
		// gardenlet deploys the records after the kube-apiserver Service, neither after the
		// kube-apiserver nor after the other (docs/fidelity/shoot-flow-order.md).
		order(t, ready, shoot, "kube_apiserver_service", "dns_record_internal")
		order(t, ready, shoot, "kube_apiserver_service", "dns_record_external")
		order(t, ready, shoot, "dns_internal_secret", "dns_record_internal")
		order(t, ready, shoot, "dns_external_secret", "dns_record_external")
	}
	ingress := record("garden", "seed-ingress")
	assert.Equal(t, "*.ingress.local.seed.local.gardener.cloud", ingress["name"])
	assert.Equal(t, []any{address("garden", "nginx-ingress-controller")}, ingress["values"])
	assert.Less(t, slices.Index(ready, "seed.local.seed"), slices.Index(ready, "seed.local.ingress_dns_record"), "the record's extension comes with the Seed")
}

// editLandscape replaces old by new in a file of the landscape.
func editLandscape(t *testing.T, dir, file, old, new string) {
	t.Helper()
	path := filepath.Join(dir, file)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), old)
	require.NoError(t, os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644))
}

// planGolden plans dir against the live clusters with the landscape's state, as `gardener
// apply` does before asking, and compares the plan text with a golden file.
func planGolden(t *testing.T, dir, name string) {
	t.Helper()
	// The plan is made at noon UTC of the test's day, not at the hour the test happens to run:
	// maintenance notices name the next window (qa's at 04:00 UTC, dev's at 22:00 UTC) and inside
	// a window versions move, so a plan at the current hour would match the golden only at some
	// hours of the day.
	now := time.Now().UTC().Truncate(24 * time.Hour).Add(12 * time.Hour)
	opts := landscapetest.Options(dir, planner.LiveConnector(cluster.Options{NoDiskCache: true}))
	opts.Now = now
	res, diags, err := apply.Landscape(context.Background(), apply.LandscapeOptions{
		Planner: opts,
		Lock:    state.LockInfo{Holder: "garden-test", Operation: "plan"},
		Confirm: func(*plan.Plan) bool { return false }, // plan only
	})
	landscapetest.RequireNoDiags(t, diags, res.Outcome)
	require.ErrorIs(t, err, apply.ErrCancelled, "the plan has changes")
	var text bytes.Buffer
	require.NoError(t, views.Plan(&text, res.Outcome.Result.Plan, views.PlanOptions{Detail: views.DetailFull}))
	// Notices name upcoming maintenance windows by their date.
	golden.AssertBytes(t, name, maskDays(stableCertificates(text.Bytes()), now))
}

// applyAllowing applies dir, allowing the protected objects of allow to be deleted, and returns
// the components in the order they finished.
func applyAllowing(t *testing.T, dir string, allow ...string) []string {
	t.Helper()
	var mu sync.Mutex
	var done []string
	res, diags, err := apply.Landscape(context.Background(), apply.LandscapeOptions{
		Planner: landscapetest.Options(dir, planner.LiveConnector(cluster.Options{NoDiskCache: true})),
		Lock:    state.LockInfo{Holder: "garden-test", Operation: "apply"},
		Apply: apply.Options{Timeout: 2 * time.Minute, AllowDestroy: allow, Events: func(e apply.Event) {
			if e.Status == "applied" {
				mu.Lock()
				done = append(done, e.Address)
				mu.Unlock()
			}
		}},
	})
	landscapetest.RequireNoDiags(t, diags, res.Outcome)
	require.NoError(t, err)
	if res.Result != nil {
		require.NoError(t, res.Result.Err())
	}
	return done
}

// hibernateAndDelete hibernates qa and wakes it up again, makes the workerless ops highly
// available and then deletes it, each time checking the golden plan, the order and the result.
func hibernateAndDelete(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	cs, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	rdyn, vdyn := dyn(t, c.Plane(localcluster.RuntimePlane)), dyn(t, c.Plane(localcluster.VirtualGardenPlane))
	etcdReplicasIn := func(ns string) map[string]int64 {
		list, err := rdyn.Resource(etcdsGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		out := map[string]int64{}
		for _, e := range list.Items {
			out[e.GetName()], _, _ = unstructured.NestedInt64(e.Object, "spec", "replicas")
		}
		return out
	}

	// Hibernation: the control plane scales to zero in the reverse order (Gardener's
	// docs/extensions/registration.md, docs/extensions/resources/worker.md): the Worker first,
	// machine-controller-manager and the controllers, then the kube-apiserver, the etcds last; their
	// volumes stay (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md).
	editLandscape(t, dir, "variables.hcl", "default     = false", "default     = true")
	planGolden(t, dir, "plan-hibernate-qa.txt")
	done := applyAllowing(t, dir)
	order(t, done, "qa", "worker", "machine_controller_manager")
	order(t, done, "qa", "machine_controller_manager", "kube_apiserver")
	order(t, done, "qa", "kube_controller_manager", "kube_apiserver")
	order(t, done, "qa", "kube_apiserver", "etcd_main")
	order(t, done, "qa", "kube_apiserver", "etcd_events")
	assert.Equal(t, map[string]int64{"etcd-main": 0, "etcd-events": 0}, etcdReplicasIn("shoot--local--qa"))
	for _, name := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "gardener-resource-manager", "machine-controller-manager"} {
		d, err := cs.AppsV1().Deployments("shoot--local--qa").Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, int32(0), *d.Spec.Replicas, "%s of the hibernated shoot", name)
	}
	// The API server's autoscaler stays and leaves it at zero: kube-controller-manager's HPA
	// controller reports scaling disabled for a target scaled to zero.
	require.Eventually(t, func() bool {
		hpa, err := cs.AutoscalingV2().HorizontalPodAutoscalers("shoot--local--qa").Get(ctx, "kube-apiserver", metav1.GetOptions{})
		require.NoError(t, err, "the autoscaler stays")
		for _, c := range hpa.Status.Conditions {
			if c.Type == autoscalingv2.ScalingActive && c.Status == corev1.ConditionFalse && c.Reason == "ScalingDisabled" {
				return true
			}
		}
		return false
	}, time.Minute, time.Second, "the HPA controller leaves the hibernated API server alone")
	kapi, err := cs.AppsV1().Deployments("shoot--local--qa").Get(ctx, "kube-apiserver", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(0), *kapi.Spec.Replicas, "still asleep")
	shoot, err := vdyn.Resource(shootsGVR).Namespace("garden-local").Get(ctx, "qa", metav1.GetOptions{})
	require.NoError(t, err)
	hibernated, _, _ := unstructured.NestedBool(shoot.Object, "status", "hibernated")
	assert.True(t, hibernated, "the engine, as gardenlet, reports the shoot hibernated")
	assertNoChanges(t, dir)

	// Waking up runs the reconcile order again.
	editLandscape(t, dir, "variables.hcl", "default     = true", "default     = false")
	done = applyAllowing(t, dir)
	order(t, done, "qa", "etcd_main", "kube_apiserver")
	order(t, done, "qa", "kube_apiserver", "kube_controller_manager")
	order(t, done, "qa", "machine_controller_manager", "worker")
	assert.Equal(t, map[string]int64{"etcd-main": 1, "etcd-events": 1}, etcdReplicasIn("shoot--local--qa"))
	// Released by the landscape, the replicas are defaulted to 1, and the autoscaler takes them
	// up to its minimum of 2 (Gardener's "Autoscaling Specifics for Components"
	// docs/development/autoscaling-specifics-for-components.md).
	require.Eventually(t, func() bool {
		d, err := cs.AppsV1().Deployments("shoot--local--qa").Get(ctx, "kube-apiserver", metav1.GetOptions{})
		require.NoError(t, err)
		return d.Spec.Replicas != nil && *d.Spec.Replicas == 2
	}, time.Minute, time.Second, "the API server autoscales again")

	// High availability added to ops: three etcd members, two controller replicas, the
	// namespace annotated (Gardener's docs/usage/high-availability/shoot_high_availability.md allow
	// adding it in place).
	editLandscape(t, dir, "shoot-ops.hcl", "  provider {\n    type = \"local\"\n  }\n",
		"  provider {\n    type = \"local\"\n  }\n\n  control_plane {\n    high_availability {\n      failure_tolerance = \"node\"\n    }\n  }\n")
	planGolden(t, dir, "plan-ha-ops.txt")
	applyAllowing(t, dir)
	assert.Equal(t, map[string]int64{"etcd-main": 3, "etcd-events": 3}, etcdReplicasIn("shoot--local--ops"))
	ns, err := cs.CoreV1().Namespaces().Get(ctx, "shoot--local--ops", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "node", ns.Annotations["high-availability-config.resources.gardener.cloud/failure-tolerance-type"])
	assertNoChanges(t, dir)

	// Deletion: the control plane in the delete flow's order (extensions and controllers before
	// the kube-apiserver, Gardener's docs/extensions/registration.md; the etcds, Gardener's "etcd"
	// docs/concepts/etcd.md, and the namespace), then the Shoot, as gardenlet releases it after
	// the delete flow. Etcds and shoot namespaces are protected: the apply must allow it.
	require.NoError(t, os.Remove(filepath.Join(dir, "shoot-ops.hcl")))
	planGolden(t, dir, "plan-delete-ops.txt")
	done = applyAllowing(t, dir, "shoot.ops")
	order(t, done, "ops", "namespace", "shoot")
	order(t, done, "ops", "kube_controller_manager", "kube_apiserver")
	// gardener-resource-manager goes after the kube-apiserver, as in gardenlet's delete flow
	// (reconciler_delete.go), so that it finalises the ManagedResources deleted before.
	order(t, done, "ops", "kube_apiserver", "gardener_resource_manager")
	order(t, done, "ops", "kube_apiserver", "etcd_main")
	order(t, done, "ops", "etcd_main", "namespace")
	_, err = vdyn.Resource(shootsGVR).Namespace("garden-local").Get(ctx, "ops", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the Shoot is deleted: %v", err)
	assert.Empty(t, etcdReplicasIn("shoot--local--ops"))
	require.Eventually(t, func() bool {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "shoot--local--ops", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, time.Minute, time.Second, "the control-plane namespace is gone")
	assertNoChanges(t, dir)
}

// plannerAt plans dir against the live clusters as at the time now.
func plannerAt(dir string, now time.Time) planner.Options {
	opts := landscapetest.Options(dir, planner.LiveConnector(cluster.Options{NoDiskCache: true}))
	opts.Now = now
	return opts
}

// applyAt applies dir as at the time now, like `gardener apply` at that moment, allowing the
// protected objects of allow to be deleted, and returns the plan it applied.
func applyAt(t *testing.T, dir string, now time.Time, allow ...string) *plan.Plan {
	t.Helper()
	res, err := applyAtResult(t, dir, now, allow...)
	require.NoError(t, err)
	return res.Outcome.Result.Plan
}

// applyAtFailing applies dir as at the time now and returns why it failed (nil if it did not).
func applyAtFailing(t *testing.T, dir string, now time.Time) error {
	t.Helper()
	_, err := applyAtResult(t, dir, now)
	return err
}

func applyAtResult(t *testing.T, dir string, now time.Time, allow ...string) (*apply.LandscapeResult, error) {
	t.Helper()
	res, diags, err := apply.Landscape(context.Background(), apply.LandscapeOptions{
		Planner: plannerAt(dir, now),
		Lock:    state.LockInfo{Holder: "garden-test", Operation: "apply"},
		Apply:   apply.Options{Timeout: 2 * time.Minute, AllowDestroy: allow},
	})
	landscapetest.RequireNoDiags(t, diags, res.Outcome)
	if err == nil && res.Result != nil {
		err = res.Result.Err()
	}
	return res, err
}

// confineRollout: a shoot with confine_spec_update_rollout takes a change of its specification
// into the Shoot at once, but its control plane gets it only in the maintenance window
// (Gardener's "gardenlet" docs/concepts/gardenlet.md, "Shoot Maintenance"
// docs/usage/shoot/shoot_maintenance.md): outside the window the plan holds the control plane's
// changes and shows them, inside it applies them.
func confineRollout(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	cs, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	rdyn, vdyn := dyn(t, c.Plane(localcluster.RuntimePlane)), dyn(t, c.Plane(localcluster.VirtualGardenPlane))
	day := time.Now().UTC().AddDate(0, 0, 1)
	outside := time.Date(day.Year(), day.Month(), day.Day(), 12, 0, 0, 0, time.UTC)
	inside := time.Date(day.Year(), day.Month(), day.Day(), 22, 30, 0, 0, time.UTC) // dev's window is 22:00-23:00 UTC
	gracePeriodIs := func(period string) bool {
		kcm, err := cs.AppsV1().Deployments("shoot--local--dev").Get(ctx, "kube-controller-manager", metav1.GetOptions{})
		require.NoError(t, err)
		return slices.Contains(kcm.Spec.Template.Spec.Containers[0].Command, "--node-monitor-grace-period="+period)
	}
	gracePeriod := func() bool { return gracePeriodIs("50s") }

	editLandscape(t, dir, "shoots.hcl", "  maintenance {\n    time_window {", "  maintenance {\n    confine_spec_update_rollout = true\n\n    time_window {")
	editLandscape(t, dir, "shoots.hcl", "    version = var.kubernetes_version\n  }", "    version = var.kubernetes_version\n\n    kube_controller_manager {\n      node_monitor_grace_period = \"50s\"\n    }\n  }")
	pl := applyAt(t, dir, outside)
	held := heldOf(pl)
	assert.Equal(t, plan.Update, held["shoot.dev.kube_controller_manager"], "held: %v", held)
	assert.Equal(t, plan.Update, held["shoot.dev.cluster"], "the extensions Cluster carries the Shoot's spec")
	assert.NotContains(t, held, "shoot.dev.shoot", "the Shoot takes the new specification at once")
	assert.False(t, gracePeriod(), "outside the window the control plane keeps running as it was")
	shoot, err := vdyn.Resource(shootsGVR).Namespace("garden-local").Get(ctx, "dev", metav1.GetOptions{})
	require.NoError(t, err)
	confine, _, _ := unstructured.NestedBool(shoot.Object, "spec", "maintenance", "confineSpecUpdateRollout")
	assert.True(t, confine)
	clusterObj, err := rdyn.Resource(schema.GroupVersionResource{Group: "extensions.gardener.cloud", Version: "v1alpha1", Resource: "clusters"}).Get(ctx, "shoot--local--dev", metav1.GetOptions{})
	require.NoError(t, err)
	confined, _, _ := unstructured.NestedBool(clusterObj.Object, "spec", "shoot", "spec", "maintenance", "confineSpecUpdateRollout")
	assert.False(t, confined, "the Cluster waits for the window")

	pl = applyAt(t, dir, inside)
	assert.Zero(t, pl.Summary.Held, "inside the window nothing is held")
	assert.True(t, gracePeriod(), "the maintenance window rolled the change out")
	assert.False(t, applyAt(t, dir, outside).HasChanges(), "nothing is left for the next window")

	// The next change waits for the window again. The reconcile operation does not reach the
	// engine on the real Gardener API: for a Shoot whose last operation did not fail,
	// gardener-apiserver takes gardener.cloud/operation=reconcile off at once and increases the
	// generation instead (pkg/apiserver/registry/core/shoot/strategy.go), which gardenlet reads
	// as the request; the engine, reporting the Shoot's status as gardenlet, observes the new
	// generation at its next apply.
	editLandscape(t, dir, "shoots.hcl", `node_monitor_grace_period = "50s"`, `node_monitor_grace_period = "45s"`)
	assert.Equal(t, plan.Update, heldOf(applyAt(t, dir, outside))["shoot.dev.kube_controller_manager"])
	before, err := vdyn.Resource(shootsGVR).Namespace("garden-local").Get(ctx, "dev", metav1.GetOptions{})
	require.NoError(t, err)
	annotateShoot(t, vdyn, "dev", `"reconcile"`)
	shoot, err = vdyn.Resource(shootsGVR).Namespace("garden-local").Get(ctx, "dev", metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotContains(t, shoot.GetAnnotations(), "gardener.cloud/operation", "gardener-apiserver consumes the request")
	assert.Equal(t, before.GetGeneration()+1, shoot.GetGeneration(), "and asks for a reconciliation by the generation")
	pl = applyAt(t, dir, inside)
	assert.Zero(t, pl.Summary.Held, "the window rolls the change out")
	assert.True(t, gracePeriodIs("45s"), "rolled out in the window")
	assert.False(t, applyAt(t, dir, outside).HasChanges(), "nothing is held any more")
}

// heldOf maps the components of a plan to the action their held changes will take.
func heldOf(pl *plan.Plan) map[string]plan.Action {
	held := map[string]plan.Action{}
	for _, comp := range pl.Components {
		for _, o := range comp.Objects {
			if o.Held != "" {
				held[comp.Address] = o.Held
			}
		}
	}
	return held
}

// objectChange is the planned change of the only object of a kind in a component.
func objectChange(t *testing.T, pl *plan.Plan, address, kind string) *plan.ObjectChange {
	t.Helper()
	for _, comp := range pl.Components {
		if comp.Address != address {
			continue
		}
		for _, o := range comp.Objects {
			if o.Ref.Kind == kind {
				return o
			}
		}
	}
	require.Failf(t, "no such change", "%s of %s is not in the plan", kind, address)
	return nil
}

// annotateShoot sets (or, with null, removes) gardener.cloud/operation on a Shoot of the
// project local the way a user does with kubectl annotate: as a field manager of its own.
func annotateShoot(t *testing.T, vdyn dynamic.Interface, name, jsonValue string) {
	t.Helper()
	patch := []byte(`{"metadata":{"annotations":{"gardener.cloud/operation":` + jsonValue + `}}}`)
	_, err := vdyn.Resource(shootsGVR).Namespace("garden-local").Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-annotate"})
	require.NoError(t, err)
}

// planGoldenAt plans dir as at the time now and compares the plan text with a golden file, the
// schedule's day written as <day> and the next as <next day>.
func planGoldenAt(t *testing.T, dir, name string, now time.Time) {
	t.Helper()
	pl := planAt(t, dir, now)
	require.True(t, pl.HasChanges(), "the plan has changes")
	var text bytes.Buffer
	require.NoError(t, views.Plan(&text, pl, views.PlanOptions{Detail: views.DetailFull}))
	golden.AssertBytes(t, name, stableCertificates(maskDays(text.Bytes(), now)))
}

// maskDays writes the day of now as <day>, the next as <next day> and the one before as
// <previous day>, so that golden plans made at times relative to the test's date stay the same.
func maskDays(text []byte, now time.Time) []byte {
	out := bytes.ReplaceAll(text, []byte(now.Format("2006-01-02")), []byte("<day>"))
	out = bytes.ReplaceAll(out, []byte(now.AddDate(0, 0, -1).Format("2006-01-02")), []byte("<previous day>"))
	return bytes.ReplaceAll(out, []byte(now.AddDate(0, 0, 1).Format("2006-01-02")), []byte("<next day>"))
}

// hibernationSchedule gives qa a working-day schedule in Tokyo (Gardener's
// docs/usage/shoot/shoot_hibernate.md), which gardener-controller-manager carries out: here the
// test writes what its hibernation loop would (spec.hibernation.enabled and
// status.lastHibernationTriggerTime, as its field manager) at the times the plans are made at.
// The schedule added in the afternoon changes nothing and predicts the evening's start; a plan
// for a minute after the start, made before it (plan --at), predicts the flip and hibernates the
// control plane without writing the Shoot; once the Shoot says hibernated, the apply hibernates
// the control plane and keeps the Shoot's value; the morning's end wakes qa up the same way.
func hibernationSchedule(t *testing.T, c *localcluster.Cluster, dir string) {
	rdyn, vdyn := dyn(t, c.Plane(localcluster.RuntimePlane)), dyn(t, c.Plane(localcluster.VirtualGardenPlane))
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	require.NoError(t, err)
	// The Wednesday after tomorrow, in Tokyo (no daylight saving time: the plan text is stable).
	day := time.Now().In(tokyo).AddDate(0, 0, 2)
	for day.Weekday() != time.Wednesday {
		day = day.AddDate(0, 0, 1)
	}
	at := func(days, hour, minute int) time.Time {
		return time.Date(day.Year(), day.Month(), day.Day()+days, hour, minute, 0, 0, tokyo)
	}
	etcdMain := func() int64 { return qaEtcdMainReplicas(t, rdyn) }

	editLandscape(t, dir, "shoots.hcl", "    enabled = var.hibernate_qa\n", "    enabled = var.hibernate_qa\n\n    schedules {\n      start    = \"0 20 * * 1-5\"\n      end      = \"0 7 * * 1-5\"\n      location = \"Asia/Tokyo\"\n    }\n")
	pl := applyAt(t, dir, at(0, 15, 0))
	assert.Equal(t, int64(1), etcdMain(), "a schedule added in the afternoon leaves qa awake")
	flip := predictionOf(t, pl, "shoot.qa", "shoot-hibernation")
	assert.Equal(t, at(0, 20, 0).UTC().Format(time.RFC3339), flip.At, "the evening's start comes next")
	assert.False(t, applyAt(t, dir, at(0, 19, 59)).HasChanges(), "nothing is due before the start")

	// plan --at a minute after the start, made at 15:00: gardener-controller-manager's flip is
	// predicted and the control plane hibernates; the Shoot is not written.
	planGoldenProjected(t, dir, "plan-schedule-hibernate-qa.txt", at(0, 20, 1), at(0, 15, 0))
	assert.Equal(t, int64(1), etcdMain(), "a plan changes nothing")

	// At the start gardener-controller-manager flips the Shoot; the next apply hibernates the
	// control plane because the Shoot says so, and keeps the Shoot's value.
	gcmHibernates(t, vdyn, "qa", true, at(0, 20, 0))
	pl = applyAt(t, dir, at(0, 20, 1))
	assert.Contains(t, noteOf(pl, "shoot.qa.etcd_main"), "hibernation: the Shoot says hibernated (spec.hibernation.enabled true, gardener-controller-manager's hibernation schedule trigger at "+at(0, 20, 0).UTC().Format(time.RFC3339)+")")
	assert.Equal(t, int64(0), etcdMain(), "the control plane hibernated")
	assert.True(t, qaHibernation(t, vdyn), "the apply keeps gardener-controller-manager's flip")
	assert.False(t, applyAt(t, dir, at(0, 23, 0)).HasChanges(), "the flip is followed once")

	// The morning's end wakes qa up the same way.
	gcmHibernates(t, vdyn, "qa", false, at(1, 7, 0))
	applyAt(t, dir, at(1, 7, 0))
	assert.Equal(t, int64(1), etcdMain(), "the end woke qa up")
	assert.False(t, qaHibernation(t, vdyn))
}

// gcmHibernates writes what gardener-controller-manager's hibernation loop writes at a trigger at
// at (pkg/controllermanager/controller/shoot/hibernation/reconciler.go at Gardener v1.120.0): the
// Shoot's spec.hibernation.enabled by a merge patch and status.lastHibernationTriggerTime by a
// merge patch of its status, as its field manager.
func gcmHibernates(t *testing.T, vdyn dynamic.Interface, name string, enabled bool, at time.Time) {
	t.Helper()
	ctx := context.Background()
	shoots := vdyn.Resource(shootsGVR).Namespace("garden-local")
	opts := metav1.PatchOptions{FieldManager: "gardener-controller-manager"}
	_, err := shoots.Patch(ctx, name, types.MergePatchType, []byte(fmt.Sprintf(`{"spec":{"hibernation":{"enabled":%t}}}`, enabled)), opts)
	require.NoError(t, err)
	_, err = shoots.Patch(ctx, name, types.MergePatchType, []byte(`{"status":{"lastHibernationTriggerTime":"`+at.UTC().Format(time.RFC3339)+`"}}`), opts, "status")
	require.NoError(t, err)
}

// gcmMaintains writes what gardener-controller-manager's maintenance loop writes when it raises
// dev's versions (pkg/controllermanager/controller/shoot/maintenance/reconciler.go at Gardener
// v1.120.0): status.lastMaintenance, then the spec by an update, as its field manager.
func gcmMaintains(t *testing.T, vdyn dynamic.Interface, k8s, image, description string, at time.Time) {
	t.Helper()
	ctx := context.Background()
	shoots := vdyn.Resource(shootsGVR).Namespace("garden-local")
	opts := metav1.PatchOptions{FieldManager: "gardener-controller-manager"}
	status := fmt.Sprintf(`{"status":{"lastMaintenance":{"description":%q,"triggeredTime":%q,"state":"Succeeded"}}}`, description, at.UTC().Format(time.RFC3339))
	_, err := shoots.Patch(ctx, "dev", types.MergePatchType, []byte(status), opts, "status")
	require.NoError(t, err)
	shoot, err := shoots.Get(ctx, "dev", metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, unstructured.SetNestedField(shoot.Object, k8s, "spec", "kubernetes", "version"))
	pools, _, _ := unstructured.NestedSlice(shoot.Object, "spec", "provider", "workers")
	require.NotEmpty(t, pools)
	require.NoError(t, unstructured.SetNestedField(pools[0].(map[string]any), image, "machine", "image", "version"))
	require.NoError(t, unstructured.SetNestedSlice(shoot.Object, pools, "spec", "provider", "workers"))
	_, err = shoots.Update(ctx, shoot, metav1.UpdateOptions{FieldManager: "gardener-controller-manager"})
	require.NoError(t, err)
}

// planGoldenProjected plans dir as `gardener plan --at now` made at observed, and compares the
// plan text with a golden file, the days written as in planGoldenAt.
func planGoldenProjected(t *testing.T, dir, name string, now, observed time.Time) {
	t.Helper()
	pl := planProjectedFrom(t, dir, now, observed)
	var text bytes.Buffer
	require.NoError(t, views.Plan(&text, pl, views.PlanOptions{Detail: views.DetailFull}))
	golden.AssertBytes(t, name, stableCertificates(maskDays(text.Bytes(), now)))
}

// planText is the plan as `gardener plan` prints it, for failure messages.
func planText(t *testing.T, pl *plan.Plan) string {
	t.Helper()
	var text bytes.Buffer
	require.NoError(t, views.Plan(&text, pl, views.PlanOptions{Detail: views.DetailFull}))
	return text.String()
}

// qaEtcdMainReplicas is the replica count of qa's etcd-main: 0 while qa hibernates.
func qaEtcdMainReplicas(t *testing.T, rdyn dynamic.Interface) int64 {
	t.Helper()
	e, err := rdyn.Resource(etcdsGVR).Namespace("shoot--local--qa").Get(context.Background(), "etcd-main", metav1.GetOptions{})
	require.NoError(t, err)
	replicas, _, _ := unstructured.NestedInt64(e.Object, "spec", "replicas")
	return replicas
}

// devVersions are dev's Kubernetes version and its first worker pool's machine image version,
// as the live Shoot has them.
func devVersions(t *testing.T, vdyn dynamic.Interface) []string {
	t.Helper()
	shoot, err := vdyn.Resource(shootsGVR).Namespace("garden-local").Get(context.Background(), "dev", metav1.GetOptions{})
	require.NoError(t, err)
	k8s, _, _ := unstructured.NestedString(shoot.Object, "spec", "kubernetes", "version")
	pools, _, _ := unstructured.NestedSlice(shoot.Object, "spec", "provider", "workers")
	require.NotEmpty(t, pools)
	image, _, _ := unstructured.NestedString(pools[0].(map[string]any), "machine", "image", "version")
	return []string{k8s, image}
}

// noteOf returns the plan note of a component.
func noteOf(pl *plan.Plan, address string) string {
	for _, c := range pl.Components {
		if c.Address == address {
			return c.Note.Text
		}
	}
	return ""
}

// planAt plans dir as at the time now, as `gardener plan --at` does, changes or not.
func planAt(t *testing.T, dir string, now time.Time) *plan.Plan {
	t.Helper()
	res, diags, err := apply.Landscape(context.Background(), apply.LandscapeOptions{
		Planner: plannerAt(dir, now),
		Lock:    state.LockInfo{Holder: "garden-test", Operation: "plan"},
		Confirm: func(*plan.Plan) bool { return false }, // plan only
	})
	landscapetest.RequireNoDiags(t, diags, res.Outcome)
	if err != nil {
		require.ErrorIs(t, err, apply.ErrCancelled)
	}
	return res.Outcome.Result.Plan
}

// versionMaintenance gives the cloud profile a newer Kubernetes patch version and machine image
// version and lets dev's version expire tomorrow. Maintaining is gardener-controller-manager's; its
// loop acts in real time, so for the window ahead the test writes what the loop would then, as its
// field manager. Outside dev's window (22:00-23:00 UTC) the plan changes nothing and predicts the
// window's run, with its changes in the loop's words (a forced update to the new patch version,
// Gardener's "Shoot Kubernetes and Operating System Versioning in Gardener"
// docs/usage/shoot-operations/shoot_versions.md, and the pool's new image, Gardener's
// docs/usage/shoot/shoot_maintenance.md); the maintain operation is predicted to run at once and
// left to the loop (the real one, which would run it now, is stopped meanwhile); a plan for after
// the window, made before it, runs the control plane on the new versions without writing the
// Shoot; once the loop raised the Shoot, the apply runs the control plane on it, and the raised
// versions stay although the landscape still says 1.31.1.
func versionMaintenance(t *testing.T, c *localcluster.Cluster, dir string) {
	vdyn := dyn(t, c.Plane(localcluster.VirtualGardenPlane))
	day := time.Now().UTC().AddDate(0, 0, 1)
	outside := time.Date(day.Year(), day.Month(), day.Day(), 12, 0, 0, 0, time.UTC)
	inside := time.Date(day.Year(), day.Month(), day.Day(), 22, 30, 0, 0, time.UTC)
	// after the loop's last instant, still in the window: dev confines its rollouts to it
	after := time.Date(day.Year(), day.Month(), day.Day(), 22, 50, 0, 0, time.UTC)
	expired := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
	const run = `Control Plane: Updated Kubernetes version from "1.31.1" to "1.31.3". Reason: Kubernetes version expired - force update required, ` +
		`Worker pool "local": Updated machine image "local" from "1.0.0" to "1.0.1". Reason: Automatic update of the machine image version is configured (image update strategy: major)`

	editLandscape(t, dir, "gardener-api.hcl", "  kubernetes_version \"1.31.1\" {\n    classification = \"supported\"\n  }",
		"  kubernetes_version \"1.31.1\" {\n    classification  = \"deprecated\"\n    expiration_date = \""+expired+"\"\n  }\n\n  kubernetes_version \"1.31.3\" {\n    classification = \"supported\"\n  }")
	editLandscape(t, dir, "gardener-api.hcl", "    version \"1.0.0\" {\n      classification = \"supported\"\n    }",
		// Gardener allows one supported version per minor version: the old one is deprecated.
		"    version \"1.0.0\" {\n      classification = \"deprecated\"\n    }\n\n    version \"1.0.1\" {\n      classification = \"supported\"\n    }")
	applyAt(t, dir, outside) // the new cloud profile
	pl := planAt(t, dir, outside)
	assert.False(t, pl.HasChanges(), "the engine never maintains")
	window := predictionOf(t, pl, "shoot.dev", "shoot-maintenance")
	assert.Equal(t, time.Date(day.Year(), day.Month(), day.Day(), 22, 0, 0, 0, time.UTC).Format(time.RFC3339), window.At)
	assert.Equal(t, time.Date(day.Year(), day.Month(), day.Day(), 22, 45, 0, 0, time.UTC).Format(time.RFC3339), window.Until, "the loop never starts in the window's last 15 minutes")
	assert.Contains(t, window.Description, run)
	assert.Equal(t, []string{"1.31.1", "1.0.0"}, devVersions(t, vdyn))
	// Inside the window the loop picks its instant and the engine waits for the Shoot; what the
	// window releases is the new cloud profile in dev's extensions Cluster, which gardenlet, too,
	// writes only when it reconciles the shoot, in the window (confine_spec_update_rollout).
	held := []string{"shoot.dev.cluster: update Cluster"}
	assert.Equal(t, held, shootChanges(planAt(t, dir, inside), "dev"), "inside the window the loop picks its instant; the engine waits for the Shoot")

	// The maintain operation (Gardener's "Trigger Shoot Operations Through Annotations"
	// docs/usage/shoot-operations/shoot_operations.md) is the loop's to carry out at once and to
	// remove; withdrawn again here. The real loop would carry it out at once, with the versions
	// as they are now (1.31.1 not yet expired): it is stopped while the plan shows the operation
	// waiting for it.
	vg := c.Plane(localcluster.VirtualGardenPlane)
	require.NoError(t, vg.StopGardenerControllers())
	annotateShoot(t, vdyn, "dev", `"maintain"`)
	maintainNow := planAt(t, dir, outside)
	assert.Contains(t, maintainNow.Notices, "shoot dev: gardener.cloud/operation=maintain: gardener-controller-manager maintains the shoot now, outside its maintenance window if need be, and removes the annotation; the changes held for the window roll out with it")
	now := predictionOf(t, maintainNow, "shoot.dev", "shoot-maintenance")
	assert.Empty(t, now.At, "as soon as the loop sees the Shoot")
	assert.Contains(t, now.Description, run)
	assert.Equal(t, held, shootChanges(maintainNow, "dev"), "the engine leaves the annotation to the loop; the maintain operation releases what was held for the window")
	annotateShoot(t, vdyn, "dev", "null")
	require.NoError(t, vg.StartGardenerControllers(context.Background()))

	// plan --at after the window, made before it: the control plane runs the versions the loop
	// will have set; the Shoot is not written.
	planGoldenProjected(t, dir, "plan-maintenance-dev.txt", after, outside)

	// The loop raises the Shoot in the window; the apply in the window runs the control plane
	// on it (dev confines its rollouts to the window since confineRollout).
	gcmMaintains(t, vdyn, "1.31.3", "1.0.1", "All maintenance operations successful. "+run, time.Date(day.Year(), day.Month(), day.Day(), 22, 13, 0, 0, time.UTC))
	applyAt(t, dir, after)
	kapi, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	d, err := kapi.AppsV1().Deployments("shoot--local--dev").Get(context.Background(), "kube-apiserver", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "registry.k8s.io/kube-apiserver:v1.31.3", d.Spec.Template.Spec.Containers[0].Image, "the control plane follows the Shoot")
	assert.Equal(t, []string{"1.31.3", "1.0.1"}, devVersions(t, vdyn), "the apply keeps the raised versions")
	next := planAt(t, dir, outside.AddDate(0, 0, 1))
	assert.False(t, next.HasChanges(), "the raised versions stay although the landscape says 1.31.1")
	assert.Equal(t, []string{"1.31.3", "1.0.1"}, devVersions(t, vdyn))
}

// editAfter replaces the first old after anchor in a landscape file.
func editAfter(t *testing.T, dir, file, anchor, old, new string) {
	t.Helper()
	path := filepath.Join(dir, file)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	s := string(data)
	i := strings.Index(s, anchor)
	require.GreaterOrEqual(t, i, 0, anchor)
	j := strings.Index(s[i:], old)
	require.GreaterOrEqual(t, j, 0, old)
	s = s[:i+j] + new + s[i+j+len(old):]
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
}

// quotaLifetime moves qa to a trial CredentialsBinding whose Quota limits the cluster lifetime
// to seven days, with an end declared three days from now (Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md). Before the end the plan says when qa expires and predicts
// gardener-controller-manager's deletion, and the Shoot carries the landscape's end in its
// expiration-timestamp annotation; at the end the plan deletes qa's control plane with the reason
// lifetime_ended and leaves the Shoot to gardener-controller-manager's quota loop (here the test
// deletes it as that loop would, and the engine's next apply, as gardenlet, reports the Delete
// and removes gardenlet's finalizer); the apply needs --allow-destroy for qa's etcds and namespace,
// and once it began, qa is not created again although its block stays and a fresh lifetime would
// start; lifting the lifetime forgets that.
func quotaLifetime(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	cs, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	vdyn := dyn(t, c.Plane(localcluster.VirtualGardenPlane))
	day := time.Now().UTC().AddDate(0, 0, 3)
	ends := time.Date(day.Year(), day.Month(), day.Day(), 12, 0, 0, 0, time.UTC)
	endsText := ends.Format(time.RFC3339)

	f, err := os.OpenFile(filepath.Join(dir, "gardener-api.hcl"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`
component "quota" "trial" {
  cluster               = cluster.virtual_garden
  namespace             = component.project.local.namespace
  scope                 = "Secret"
  cluster_lifetime_days = 7
}

component "credentials_binding" "trial" {
  cluster       = cluster.virtual_garden
  namespace     = component.project.local.namespace
  provider_type = "local"

  credentials_ref {
    name      = "local-credentials"
    namespace = component.project.local.namespace
  }

  quota {
    name = component.quota.trial.name
  }

  depends_on = [component.manifests.local_credentials]
}
`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	editAfter(t, dir, "shoots.hcl", `shoot "qa" {`, `credentials_binding = "local"`, `credentials_binding  = "trial"`+"\n  expiration_timestamp = \""+endsText+"\"")
	editAfter(t, dir, "shoots.hcl", `shoot "qa" {`, `depends_on = [component.credentials_binding.local]`, `depends_on = [component.credentials_binding.trial]`)

	// The first apply creates the Quota and the binding; the shoot learns its lifetime from
	// them once they exist.
	now := time.Now().UTC()
	applyAt(t, dir, now)
	pl := applyAt(t, dir, now)
	assert.Contains(t, pl.Notices, "shoot qa: expires at "+endsText+" (the cluster lifetime of Quota garden-local/trial, 7 days); gardener-controller-manager deletes it then")
	deletion := predictionOf(t, pl, "shoot.qa", "shoot-quota")
	assert.Equal(t, "delete", deletion.Action)
	assert.Equal(t, endsText, deletion.At)
	assert.Equal(t, ends.Add(time.Hour).Format(time.RFC3339), deletion.Until, "at the quota loop's first look after the end")
	shoot, err := vdyn.Resource(shootsGVR).Namespace("garden-local").Get(ctx, "qa", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, endsText, shoot.GetAnnotations()["shoot.gardener.cloud/expiration-timestamp"])
	assert.False(t, planAt(t, dir, ends.Add(-time.Minute)).HasChanges(), "nothing happens before the end")

	// At the end: qa is deleted, as if its block were removed.
	after := ends.Add(time.Minute)
	planGoldenAt(t, dir, "plan-lifetime-qa.txt", after)
	err = applyAtFailing(t, dir, after)
	require.Error(t, err, "the etcds and the namespace are protected")
	assert.Contains(t, err.Error(), "--allow-destroy shoot.qa")

	// The apply recorded the end before deleting anything: now, before the end by the clock,
	// qa is still deleted, not created with a fresh lifetime.
	pl = planAt(t, dir, now)
	require.Len(t, pl.Retired, 1)
	assert.Equal(t, plan.Retirement{Address: "shoot.qa", Ended: endsText, Reason: "the cluster lifetime of Quota garden-local/trial, 7 days", Recorded: true}, pl.Retired[0])
	applyAllowing(t, dir, "shoot.qa")
	_, err = vdyn.Resource(shootsGVR).Namespace("garden-local").Get(ctx, "qa", metav1.GetOptions{})
	require.NoError(t, err, "the engine leaves the Shoot to gardener-controller-manager")
	// gardener-controller-manager's quota loop deletes the Shoot, confirming the deletion
	// (pkg/controllermanager/controller/shoot/quota/reconciler.go at Gardener v1.120.0).
	_, err = vdyn.Resource(shootsGVR).Namespace("garden-local").Patch(ctx, "qa", types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"confirmation.gardener.cloud/deletion":"true"}}}`), metav1.PatchOptions{FieldManager: "gardener-controller-manager"})
	require.NoError(t, err)
	require.NoError(t, vdyn.Resource(shootsGVR).Namespace("garden-local").Delete(ctx, "qa", metav1.DeleteOptions{}))
	// gardenlet's finalizer holds the Shoot until gardenlet finished its delete flow: the engine,
	// reporting as gardenlet, ran it at the end, and its next apply reports the Delete and lets
	// the Shoot go.
	shoot, err = vdyn.Resource(shootsGVR).Namespace("garden-local").Get(ctx, "qa", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Contains(t, shoot.GetFinalizers(), "gardener", "the engine reported on qa as gardenlet")
	pl = applyAt(t, dir, now)
	assert.Equal(t, []string{"shoot.qa.shoot: delete Shoot"}, shootChanges(pl, "qa"))
	require.Eventually(t, func() bool {
		_, err := vdyn.Resource(shootsGVR).Namespace("garden-local").Get(ctx, "qa", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, time.Minute, time.Second, "the Shoot is deleted")
	require.Eventually(t, func() bool {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "shoot--local--qa", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, time.Minute, time.Second, "the control-plane namespace is gone")
	pl = planAt(t, dir, now)
	assert.False(t, pl.HasChanges(), "qa is not created again while its block stays")
	require.NotEmpty(t, pl.Notices)
	assert.Contains(t, strings.Join(pl.Notices, "\n"), "shoot.qa: its lifetime ended at "+endsText)

	// Without the trial binding qa has no lifetime: the plan forgets the end and creates qa.
	editAfter(t, dir, "shoots.hcl", `shoot "qa" {`, `credentials_binding  = "trial"`+"\n  expiration_timestamp = \""+endsText+"\"", `credentials_binding = "local"`)
	pl = planAt(t, dir, now)
	assert.Equal(t, []string{"shoot.qa"}, pl.Forget)
	assert.Empty(t, pl.Retired)
	assert.Positive(t, pl.Summary.Add, "qa is created anew")
}
