package localcluster

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/crds"
)

//go:embed crds/gardener-api/*.yaml
var crdFiles embed.FS

// fieldManager owns what the helper applies, so a later apply by the engine under its own manager
// shows up as a conflict rather than silently taking fields over.
const fieldManager = "localcluster"

// GardenerAPICRDs returns the CRDs every GardenerAPI plane installs beside gardener-apiserver:
// gardener-operator's kinds, which are CRDs in Gardener too (see crds/README.md).
func GardenerAPICRDs() [][]byte { return mustReadCRDDir("crds/gardener-api") }

// SeedCRDs returns the CRDs a seed or runtime cluster carries (etcd-druid's Etcd,
// gardener-resource-manager's ManagedResource, the extensions.gardener.cloud kinds, ...): those
// the catalog's components install (components/crds). They are not installed by default: in a
// landscape the components that own them install them; tests install single ones as fixtures.
func SeedCRDs() [][]byte {
	var docs [][]byte
	for _, name := range crds.Names() {
		doc, err := crds.YAML(name)
		if err != nil {
			panic(fmt.Sprintf("embedded CRD %s: %v", name, err)) // Names lists only embedded files
		}
		docs = append(docs, doc)
	}
	return docs
}

// SeedCRD returns the CRD of one resource, e.g. "etcds.druid.gardener.cloud".
func SeedCRD(name string) ([]byte, error) { return crds.YAML(name) }

func mustReadCRDDir(dir string) [][]byte {
	entries, err := fs.ReadDir(crdFiles, dir)
	if err != nil {
		panic(fmt.Sprintf("embedded CRD directory %s: %v", dir, err)) // the embed pattern guarantees it
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	docs := make([][]byte, 0, len(names))
	for _, name := range names {
		data, err := crdFiles.ReadFile(path.Join(dir, name))
		if err != nil {
			panic(fmt.Sprintf("embedded CRD %s: %v", name, err))
		}
		docs = append(docs, data)
	}
	return docs
}

func decodeCRD(doc []byte) (*apiextensionsv1.CustomResourceDefinition, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(doc, crd); err != nil {
		return nil, fmt.Errorf("crd: %w", err)
	}
	if crd.Name == "" {
		return nil, fmt.Errorf("crd without a name")
	}
	return crd, nil
}

// ApplyCRDs server-side applies CustomResourceDefinitions and waits until each is Established.
func ApplyCRDs(ctx context.Context, cfg *rest.Config, docs [][]byte) error {
	client, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("apiextensions client: %w", err)
	}
	names := make([]string, 0, len(docs))
	for _, doc := range docs {
		crd, err := decodeCRD(doc)
		if err != nil {
			return err
		}
		crd.APIVersion = apiextensionsv1.SchemeGroupVersion.String()
		crd.Kind = "CustomResourceDefinition"
		body, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return fmt.Errorf("crd %s: %w", crd.Name, err)
		}
		force := true
		if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Patch(ctx, crd.Name, types.ApplyPatchType, body,
			metav1.PatchOptions{FieldManager: fieldManager, Force: &force}); err != nil {
			return fmt.Errorf("crd %s: %w", crd.Name, err)
		}
		names = append(names, crd.Name)
	}
	for _, name := range names {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			crd, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, nil //nolint:nilerr // retried until the timeout
			}
			return crdEstablished(crd), nil
		})
		if err != nil {
			return fmt.Errorf("crd %s not established: %w", name, err)
		}
	}
	return nil
}

func crdEstablished(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}
