// Command openapigen regenerates what gardener knows of an empty cluster without asking one: the
// embedded OpenAPI v3 documents of the built-in Kubernetes group versions and of the Gardener API
// (engine/openapi/builtin), and the empty cluster offline plans read (engine/observe/
// emptycluster.json: server version, discovery and OpenAPI index, no objects). Run it from the
// repository root:
//
//	go run ./tests/openapigen                     # starts a local runtime and virtual garden (bin/)
//	go run ./tests/openapigen -kubeconfig FILE    # reads existing clusters (-context, -gardener-context)
//
// From the Kubernetes cluster it keeps every "api/v1" and "apis/<group>/<version>" document the
// server serves, except the groups of CustomResourceDefinitions and of aggregated APIServices.
// From the virtual garden it keeps the group versions the real gardener-apiserver serves through
// the aggregation layer (localcluster.GardenerAPIGroupVersions): the Gardener API is not defined
// by CRDs a landscape applies, so an offline plan can learn its kinds and schemas from nothing
// else. Gardener's CRD groups (extensions, resources, druid, operator) are left out: an empty
// cluster does not serve them, and a landscape that uses them renders their CRDs
// (components/crds), which is how a plan learns of them. It compacts each document
// (openapi.Compact), writes it gzipped as builtin/<path>.json.gz and records the hash the server
// announced in builtin/index.json. The output is deterministic for given server builds.
//
// It lives under tests/, beside the local control plane it starts, because nothing the gardener
// binary compiles may import tests/ (tests/layers).
package main

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/openapi"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "clusters to read; empty starts a local runtime and virtual garden from bin/")
	kubeContext := flag.String("context", "", "kubeconfig context of a Kubernetes cluster")
	gardenerContext := flag.String("gardener-context", "virtual-garden", "kubeconfig context of a virtual garden serving the Gardener API")
	out := flag.String("out", "engine/openapi/builtin", "output directory of the documents")
	empty := flag.String("empty-cluster", "engine/observe/emptycluster.json", "output file of the empty cluster")
	flag.Parse()
	if err := run(*kubeconfig, *kubeContext, *gardenerContext, *out, *empty); err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
}

// groupVersionPath matches the documents of one group version.
var groupVersionPath = regexp.MustCompile(`^(api/v1|apis/[^/]+/[^/]+)$`)

func run(kubeconfig, kubeContext, gardenerContext, out, emptyFile string) error {
	ctx := context.Background()
	var cfg, gardenerCfg *rest.Config
	if kubeconfig == "" {
		c, err := localcluster.Launch(ctx, localcluster.Options{
			Planes: []localcluster.PlaneOptions{
				{Name: localcluster.RuntimePlane},
				{Name: localcluster.VirtualGardenPlane, GardenerAPI: true},
			},
			Log: os.Stderr,
		})
		if err != nil {
			return fmt.Errorf("local cluster: %w", err)
		}
		defer func() { _ = c.Stop() }()
		cfg = c.Plane(localcluster.RuntimePlane).RESTConfig()
		gardenerCfg = c.Plane(localcluster.VirtualGardenPlane).RESTConfig()
	} else {
		var err error
		if cfg, err = loadConfig(kubeconfig, kubeContext); err != nil {
			return err
		}
		if gardenerCfg, err = loadConfig(kubeconfig, gardenerContext); err != nil {
			return err
		}
	}
	excluded, err := nonBuiltinGroups(ctx, cfg)
	if err != nil {
		return err
	}
	gardenerGroups := map[string]bool{}
	for _, gv := range localcluster.GardenerAPIGroupVersions {
		gardenerGroups[gv.Group] = true
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	index := map[string]string{}
	builtin := func(group string) bool { return !excluded[group] }
	if err := writeDocuments(cfg, out, builtin, index); err != nil {
		return err
	}
	gardener := func(group string) bool { return gardenerGroups[group] }
	if err := writeDocuments(gardenerCfg, out, gardener, index); err != nil {
		return err
	}
	data, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "index.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	return writeEmptyCluster(ctx, emptyFile, index, []source{{cfg, builtin}, {gardenerCfg, gardener}})
}

func loadConfig(kubeconfig, kubeContext string) (*rest.Config, error) {
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: kubeContext}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s context %q: %w", kubeconfig, kubeContext, err)
	}
	return cfg, nil
}

