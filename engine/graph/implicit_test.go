package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/config"
)

// objects parses YAML documents given one per string.
func objects(t *testing.T, docs ...string) []*unstructured.Unstructured {
	t.Helper()
	out := make([]*unstructured.Unstructured, len(docs))
	for i, d := range docs {
		m := map[string]any{}
		if err := yaml.Unmarshal([]byte(d), &m); err != nil {
			t.Fatal(err)
		}
		out[i] = &unstructured.Unstructured{Object: m}
	}
	return out
}

const (
	etcdCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: etcds.druid.gardener.cloud}
spec: {group: druid.gardener.cloud, names: {kind: Etcd, plural: etcds}}`
	etcdInGarden = `apiVersion: druid.gardener.cloud/v1alpha1
kind: Etcd
metadata: {name: main, namespace: garden}`
	gardenNamespace = `apiVersion: v1
kind: Namespace
metadata: {name: garden}`
	configMapInGarden = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: garden}`
	configMapInOther = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: other}`
	clusterRole = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: garden}`
	// lookalike has the CRD's kind in another group: it needs no CRD of this landscape.
	lookalike = `apiVersion: example.com/v1
kind: Etcd
metadata: {name: main, namespace: other}`
)

const (
	crdReason = "its Etcd.druid.gardener.cloud objects need their CustomResourceDefinition"
	nsReason  = `its objects in namespace "garden" need the Namespace`
)

func TestImplicitEdges(t *testing.T) {
	tests := []struct {
		name     string
		rendered map[config.InstanceAddress][]string
		want     []string
	}{
		{
			name: "custom resources after their CRD",
			rendered: map[config.InstanceAddress][]string{
				"component.manifests.crds": {etcdCRD},
				`shoot.s["a"]`:             {etcdInGarden},
				`shoot.s["b"]`:             {etcdInGarden, etcdInGarden},
				"component.manifests.x":    {lookalike, clusterRole},
			},
			want: []string{
				`shoot.s["a"] -> component.manifests.crds (implicit): ` + crdReason,
				`shoot.s["b"] -> component.manifests.crds (implicit): ` + crdReason,
			},
		},
		{
			name: "namespaced objects after their Namespace; cluster-scoped objects and other namespaces are free",
			rendered: map[config.InstanceAddress][]string{
				"garden.g":              {gardenNamespace, configMapInGarden},
				"seed.a":                {configMapInGarden, configMapInOther, clusterRole},
				"component.manifests.x": {clusterRole, configMapInOther},
			},
			want: []string{`seed.a -> garden.g (implicit): ` + nsReason},
		},
		{
			name: "a component rendering the CRD, the Namespace and their objects needs no edge to itself",
			rendered: map[config.InstanceAddress][]string{
				"component.manifests.all": {etcdCRD, gardenNamespace, etcdInGarden, configMapInGarden},
			},
		},
		{
			name: "several providers, both kinds of edges",
			rendered: map[config.InstanceAddress][]string{
				"component.manifests.crds":  {etcdCRD},
				"component.manifests.crds2": {etcdCRD},
				"component.manifests.ns":    {gardenNamespace},
				"seed.a":                    {etcdInGarden},
			},
			want: []string{
				`seed.a -> component.manifests.crds (implicit): ` + crdReason,
				`seed.a -> component.manifests.crds2 (implicit): ` + crdReason,
				`seed.a -> component.manifests.ns (implicit): ` + nsReason,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 5 { // the same edges whatever order maps iterate in
				rendered := map[config.InstanceAddress][]*unstructured.Unstructured{}
				for inst, docs := range tt.rendered {
					rendered[inst] = objects(t, docs...)
				}
				got := ImplicitEdges(rendered)
				if len(tt.want) == 0 {
					assert.Empty(t, got)
					continue
				}
				assert.Equal(t, tt.want, edgeLines(got))
			}
		})
	}
}
