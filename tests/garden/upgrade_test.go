package garden

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// earlierRendering is what `gardener render landscapes/local` wrote at commit 401a118, the last
// commit before the fidelity work of issue 27, on a fresh local control plane: one file per
// component, numbered in apply order, under a directory per cluster block. Generated Secrets
// (key material) are left out, and so is every Secret data key that holds a private key: the
// repository holds no keys. The current version generates its own.
const earlierRendering = "testdata/rendering-before-issue-27.tar.gz"

// upgradeReplacements are the objects a landscape applied with the earlier rendering has to
// replace or delete when it moves to the current one, each with the reason the plan gives: the
// decisions of docs/fidelity.md ("Upgrading a landscape applied with an earlier rendering").
// Everything else changes in place.
var upgradeReplacements = []string{
	// kube-scheduler's configuration moved to a unique ConfigMap; machine-controller-manager and
	// cluster-autoscaler are bound to the seed's ClusterRoles instead of a Role per namespace, and
	// their Services are headless (docs/fidelity/kube-scheduler.md,
	// docs/fidelity/machine-controller-manager.md, docs/fidelity/cluster-autoscaler.md).
	// The seed's and garden's system components: dependency-watchdog's and nginx-ingress's
	// Deployments select their pods by Gardener's labels, their ConfigMaps (and nginx-ingress's) are
	// content-addressed, reserve-excess-capacity is indexed, and the VPA, etcd-druid and nginx-ingress
	// RBAC has Gardener's names (docs/fidelity/dependency-watchdog.md, nginx-ingress.md, vpa.md,
	// etcd-druid.md, reserve-excess-capacity.md).
	"garden.local.etcd_druid runtime ConfigMap garden/etcd-druid-imagevector-overwrite delete removed_from_landscape",
	"garden.local.etcd_druid runtime Role garden/etcd-druid-leader-election delete removed_from_landscape",
	"garden.local.etcd_druid runtime RoleBinding garden/etcd-druid-leader-election delete removed_from_landscape",
	"garden.local.nginx_ingress runtime ClusterRole /gardener.cloud:nginx-ingress delete removed_from_landscape",
	"garden.local.nginx_ingress runtime ClusterRoleBinding /gardener.cloud:nginx-ingress delete removed_from_landscape",
	"garden.local.nginx_ingress runtime ConfigMap garden/nginx-ingress-controller delete superseded:nginx-ingress-controller-<checksum>",
	"garden.local.nginx_ingress runtime Deployment garden/nginx-ingress-controller replace immutable_field:.spec.selector",
	"garden.local.nginx_ingress runtime Deployment garden/nginx-ingress-k8s-backend replace immutable_field:.spec.selector",
	"garden.local.nginx_ingress runtime PodDisruptionBudget garden/nginx-ingress-k8s-backend delete removed_from_landscape",
	"garden.local.nginx_ingress runtime Role garden/nginx-ingress-controller delete removed_from_landscape",
	"garden.local.nginx_ingress runtime RoleBinding garden/nginx-ingress-controller delete removed_from_landscape",
	"garden.local.nginx_ingress runtime ServiceAccount garden/nginx-ingress-controller delete removed_from_landscape",
	"garden.local.vpa runtime ClusterRole /gardener.cloud:vpa:vpa-admission-controller delete removed_from_landscape",
	"garden.local.vpa runtime ClusterRole /gardener.cloud:vpa:vpa-recommender delete removed_from_landscape",
	"garden.local.vpa runtime ClusterRole /gardener.cloud:vpa:vpa-updater delete removed_from_landscape",
	"garden.local.vpa runtime ClusterRoleBinding /gardener.cloud:vpa:vpa-admission-controller delete removed_from_landscape",
	"garden.local.vpa runtime ClusterRoleBinding /gardener.cloud:vpa:vpa-recommender delete removed_from_landscape",
	"garden.local.vpa runtime ClusterRoleBinding /gardener.cloud:vpa:vpa-updater delete removed_from_landscape",
	"garden.local.vpa runtime Role garden/vpa-recommender-leader-election delete removed_from_landscape",
	"garden.local.vpa runtime Role garden/vpa-updater-leader-election delete removed_from_landscape",
	"garden.local.vpa runtime RoleBinding garden/vpa-recommender-leader-election delete removed_from_landscape",
	"garden.local.vpa runtime RoleBinding garden/vpa-updater-leader-election delete removed_from_landscape",
	"seed.local.dependency_watchdog runtime ConfigMap garden/dependency-watchdog-prober-config delete superseded:dependency-watchdog-prober-config-<checksum>",
	"seed.local.dependency_watchdog runtime ConfigMap garden/dependency-watchdog-weeder-config delete superseded:dependency-watchdog-weeder-config-<checksum>",
	"seed.local.dependency_watchdog runtime Deployment garden/dependency-watchdog-prober replace immutable_field:.spec.selector",
	"seed.local.dependency_watchdog runtime Deployment garden/dependency-watchdog-weeder replace immutable_field:.spec.selector",
	"seed.local.reserve_excess_capacity runtime Deployment garden/reserve-excess-capacity delete superseded:reserve-excess-capacity-0",
	"shoot.dev.cluster_autoscaler runtime Role shoot--local--dev/cluster-autoscaler delete removed_from_landscape",
	"shoot.dev.cluster_autoscaler runtime RoleBinding shoot--local--dev/cluster-autoscaler delete removed_from_landscape",
	"shoot.dev.cluster_autoscaler runtime Service shoot--local--dev/cluster-autoscaler replace immutable_field:.spec.clusterIP",
	"shoot.dev.kube_scheduler runtime ConfigMap shoot--local--dev/kube-scheduler-config delete removed_from_landscape",
	"shoot.dev.machine_controller_manager runtime Role shoot--local--dev/machine-controller-manager delete removed_from_landscape",
	"shoot.dev.machine_controller_manager runtime RoleBinding shoot--local--dev/machine-controller-manager delete removed_from_landscape",
	"shoot.dev.machine_controller_manager runtime Service shoot--local--dev/machine-controller-manager replace immutable_field:.spec.clusterIP",
	"shoot.qa.kube_scheduler runtime ConfigMap shoot--local--qa/kube-scheduler-config delete removed_from_landscape",
	"shoot.qa.machine_controller_manager runtime Role shoot--local--qa/machine-controller-manager delete removed_from_landscape",
	"shoot.qa.machine_controller_manager runtime RoleBinding shoot--local--qa/machine-controller-manager delete removed_from_landscape",
	"shoot.qa.machine_controller_manager runtime Service shoot--local--qa/machine-controller-manager replace immutable_field:.spec.clusterIP",
}

