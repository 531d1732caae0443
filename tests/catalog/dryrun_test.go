package catalog

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/crds"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// goldenObject is one object of a golden render file and the cluster it is rendered for.
type goldenObject struct {
	file    string
	cluster string
	object  *unstructured.Unstructured
}

// readGolden reads every golden render file of the component packages: the YAML files of single
// components and the composite goldens (.txt) of the garden, seed and shoot blocks, whose parts
// hold the objects of many components.
func readGolden(t *testing.T) []goldenObject {
	t.Helper()
	var out []goldenObject
	for _, f := range goldenRenderFiles(t) {
		var keep func(renderedDocument) bool
		if strings.HasSuffix(f, ".txt") {
			// Of the composite goldens, the Gardener API objects: their other objects hold the
			// markers of values known only at apply (${generated:...}, ${live:...}), which only
			// an apply resolves; tests/garden applies those.
			keep = func(doc renderedDocument) bool {
				return planeFor(doc.cluster) == localcluster.VirtualGardenPlane && !bytes.Contains(doc.yaml, []byte("${"))
			}
		}
		out = append(out, readObjects(t, f, keep)...)
	}
	require.NotEmpty(t, out)
	return out
}

// goldenRenderFiles lists the golden render files of the component packages: the YAML files of
// single components and the composite goldens (.txt) of the garden, seed and shoot blocks.
func goldenRenderFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"../../components/*/testdata/*.yaml", "../../components/*/testdata/*/*.yaml", "../../components/*/testdata/*.txt"} {
		more, err := filepath.Glob(pattern)
		require.NoError(t, err)
		files = append(files, more...)
	}
	return files
}

// renderedDocument is one rendered object of a golden file with the cluster it is rendered for.
type renderedDocument struct {
	cluster string
	yaml    []byte
}

// renderedDocuments splits a golden file into its rendered objects: the documents that begin with
// a "# cluster: NAME" line. Files without one (chart sources, inputs) have none; in composite
// goldens, "### part" headers and the comments that stand for generated secrets and copies are
// skipped.
func renderedDocuments(data []byte) ([]renderedDocument, error) {
	var docs []renderedDocument
	var current *renderedDocument
	flush := func() {
		if current != nil {
			docs = append(docs, *current)
			current = nil
		}
	}
	for _, line := range strings.SplitAfter(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "# cluster: "):
			flush()
			cluster, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "# cluster: ")), ",")
			current = &renderedDocument{cluster: cluster}
		case strings.HasPrefix(line, "### ") || strings.TrimRight(line, "\n") == "---":
			flush()
		case current != nil:
			current.yaml = append(current.yaml, line...)
		}
	}
	flush()
	for _, d := range docs {
		if len(bytes.TrimSpace(d.yaml)) == 0 {
			return nil, fmt.Errorf("an empty document for cluster %s", d.cluster)
		}
	}
	return docs, nil
}

// planeFor maps a golden file's cluster names to the local control plane's planes: components
// name the virtual garden "virtual" or "virtual_garden" in their tests, everything else runs in
// the runtime cluster.
func planeFor(cluster string) string {
	if strings.Contains(cluster, "virtual") {
		return localcluster.VirtualGardenPlane
	}
	return localcluster.RuntimePlane
}

type target struct {
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

func connect(t *testing.T, p *localcluster.Plane) target {
	cfg := p.RESTConfig()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	return target{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

// apply server-side applies obj, for real or as a dry-run.
func (tg target) apply(ctx context.Context, obj *unstructured.Unstructured, dryRun bool) error {
	gvk := obj.GroupVersionKind()
	mapping, err := tg.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		tg.mapper.Reset()
		if mapping, err = tg.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			return fmt.Errorf("%s: %w", gvk, err)
		}
	}
	data, err := obj.MarshalJSON()
	if err != nil {
		return err
	}
	opts := metav1.PatchOptions{FieldManager: "catalog-test", Force: ptr(true)}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	ri := tg.dyn.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		_, err = ri.Namespace(obj.GetNamespace()).Patch(ctx, obj.GetName(), types.ApplyPatchType, data, opts)
	} else {
		_, err = ri.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, opts)
	}
	return err
}

func ptr[T any](v T) *T { return &v }

// admissionLookups ranks the Gardener API kinds that gardener-apiserver's admission plugins look
// up when they admit another object (a ControllerRegistration's ControllerDeployment, the
// registrations of a Seed's or Shoot's extension types, a Shoot's CloudProfile, Project, binding
// and Seed, a binding's Secret), in the order they depend on each other. Such objects are applied
// for real before anything is dry-run.
var admissionLookups = map[string]int{
	"Secret": 0, "WorkloadIdentity": 0,
	"ControllerDeployment":   1,
	"ControllerRegistration": 2,
	"CloudProfile":           3, "ExposureClass": 3, "Project": 3, "Quota": 3,
	"SecretBinding": 4, "CredentialsBinding": 4,
	"Seed": 5,
}