// writeDocuments writes the compacted documents of the group versions keep selects by group and
// adds their hashes to index.
func writeDocuments(cfg *rest.Config, out string, keep func(group string) bool, index map[string]string) error {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	paths, err := dc.OpenAPIV3().Paths()
	if err != nil {
		return fmt.Errorf("openapi index: %w", err)
	}
	names := make([]string, 0, len(paths))
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		if !groupVersionPath.MatchString(p) || !keep(groupOf(p)) {
			continue
		}
		gv := paths[p]
		raw, err := gv.Schema("application/json")
		if err != nil {
			return fmt.Errorf("openapi %s: %w", p, err)
		}
		compact, err := openapi.Compact(raw)
		if err != nil {
			return fmt.Errorf("openapi %s: %w", p, err)
		}
		if err := writeGzip(filepath.Join(out, p+".json.gz"), compact); err != nil {
			return err
		}
		index[p] = hashOf(gv.ServerRelativeURL())
		fmt.Fprintf(os.Stderr, "%s: %d bytes compacted\n", p, len(compact))
	}
	return nil
}

// source is a cluster and the groups of it the empty cluster serves.
type source struct {
	cfg  *rest.Config
	keep func(group string) bool
}

// writeEmptyCluster records the empty cluster: the Kubernetes cluster's server version, the
// discovery of the kept groups as gardener's client reads it (engine/cluster: preferred versions,
// main resources), and the OpenAPI index of the embedded documents, as a recording of a cluster
// that holds no objects (observe.Recording.Empty).
func writeEmptyCluster(ctx context.Context, file string, index map[string]string, sources []source) error {
	rec := &observe.Recording{Empty: true, Resources: []observe.RecordedResource{}, OpenAPIIndex: map[string]string{}}
	for i, src := range sources {
		c, err := cluster.ConnectConfig(src.cfg, cluster.Options{NoDiskCache: true})
		if err != nil {
			return err
		}
		if i == 0 {
			if rec.ServerVersion, err = c.ServerVersion(ctx); err != nil {
				return err
			}
		}
		resources, err := c.Resources(ctx)
		if err != nil {
			return err
		}
		for _, r := range resources {
			if src.keep(r.Group) {
				rec.Resources = append(rec.Resources, observe.RecordedResource{
					Group: r.Group, Version: r.Version, Kind: r.Kind, Resource: r.Resource, Namespaced: r.Namespaced, Verbs: r.Verbs,
				})
			}
		}
	}
	for path, hash := range index {
		rec.OpenAPIIndex[path] = "/openapi/v3/" + path + "?hash=" + hash
	}
	// The order of snapshot files (observe.WriteSnapshot), so that a regeneration diffs cleanly.
	slices.SortFunc(rec.Resources, func(a, b observe.RecordedResource) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Resource, b.Resource))
	})
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rec); err != nil {
		return fmt.Errorf("empty cluster: %w", err)
	}
	return os.WriteFile(file, buf.Bytes(), 0o644)
}

func groupOf(path string) string {
	if path == "api/v1" {
		return ""
	}
	return strings.Split(path, "/")[1]
}

func hashOf(url string) string {
	_, q, _ := strings.Cut(url, "?hash=")
	q, _, _ = strings.Cut(q, "&")
	return q
}

// nonBuiltinGroups lists the groups served by CRDs or by aggregated (non-local) APIServices.
func nonBuiltinGroups(ctx context.Context, cfg *rest.Config) (map[string]bool, error) {
	groups := map[string]bool{}
	ext, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	crds, err := ext.ApiextensionsV1().CustomResourceDefinitions().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list crds: %w", err)
	}
	for _, crd := range crds.Items {
		groups[crd.Spec.Group] = true
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	apiServices, err := dyn.Resource(schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}).
		List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list apiservices: %w", err)
	}
	for _, s := range apiServices.Items {
		if svc, ok := s.Object["spec"].(map[string]any)["service"]; ok && svc != nil {
			group, _ := s.Object["spec"].(map[string]any)["group"].(string)
			groups[group] = true
		}
	}
	return groups, nil
}

func writeGzip(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(data); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(file, buf.Bytes(), 0o644)
}