// identityReplacements are the upgrade decisions of docs/fidelity/gardener-resource-manager.md,
// shoot-core.md and kube-controller-manager.md: the ManagedResources' Secrets and the resource
// managers' configuration are named after a checksum of their content, which supersedes the
// earlier names, and the kube-controller-managers' Services are headless (spec.clusterIP is
// immutable).
var identityReplacements = []string{
	"garden.local.gardener_resource_manager runtime ConfigMap garden/gardener-resource-manager-config delete superseded:gardener-resource-manager-<checksum>",
	"garden.local.virtual_garden_kube_controller_manager runtime Deployment garden/virtual-garden-kube-controller-manager replace immutable_field:.spec.selector",
	"garden.local.virtual_garden_kube_controller_manager runtime Service garden/virtual-garden-kube-controller-manager replace immutable_field:.spec.clusterIP",
	"shoot.dev.cluster_autoscaler runtime Secret shoot--local--dev/managedresource-shoot-core-cluster-autoscaler delete superseded:managedresource-shoot-core-cluster-autoscaler-<checksum>",
	"shoot.dev.gardener_resource_manager runtime ConfigMap shoot--local--dev/gardener-resource-manager-config delete superseded:gardener-resource-manager-<checksum>",
	"shoot.dev.kube_controller_manager runtime Service shoot--local--dev/kube-controller-manager replace immutable_field:.spec.clusterIP",
	"shoot.dev.machine_controller_manager runtime Secret shoot--local--dev/managedresource-shoot-core-machine-controller-manager delete superseded:managedresource-shoot-core-machine-controller-manager-<checksum>",
	"shoot.dev.system_components runtime Secret shoot--local--dev/managedresource-shoot-core-coredns delete superseded:managedresource-shoot-core-coredns-<checksum>",
	"shoot.dev.system_components runtime Secret shoot--local--dev/managedresource-shoot-core-kube-proxy delete superseded:managedresource-shoot-core-kube-proxy-<checksum>",
	"shoot.dev.system_components runtime Secret shoot--local--dev/managedresource-shoot-core-kube-proxy-local-v1.31.1 delete superseded:managedresource-shoot-core-kube-proxy-local-v1.31.1-<checksum>",
	"shoot.dev.system_components runtime Secret shoot--local--dev/managedresource-shoot-core-metrics-server delete superseded:managedresource-shoot-core-metrics-server-<checksum>",
	"shoot.dev.system_components runtime Secret shoot--local--dev/managedresource-shoot-core-vpn-shoot delete superseded:managedresource-shoot-core-vpn-shoot-<checksum>",
	"shoot.ops.gardener_resource_manager runtime ConfigMap shoot--local--ops/gardener-resource-manager-config delete superseded:gardener-resource-manager-<checksum>",
	"shoot.ops.kube_controller_manager runtime Service shoot--local--ops/kube-controller-manager replace immutable_field:.spec.clusterIP",
	"shoot.qa.gardener_resource_manager runtime ConfigMap shoot--local--qa/gardener-resource-manager-config delete superseded:gardener-resource-manager-<checksum>",
	"shoot.qa.kube_controller_manager runtime Service shoot--local--qa/kube-controller-manager replace immutable_field:.spec.clusterIP",
	"shoot.qa.machine_controller_manager runtime Secret shoot--local--qa/managedresource-shoot-core-machine-controller-manager delete superseded:managedresource-shoot-core-machine-controller-manager-<checksum>",
	"shoot.qa.system_components runtime Secret shoot--local--qa/managedresource-shoot-core-coredns delete superseded:managedresource-shoot-core-coredns-<checksum>",
	"shoot.qa.system_components runtime Secret shoot--local--qa/managedresource-shoot-core-kube-proxy delete superseded:managedresource-shoot-core-kube-proxy-<checksum>",
	"shoot.qa.system_components runtime Secret shoot--local--qa/managedresource-shoot-core-kube-proxy-local-v1.31.1 delete superseded:managedresource-shoot-core-kube-proxy-local-v1.31.1-<checksum>",
	"shoot.qa.system_components runtime Secret shoot--local--qa/managedresource-shoot-core-metrics-server delete superseded:managedresource-shoot-core-metrics-server-<checksum>",
	"shoot.qa.system_components runtime Secret shoot--local--qa/managedresource-shoot-core-vpn-shoot delete superseded:managedresource-shoot-core-vpn-shoot-<checksum>",
}