// inFileContext are the kinds each golden file brings for itself (registrationContext): two files
// may declare one name or one registered type differently.
var inFileContext = map[string]bool{"ControllerRegistration": true, "Seed": true}

// TestGoldenRendersAreAccepted applies the CRDs the catalog ships and the Namespaces the golden
// files use for real, then dry-runs every other rendered object: the API server must accept each
// one as it is, with its schema validation, defaulting and admission. On the virtual garden that
// is the real gardener-apiserver with its admission plugins, which look up other objects: the
// Gardener API objects those lookups need (from the goldens and testdata/fixtures.yaml) are
// applied for real first, in the order admission makes them depend on each other.
func TestGoldenRendersAreAccepted(t *testing.T) {
	c := localcluster.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	targets := map[string]target{}
	for _, name := range []string{localcluster.RuntimePlane, localcluster.VirtualGardenPlane} {
		targets[name] = connect(t, c.Plane(name))
	}
	objects := readGolden(t)
	fixtures := readFixtures(t)
	all := append(append([]goldenObject(nil), objects...), fixtures...)

	// The catalog's CRDs, and those rendered in golden files (a chart's own), first and for real:
	// custom resources can only be dry-run once their kind is served.
	for _, name := range crds.Names() {
		doc, err := crds.YAML(name)
		require.NoError(t, err)
		u := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal(doc, &u.Object))
		require.NoError(t, targets[localcluster.RuntimePlane].apply(ctx, u, false), name)
	}
	namespaces := map[string]map[string]bool{}
	for _, o := range all {
		plane := planeFor(o.cluster)
		if o.object.GetKind() == "CustomResourceDefinition" {
			require.NoError(t, targets[plane].apply(ctx, o.object, false), "%s: CRD %s", o.file, o.object.GetName())
		}
		if namespaces[plane] == nil {
			namespaces[plane] = map[string]bool{}
		}
		if ns := o.object.GetNamespace(); ns != "" {
			namespaces[plane][ns] = true
		}
		if o.object.GetKind() == "Namespace" {
			namespaces[plane][o.object.GetName()] = true
		}
	}
	for plane, nss := range namespaces {
		names := make([]string, 0, len(nss))
		for ns := range nss {
			names = append(names, ns)
		}
		sort.Strings(names)
		for _, ns := range names {
			u := &unstructured.Unstructured{}
			u.SetAPIVersion("v1")
			u.SetKind("Namespace")
			u.SetName(ns)
			require.NoError(t, targets[plane].apply(ctx, u, false), "namespace %s in %s", ns, plane)
		}
	}
	waitForServiceAccounts(ctx, t, c, namespaces[localcluster.RuntimePlane])

	virtual := targets[localcluster.VirtualGardenPlane]
	// What admission looks up, for real, in the order of its dependencies: all but the
	// ControllerRegistrations and Seeds, which each golden file brings in a context of its own.
	var lookups []goldenObject
	for _, o := range all {
		kind := o.object.GetKind()
		if _, ok := admissionLookups[kind]; ok && !inFileContext[kind] && planeFor(o.cluster) == localcluster.VirtualGardenPlane {
			lookups = append(lookups, o)
		}
	}
	sort.SliceStable(lookups, func(i, j int) bool {
		return admissionLookups[lookups[i].object.GetKind()] < admissionLookups[lookups[j].object.GetKind()]
	})
	for _, o := range lookups {
		require.NoError(t, virtual.apply(ctx, o.object, false),
			"%s: %s %s/%s, looked up by admission", o.file, o.object.GetKind(), o.object.GetNamespace(), o.object.GetName())
	}

	kinds := map[string]bool{}
	for _, file := range goldenFiles(objects) {
		// A golden file is a landscape of its own: its ControllerRegistrations (or, for the Seeds
		// and Shoots of the composite goldens, the fixtures' registrations and seed) are the
		// garden's while it is dry-run. Two files may register one kind and type; admission
		// allows one primary registration per garden.
		for _, o := range registrationContext(file, fixtures) {
			require.NoError(t, ensureRegistered(ctx, virtual, o.object), "%s: %s %s, the file's context", o.file, o.object.GetKind(), o.object.GetName())
		}
		for _, o := range file {
			kinds[o.object.GetAPIVersion()+"/"+o.object.GetKind()] = true
			plane := planeFor(o.cluster)
			err := targets[plane].apply(ctx, o.object, true)
			assert.NoError(t, err, "%s: %s %s/%s on %s", o.file, o.object.GetKind(), o.object.GetNamespace(), o.object.GetName(), plane)
		}
	}
	for _, kind := range []string{"core.gardener.cloud/v1beta1/Shoot", "core.gardener.cloud/v1beta1/Seed", "core.gardener.cloud/v1beta1/ControllerRegistration"} {
		assert.True(t, kinds[kind], "the goldens hold no %s: the real API never saw one", kind)
	}
	t.Logf("dry-ran %d objects of %d kinds from the golden render files", len(objects), len(kinds))
}

