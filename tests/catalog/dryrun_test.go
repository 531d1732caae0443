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

// readGolden reads every golden render file of the component packages.
func readGolden(t *testing.T) []goldenObject {
	t.Helper()
	files, err := filepath.Glob("../../components/*/testdata/*.yaml")
	require.NoError(t, err)
	more, err := filepath.Glob("../../components/*/testdata/*/*.yaml")
	require.NoError(t, err)
	files = append(files, more...)
	var out []goldenObject
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		if !bytes.HasPrefix(data, []byte("# cluster: ")) {
			continue // chart sources and other inputs, not rendered output
		}
		for i, doc := range bytes.Split(data, []byte("\n---\n")) {
			line, _, _ := bytes.Cut(doc, []byte("\n"))
			cluster, _, _ := strings.Cut(strings.TrimPrefix(string(line), "# cluster: "), ",")
			m := map[string]any{}
			require.NoError(t, yaml.Unmarshal(doc, &m), "%s document %d", f, i+1)
			out = append(out, goldenObject{file: f, cluster: cluster, object: &unstructured.Unstructured{Object: m}})
		}
	}
	require.NotEmpty(t, out)
	return out
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

// TestGoldenRendersAreAccepted applies the CRDs the catalog ships and the Namespaces the golden
// files use for real, then dry-runs every other rendered object: the API server must accept each
// one as it is, with its schema validation, defaulting and admission.
func TestGoldenRendersAreAccepted(t *testing.T) {
	c := localcluster.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	targets := map[string]target{}
	for _, name := range []string{localcluster.RuntimePlane, localcluster.VirtualGardenPlane} {
		targets[name] = connect(t, c.Plane(name))
	}
	objects := readGolden(t)

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
	for _, o := range objects {
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

	kinds := map[string]bool{}
	for _, o := range objects {
		kinds[o.object.GetAPIVersion()+"/"+o.object.GetKind()] = true
		plane := planeFor(o.cluster)
		err := targets[plane].apply(ctx, o.object, true)
		assert.NoError(t, err, "%s: %s %s/%s on %s", o.file, o.object.GetKind(), o.object.GetNamespace(), o.object.GetName(), plane)
	}
	t.Logf("dry-ran %d objects of %d kinds from the golden render files", len(objects), len(kinds))
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