// apiServerReplacements are the upgrade decisions of docs/fidelity/kube-apiserver.md and
// docs/fidelity/virtual-garden-kube-apiserver.md: the virtual garden's kube-apiserver is selected
// by app=kubernetes as gardener-operator selects it (an immutable selector), and the API servers'
// admission configuration is a unique ConfigMap, which supersedes the old one.
var apiServerReplacements = []string{
	"garden.local.virtual_garden_kube_apiserver runtime ConfigMap garden/virtual-garden-kube-apiserver-admission-config delete superseded:kube-apiserver-admission-config-<checksum>",
	"garden.local.virtual_garden_kube_apiserver runtime Deployment garden/virtual-garden-kube-apiserver replace immutable_field:.spec.selector",
	"shoot.dev.kube_apiserver runtime ConfigMap shoot--local--dev/kube-apiserver-admission-config delete superseded:kube-apiserver-admission-config-<checksum>",
	"shoot.ops.kube_apiserver runtime ConfigMap shoot--local--ops/kube-apiserver-admission-config delete superseded:kube-apiserver-admission-config-<checksum>",
	"shoot.qa.kube_apiserver runtime ConfigMap shoot--local--qa/kube-apiserver-admission-config delete superseded:kube-apiserver-admission-config-<checksum>",
}

// contractReplacements are the upgrade decisions of docs/fidelity/istio.md and
// docs/fidelity/vpn-seed-server.md: the Istio gateways' ServiceAccount is named
// istio-ingressgateway-service-account now, which supersedes the old one, and the highly
// available vpn-seed-server StatefulSet names no governing Service (spec.serviceName is
// immutable). The local seed has one zone: no zonal gateway namespace is renamed here.
var contractReplacements = []string{
	"garden.local.istio runtime ServiceAccount virtual-garden-istio-ingress/istio-ingressgateway delete superseded:istio-ingressgateway-service-account",
	"seed.local.istio runtime ServiceAccount istio-ingress/istio-ingressgateway delete superseded:istio-ingressgateway-service-account",
	"shoot.dev.vpn_seed_server runtime StatefulSet shoot--local--dev/vpn-seed-server replace immutable_field:.spec.serviceName",
}

