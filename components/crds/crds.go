// Package crds holds the CustomResourceDefinitions the catalog's components install: etcd-druid's
// Etcd, gardener-resource-manager's ManagedResource, the extensions.gardener.cloud kinds a seed
// carries, and the third-party kinds (VPA, Istio) the garden's components use. One file per CRD,
// named <group>_<plural>.yaml; see tests/localcluster/crds/README.md for how the Gardener ones
// were written from the API reference.
package crds

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

//go:embed *.yaml
var files embed.FS

// Names lists the embedded CRDs by name (<plural>.<group>), sorted.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".") // the embed pattern guarantees the directory
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		group, plural, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".yaml"), "_")
		if ok {
			out = append(out, plural+"."+group)
		}
	}
	sort.Strings(out)
	return out
}

// YAML returns the manifest of one CRD by name, e.g. "etcds.druid.gardener.cloud".
func YAML(name string) ([]byte, error) {
	plural, group, ok := strings.Cut(name, ".")
	if !ok {
		return nil, fmt.Errorf("crd %q: name is not <plural>.<group>", name)
	}
	data, err := files.ReadFile(group + "_" + plural + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("crd %q is not embedded: %w", name, err)
	}
	return data, nil
}

// Get returns one CRD, decoded strictly.
func Get(name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := YAML(name)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		return nil, fmt.Errorf("crd %q: %w", name, err)
	}
	if crd.Name != name {
		return nil, fmt.Errorf("crd file for %q holds %q", name, crd.Name)
	}
	return crd, nil
}
