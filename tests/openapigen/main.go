// Command openapigen regenerates the embedded OpenAPI v3 documents of the built-in Kubernetes
// group versions (engine/openapi/builtin). Run it from the repository root:
//
//	go run ./tests/openapigen                     # starts a local API server (bin/)
//	go run ./tests/openapigen -kubeconfig FILE    # reads an existing cluster
//
// It keeps every "api/v1" and "apis/<group>/<version>" document the server serves, except the
// groups of CustomResourceDefinitions and of aggregated APIServices, compacts each
// (openapi.Compact), writes it gzipped as builtin/<path>.json.gz and records the hash the server
// announced in builtin/index.json. The output is deterministic for a given server build.
//
// It lives under tests/, beside the local control plane it starts, because nothing the gardener
// binary compiles may import tests/ (tests/layers).
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/declarative-gardener/gardener/engine/openapi"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "cluster to read; empty starts a local API server from bin/")
	kubeContext := flag.String("context", "", "kubeconfig context")
	out := flag.String("out", "engine/openapi/builtin", "output directory")
	flag.Parse()
	if err := run(*kubeconfig, *kubeContext, *out); err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
}

// groupVersionPath matches the documents of one group version.
var groupVersionPath = regexp.MustCompile(`^(api/v1|apis/[^/]+/[^/]+)$`)

func run(kubeconfig, kubeContext, out string) error {
	ctx := context.Background()
	var cfg *rest.Config
	if kubeconfig == "" {
		c, err := localcluster.Launch(ctx, localcluster.Options{
			Planes: []localcluster.PlaneOptions{{Name: localcluster.RuntimePlane}},
			Log:    os.Stderr,
		})
		if err != nil {
			return fmt.Errorf("local cluster: %w", err)
		}
		defer func() { _ = c.Stop() }()
		cfg = c.Plane(localcluster.RuntimePlane).RESTConfig()
	} else {
		var err error
		cfg, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
			&clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig},
			&clientcmd.ConfigOverrides{CurrentContext: kubeContext}).ClientConfig()
		if err != nil {
			return fmt.Errorf("kubeconfig: %w", err)
		}
	}
	excluded, err := nonBuiltinGroups(ctx, cfg)
	if err != nil {
		return err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	paths, err := dc.OpenAPIV3().Paths()
	if err != nil {
		return fmt.Errorf("openapi index: %w", err)
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	index := map[string]string{}
	names := make([]string, 0, len(paths))
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		if !groupVersionPath.MatchString(p) || excluded[groupOf(p)] {
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
	data, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "index.json"), append(data, '\n'), 0o644)
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