// goldenFiles groups the objects by golden file, in file order.
func goldenFiles(objects []goldenObject) [][]goldenObject {
	var files [][]goldenObject
	for _, o := range objects {
		if n := len(files); n > 0 && files[n-1][0].file == o.file {
			files[n-1] = append(files[n-1], o)
			continue
		}
		files = append(files, []goldenObject{o})
	}
	return files
}

// registrationContext returns the objects a golden file's Gardener objects need to exist for real:
// its own ControllerRegistrations, and for a file with Seeds or Shoots the fixtures'
// registrations, cloud profiles and seeds (registrations first).
func registrationContext(file, fixtures []goldenObject) []goldenObject {
	var needed []goldenObject
	usesFixtures := false
	for _, o := range file {
		if planeFor(o.cluster) != localcluster.VirtualGardenPlane {
			continue
		}
		switch o.object.GetKind() {
		case "ControllerRegistration":
			needed = append(needed, o)
		case "Seed", "Shoot":
			usesFixtures = true
		}
	}
	if !usesFixtures {
		return needed
	}
	for _, kind := range []string{"ControllerRegistration", "CloudProfile", "Seed"} {
		for _, o := range fixtures {
			if o.object.GetKind() == kind {
				needed = append(needed, o)
			}
		}
	}
	return needed
}

// ensureRegistered applies obj for real; for a ControllerRegistration it first deletes every other
// registration that primarily registers one of its kinds and types (deleteRegistration).
func ensureRegistered(ctx context.Context, tg target, obj *unstructured.Unstructured) error {
	if obj.GetKind() == "ControllerRegistration" {
		registrations := tg.dyn.Resource(schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "controllerregistrations"})
		live, err := registrations.List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		wanted := primaryResources(obj)
		for _, other := range live.Items {
			if other.GetName() == obj.GetName() {
				continue
			}
			for r := range primaryResources(&other) {
				if wanted[r] {
					if err := deleteRegistration(ctx, tg, other.GetName()); err != nil {
						return err
					}
					break
				}
			}
		}
	}
	return tg.apply(ctx, obj, false)
}

// deleteRegistration deletes a ControllerRegistration and waits until it is gone. The virtual
// garden's gardener-controller-manager holds a registration by its finalizer while
// ControllerInstallations refer to it, and keeps the installations of a registration in deletion
// on the seeds that need its kinds (pkg/controllermanager/controller/controllerregistration at
// Gardener v1.120.0): the installations go too, as an operator replacing the registration deletes
// them (no gardenlet holds them here).
func deleteRegistration(ctx context.Context, tg target, name string) error {
	core := func(resource string) dynamic.ResourceInterface {
		return tg.dyn.Resource(schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: resource})
	}
	if err := core("controllerregistrations").Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete registration %s: %w", name, err)
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		installations, err := core("controllerinstallations").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, ci := range installations.Items {
			if ref, _, _ := unstructured.NestedString(ci.Object, "spec", "registrationRef", "name"); ref == name {
				if err := core("controllerinstallations").Delete(ctx, ci.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					return false, fmt.Errorf("delete installation %s of registration %s: %w", ci.GetName(), name, err)
				}
			}
		}
		_, err = core("controllerregistrations").Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

// primaryResources lists the "Kind/type" pairs a ControllerRegistration registers primarily.
func primaryResources(obj *unstructured.Unstructured) map[string]bool {
	out := map[string]bool{}
	resources, _, _ := unstructured.NestedSlice(obj.Object, "spec", "resources")
	for _, r := range resources {
		m, _ := r.(map[string]any)
		if primary, ok := m["primary"].(bool); ok && !primary {
			continue
		}
		out[fmt.Sprint(m["kind"])+"/"+fmt.Sprint(m["type"])] = true
	}
	return out
}

// readFixtures reads testdata/fixtures.yaml: the objects admission looks up that no golden renders.
func readFixtures(t *testing.T) []goldenObject {
	t.Helper()
	return readObjects(t, "testdata/fixtures.yaml", nil)
}

// readObjects reads the rendered objects of one file (renderedDocuments), those keep accepts when
// it is not nil.
func readObjects(t *testing.T, file string, keep func(renderedDocument) bool) []goldenObject {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	docs, err := renderedDocuments(data)
	require.NoError(t, err, file)
	var out []goldenObject
	for i, doc := range docs {
		if keep != nil && !keep(doc) {
			continue
		}
		m := map[string]any{}
		require.NoError(t, yaml.Unmarshal(doc.yaml, &m), "%s document %d", file, i+1)
		out = append(out, goldenObject{file: file, cluster: doc.cluster, object: &unstructured.Unstructured{Object: m}})
	}
	return out
}

// waitForServiceAccounts waits until every namespace has its default ServiceAccount, without
// which pods (and so workloads' dry-runs) are refused.
func waitForServiceAccounts(ctx context.Context, t *testing.T, c *localcluster.Cluster, nss map[string]bool) {
	cs, err := c.Plane(localcluster.RuntimePlane).Clientset()
	require.NoError(t, err)
	for ns := range nss {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return err == nil, err
		})
		require.NoError(t, err, "default ServiceAccount of %s", ns)
	}
}