// TestLandscapeAppliedByAnEarlierVersionUpgrades applies landscapes/local as the version before
// issue 27 rendered it (server-side apply as the engine's field manager, recorded in the state as
// that version recorded it), then plans with the current version: the plan replaces or deletes
// exactly the objects the upgrade decisions name, with their reasons, and changes everything else
// in place. The apply that follows (allowing the protected ones) converges: a second plan has
// nothing to do.
func TestLandscapeAppliedByAnEarlierVersionUpgrades(t *testing.T) {
	if testing.Short() {
		t.Skip("applies a whole landscape")
	}
	c := localcluster.Start(t, localcluster.Topology(0)...)
	t.Setenv("KUBECONFIG", c.Kubeconfig())
	dir := localLandscape(t)

	applyEarlierRendering(t, c)

	now := time.Now()
	pl := planAt(t, dir, now)
	want := append(append(append(append([]string{}, upgradeReplacements...), contractReplacements...), apiServerReplacements...), identityReplacements...)
	sort.Strings(want)
	assert.Equal(t, want, replacementsOf(pl), "%s", planText(t, pl))
	// The fixture is the earlier rendering: what changed since changes in place, among it the
	// kube-controller-manager command lines that are Gardener's since issue 27.
	assert.Contains(t, updatesOf(pl), "shoot.dev.kube_controller_manager runtime Deployment shoot--local--dev/kube-controller-manager")
	t.Logf("upgrade plan: %+v", pl.Summary)

	// The decisions are made: the apply may delete and replace what they name, protected or not.
	var allow []string
	for _, comp := range pl.Components {
		for _, o := range comp.Objects {
			if o.Action == plan.Replace || o.Action == plan.Delete {
				allow = append(allow, comp.Address)
				break
			}
		}
	}
	applyAt(t, dir, now, allow...)

	// The shoots' resource managers bootstrapped, as gardenlet's would: the ManagedResource with
	// their ClusterRoleBinding in the shoot is new (docs/fidelity/gardener-resource-manager.md). With
	// their tokens there, the next plan switches them to the token and deletes the bootstrap as
	// superseded, and nothing else; after it nothing is left to do.
	switched := planAt(t, dir, time.Now())
	for _, comp := range switched.Components {
		for _, o := range comp.Objects {
			if o.Action == plan.NoOp || o.Action == plan.Read {
				continue
			}
			assert.Regexp(t, `^shoot\.[a-z]+\.gardener_resource_manager(_bootstrap)?$`, comp.Address, "only the resource managers leave their bootstrap:\n%s", planText(t, switched))
			if o.Action == plan.Delete {
				assert.Equal(t, plan.ReasonSuperseded, o.Reason.Kind, "%s %s", o.Ref.Kind, o.Ref.Name)
			}
		}
	}
	applyAt(t, dir, time.Now())
	assertNoChanges(t, dir)
}

// contentChecksum is the suffix of a content-named ConfigMap or Secret (<name>-<checksum>).
var contentChecksum = regexp.MustCompile(`-[0-9a-f]{8}$`)

// replacementsOf lists the objects pl replaces or deletes as "<component> <cluster> <Kind>
// <namespace>/<name> <action> <reason>", sorted.
func replacementsOf(pl *plan.Plan) []string {
	out := []string{}
	for _, comp := range pl.Components {
		for _, o := range comp.Objects {
			if o.Action != plan.Replace && o.Action != plan.Delete {
				continue
			}
			reason := string(o.Reason.Kind)
			if o.Reason.Detail != "" {
				// Content-named successors end in a checksum of their content, which moves with
				// any change of it: the decision is the name they supersede.
				reason += ":" + contentChecksum.ReplaceAllString(o.Reason.Detail, "-<checksum>")
			}
			out = append(out, strings.Join([]string{comp.Address, o.Cluster, o.Ref.Kind, o.Ref.Namespace + "/" + o.Ref.Name, string(o.Action), reason}, " "))
		}
	}
	sort.Strings(out)
	return out
}

// updatesOf lists the objects pl changes in place as "<component> <cluster> <Kind> <namespace>/<name>".
func updatesOf(pl *plan.Plan) []string {
	var out []string
	for _, comp := range pl.Components {
		for _, o := range comp.Objects {
			if o.Action == plan.Update {
				out = append(out, strings.Join([]string{comp.Address, o.Cluster, o.Ref.Kind, o.Ref.Namespace + "/" + o.Ref.Name}, " "))
			}
		}
	}
	return out
}

// earlierFile is one component's file of the earlier rendering.
type earlierFile struct {
	cluster string // the landscape's cluster block: runtime or virtual_garden
	name    string // NNNN-<component address>.yaml
	data    []byte
}

// readEarlierRendering reads the fixture's files in the order the earlier version applied them
// (the number prefix counts across clusters).
func readEarlierRendering(t *testing.T) []earlierFile {
	t.Helper()
	f, err := os.Open(earlierRendering)
	require.NoError(t, err)
	defer f.Close()
	gz, err := gzip.NewReader(f)
	require.NoError(t, err)
	tr := tar.NewReader(gz)
	var files []earlierFile
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(tr, 8<<20))
		require.NoError(t, err)
		files = append(files, earlierFile{cluster: path.Dir(h.Name), name: path.Base(h.Name), data: data})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	require.NotEmpty(t, files)
	return files
}

// applyEarlierRendering applies the fixture as the earlier version's apply did, resolving the
// values it left to the live objects (load balancer addresses, Shoot UIDs) as that apply did, and
// records every object in the landscape's state under the component that rendered it.
func applyEarlierRendering(t *testing.T, c *localcluster.Cluster) {
	t.Helper()
	ctx := context.Background()
	planes := map[string]*localcluster.Plane{
		"runtime":        c.Plane(localcluster.RuntimePlane),
		"virtual_garden": c.Plane(localcluster.VirtualGardenPlane),
	}
	dyns, mappers := map[string]dynamic.Interface{}, map[string]*restmapper.DeferredDiscoveryRESTMapper{}
	for name, p := range planes {
		dyns[name] = dyn(t, p)
		dc, err := discovery.NewDiscoveryClientForConfig(p.RESTConfig())
		require.NoError(t, err)
		mappers[name] = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	}
	lookup := func(ref render.LiveRef) (*unstructured.Unstructured, error) {
		d, ok := dyns[ref.Cluster]
		if !ok {
			return nil, nil
		}
		u, err := d.Resource(ref.GVR()).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return u, err
	}

	st := state.Empty("local")
	for _, f := range readEarlierRendering(t) {
		decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(f.data), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := decoder.Decode(&u.Object); err != nil {
				require.ErrorIs(t, err, io.EOF, "%s/%s", f.cluster, f.name)
				break
			}
			if len(u.Object) == 0 {
				continue
			}
			component := u.GetAnnotations()[inventory.ComponentAnnotation]
			require.NotEmpty(t, component, "%s/%s: %s %s carries its component", f.cluster, f.name, u.GetKind(), u.GetName())
			applied := applyEarlierObject(t, dyns[f.cluster], mappers[f.cluster], lookup, u)
			comp := st.Components[component]
			if comp == nil {
				comp = &state.Component{Address: component}
				st.Components[component] = comp
			}
			gvk := applied.GroupVersionKind()
			comp.Objects = append(comp.Objects, state.Object{Cluster: f.cluster, Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind,
				Namespace: applied.GetNamespace(), Name: applied.GetName(), UID: string(applied.GetUID())})
		}
	}
	runtime := kubernetes.NewForConfigOrDie(planes["runtime"].RESTConfig())
	backend := state.NewKubernetes(runtime, "kube-system", "local")
	require.NoError(t, backend.Write(ctx, st))

	// The landscape ran: the shoots' resource managers had requested their tokens (here the local
	// control plane's stand-in writes them).
	require.Eventually(t, func() bool {
		secrets, err := runtime.CoreV1().Secrets("").List(ctx, metav1.ListOptions{LabelSelector: "resources.gardener.cloud/purpose=token-requestor,resources.gardener.cloud/class=shoot"})
		if err != nil || len(secrets.Items) == 0 {
			return false
		}
		for _, s := range secrets.Items {
			if len(s.Data["token"]) == 0 {
				return false
			}
		}
		return true
	}, time.Minute, 500*time.Millisecond, "the token requestor's stand-in writes the shoots' tokens")
}

// applyEarlierObject applies one object of the earlier rendering with the engine's field manager,
// waiting for what it needs: its kind served (a CRD applied just before), the live values it
// names (a load balancer's address, a Shoot's UID).
func applyEarlierObject(t *testing.T, d dynamic.Interface, mapper *restmapper.DeferredDiscoveryRESTMapper, lookup render.LiveLookup, u *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	ctx := context.Background()
	gvk := u.GroupVersionKind()
	var applied *unstructured.Unstructured
	var last error
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		obj, resolved, err := render.ResolveLiveObject(u.Object, lookup)
		if err != nil {
			return false, err
		}
		if !resolved {
			last = errors.New("live values not there yet")
			return false, nil
		}
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			mapper.Reset()
			last = err
			return false, nil
		}
		ri := d.Resource(mapping.Resource)
		var target dynamic.ResourceInterface = ri
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			target = ri.Namespace(u.GetNamespace())
		}
		applied, err = target.Apply(ctx, u.GetName(), &unstructured.Unstructured{Object: obj}, metav1.ApplyOptions{FieldManager: inventory.FieldManager, Force: true})
		if err != nil {
			last = err // a webhook or an API service still starting
			return false, nil
		}
		return true, nil
	})
	require.NoError(t, err, "%s %s/%s: %v", gvk.Kind, u.GetNamespace(), u.GetName(), last)
	return applied
}
