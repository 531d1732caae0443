package diff

import (
	"encoding/json"
	"fmt"
	"iter"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/openapi"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// The Gardener rules are tested offline against gardener-apiserver's own OpenAPI documents
// (recorded from the local virtual garden, gardener_schemas_test.go) and, for the kinds that are
// CRDs in Gardener too (operator.gardener.cloud, extensions.gardener.cloud), the CRDs' schemas
// published the way kube-apiserver publishes a CRD's. They are deliberately not part of the live
// corpus (corpus_test.go), which runs against plain kube-apiserver kinds.

// standInSeedCRDs are the extensions.gardener.cloud kinds of the table (components/crds).
var standInSeedCRDs = []string{
	"backupbuckets.extensions.gardener.cloud", "backupentries.extensions.gardener.cloud",
	"containerruntimes.extensions.gardener.cloud", "controlplanes.extensions.gardener.cloud",
	"dnsrecords.extensions.gardener.cloud", "infrastructures.extensions.gardener.cloud",
	"networks.extensions.gardener.cloud", "operatingsystemconfigs.extensions.gardener.cloud",
	"workers.extensions.gardener.cloud",
}

// standInCRDs decodes the stand-in CRDs of the Gardener API and of the seed's extension kinds.
func standInCRDs(t testing.TB) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	docs := localcluster.GardenerAPICRDs()
	for _, name := range standInSeedCRDs {
		doc, err := localcluster.SeedCRD(name)
		require.NoError(t, err)
		docs = append(docs, doc)
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(docs))
	for _, doc := range docs {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		require.NoError(t, yaml.Unmarshal(doc, crd))
		out = append(out, crd)
	}
	return out
}

// standInFetcher serves OpenAPI v3 documents built from CRDs: one document per group version
// with a model per kind, as kube-apiserver publishes them (metadata left free-form here).
func standInFetcher(t testing.TB, crds []*apiextensionsv1.CustomResourceDefinition) staticFetcher {
	t.Helper()
	models := map[string]map[string]any{}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			raw, err := json.Marshal(v.Schema.OpenAPIV3Schema)
			require.NoError(t, err)
			var model map[string]any
			require.NoError(t, json.Unmarshal(raw, &model))
			props, _ := model["properties"].(map[string]any)
			if props == nil {
				props = map[string]any{}
				model["properties"] = props
			}
			props["apiVersion"] = map[string]any{"type": "string"}
			props["kind"] = map[string]any{"type": "string"}
			props["metadata"] = map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
			model["x-kubernetes-group-version-kind"] = []any{map[string]any{"group": crd.Spec.Group, "version": v.Name, "kind": crd.Spec.Names.Kind}}
			path := openapi.PathOf(schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name})
			if models[path] == nil {
				models[path] = map[string]any{}
			}
			models[path][fmt.Sprintf("test.%s.%s.%s", crd.Spec.Group, v.Name, crd.Spec.Names.Kind)] = model
		}
	}
	out := staticFetcher{}
	for path, m := range models {
		doc, err := json.Marshal(map[string]any{"components": map[string]any{"schemas": m}})
		require.NoError(t, err)
		out[path] = string(doc)
	}
	return out
}

// standInDiffer is a differ over the Gardener schemas: gardener-apiserver's embedded documents
// and the CRDs' of the other Gardener kinds.
func standInDiffer(t testing.TB) *Differ {
	fetcher := standInFetcher(t, standInCRDs(t))
	for path, doc := range recordedGardenerSchemas(t) {
		fetcher[path] = doc
	}
	return New(openapi.New(fetcher, ""), gardener)
}

func TestGardenerImmutableFields(t *testing.T) {
	d := standInDiffer(t)
	const shoot = `
apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata: {name: dev, namespace: garden-local}
spec:
  region: local
  secretBindingName: local
  provider: {type: local}
  kubernetes: {version: "1.33.0", kubeControllerManager: {nodeCIDRMaskSize: 24}}
  networking: {type: calico, nodes: 10.0.0.0/16, ipFamilies: [IPv4]}
`
	shootHA := shoot + "  controlPlane: {highAvailability: {failureTolerance: {type: node}}}\n"
	const seed = `
apiVersion: core.gardener.cloud/v1beta1
kind: Seed
metadata: {name: local}
spec:
  provider: {type: local, region: local}
  networks: {pods: 10.1.0.0/16, services: 10.2.0.0/16, nodes: 10.3.0.0/16}
  backup: {provider: local, region: local}
  ingress: {domain: ingress.local.seed.local.gardener.cloud, controller: {kind: nginx}}
`
	const garden = `
apiVersion: operator.gardener.cloud/v1alpha1
kind: Garden
metadata: {name: local}
spec:
  runtimeCluster:
    networking: {pods: 10.1.0.0/16, services: 10.2.0.0/16}
  virtualCluster:
    dns: {domains: [{name: virtual-garden.local.gardener.cloud}]}
    gardener: {clusterIdentity: local}
    networking: {services: 10.4.0.0/16}
`
	str := func(v string) any { return v }
	tests := []struct {
		name string
		doc  string
		// filled are values Gardener put into the live object, owned by no one.
		filled map[string]any
		// desired edits the desired object: dotted path to value; nil removes the field.
		desired map[string]any
		// changes is whether the diff must see any change.
		changes   bool
		immutable []string
	}{
		{name: "shoot: a changed region", doc: shoot, desired: map[string]any{"spec.region": str("eu-1")}, changes: true, immutable: []string{".spec.region"}},
		{name: "shoot: an unchanged region with another change", doc: shoot, desired: map[string]any{"spec.kubernetes.version": str("1.34.0")}, changes: true},
		{name: "shoot: no change", doc: shoot},
		{name: "shoot: a changed provider type", doc: shoot, desired: map[string]any{"spec.provider.type": str("aws")}, changes: true, immutable: []string{".spec.provider.type"}},
		{name: "shoot: a changed CNI", doc: shoot, desired: map[string]any{"spec.networking.type": str("cilium")}, changes: true, immutable: []string{".spec.networking.type"}},
		{name: "shoot: a removed CNI", doc: shoot, desired: map[string]any{"spec.networking.type": nil}, changes: true, immutable: []string{".spec.networking.type"}},
		{name: "shoot: the node network is mutable", doc: shoot, desired: map[string]any{"spec.networking.nodes": str("10.9.0.0/16")}, changes: true},
		{name: "shoot: defaulted pods left alone", doc: shoot, filled: map[string]any{"spec.networking.pods": "100.96.0.0/11"}},
		{name: "shoot: defaulted pods set to their value", doc: shoot, filled: map[string]any{"spec.networking.pods": "100.96.0.0/11"}, desired: map[string]any{"spec.networking.pods": str("100.96.0.0/11")}},
		{name: "shoot: defaulted pods set to another value", doc: shoot, filled: map[string]any{"spec.networking.pods": "100.96.0.0/11"}, desired: map[string]any{"spec.networking.pods": str("10.8.0.0/16")}, changes: true, immutable: []string{".spec.networking.pods"}},
		{name: "shoot: defaulted services set to another value", doc: shoot, filled: map[string]any{"spec.networking.services": "100.64.0.0/13"}, desired: map[string]any{"spec.networking.services": str("10.7.0.0/16")}, changes: true, immutable: []string{".spec.networking.services"}},
		{name: "shoot: dual-stack", doc: shoot, desired: map[string]any{"spec.networking.ipFamilies": []any{"IPv4", "IPv6"}}, changes: true, immutable: []string{".spec.networking.ipFamilies"}},
		{name: "shoot: ipFamilies no longer set (Gardener defaults them again)", doc: shoot, desired: map[string]any{"spec.networking.ipFamilies": nil}, changes: true},
		{name: "shoot: the default domain left alone", doc: shoot, filled: map[string]any{"spec.dns.domain": "dev.local.shoot.gardener.cloud"}},
		{name: "shoot: the default domain replaced", doc: shoot, filled: map[string]any{"spec.dns.domain": "dev.local.shoot.gardener.cloud"}, desired: map[string]any{"spec.dns.domain": str("dev.example.com")}, changes: true, immutable: []string{".spec.dns.domain"}},
		{name: "shoot: another SecretBinding", doc: shoot, desired: map[string]any{"spec.secretBindingName": str("other")}, changes: true, immutable: []string{".spec.secretBindingName"}},
		{name: "shoot: from a SecretBinding to a CredentialsBinding", doc: shoot, desired: map[string]any{"spec.secretBindingName": nil, "spec.credentialsBindingName": str("local")}, changes: true},
		{name: "shoot: an exposure class added", doc: shoot, desired: map[string]any{"spec.exposureClassName": str("internet")}, changes: true, immutable: []string{".spec.exposureClassName"}},
		{name: "shoot: another scheduler", doc: shoot, desired: map[string]any{"spec.schedulerName": str("custom")}, changes: true, immutable: []string{".spec.schedulerName"}},
		{name: "shoot: a changed node CIDR mask size", doc: shoot, desired: map[string]any{"spec.kubernetes.kubeControllerManager.nodeCIDRMaskSize": int64(25)}, changes: true, immutable: []string{".spec.kubernetes.kubeControllerManager.nodeCIDRMaskSize"}},
		// Gardener's "Shoot High Availability" docs/usage/high-availability/shoot_high_availability.md:
		// HA may be added, but not removed or switched.
		{name: "shoot: high availability added", doc: shoot, desired: map[string]any{"spec.controlPlane.highAvailability.failureTolerance.type": str("node")}, changes: true},
		{name: "shoot: high availability switched from node to zone", doc: shootHA, desired: map[string]any{"spec.controlPlane.highAvailability.failureTolerance.type": str("zone")}, changes: true, immutable: []string{".spec.controlPlane"}},
		{name: "shoot: high availability removed", doc: shootHA, desired: map[string]any{"spec.controlPlane": nil}, changes: true, immutable: []string{".spec.controlPlane"}},
		{name: "shoot: high availability kept", doc: shootHA, desired: map[string]any{"spec.kubernetes.version": str("1.34.0")}, changes: true},
		{name: "shoot: several at once", doc: shoot, desired: map[string]any{"spec.region": str("eu-1"), "spec.provider.type": str("aws")}, changes: true, immutable: []string{".spec.provider.type", ".spec.region"}},

		{name: "seed: a changed pod network", doc: seed, desired: map[string]any{"spec.networks.pods": str("10.8.0.0/16")}, changes: true, immutable: []string{".spec.networks.pods"}},
		{name: "seed: a changed service network", doc: seed, desired: map[string]any{"spec.networks.services": str("10.8.0.0/16")}, changes: true, immutable: []string{".spec.networks.services"}},
		{name: "seed: a changed node network", doc: seed, desired: map[string]any{"spec.networks.nodes": str("10.8.0.0/16")}, changes: true, immutable: []string{".spec.networks.nodes"}},
		{name: "seed: dual-stack", doc: seed, filled: map[string]any{"spec.networks.ipFamilies": []any{"IPv4"}}, desired: map[string]any{"spec.networks.ipFamilies": []any{"IPv6"}}, changes: true, immutable: []string{".spec.networks.ipFamilies"}},
		{name: "seed: another backup provider", doc: seed, desired: map[string]any{"spec.backup.provider": str("aws")}, changes: true, immutable: []string{".spec.backup.provider"}},
		{name: "seed: another backup region", doc: seed, desired: map[string]any{"spec.backup.region": str("eu-1")}, changes: true, immutable: []string{".spec.backup.region"}},
		{name: "seed: another ingress domain", doc: seed, desired: map[string]any{"spec.ingress.domain": str("ingress.example.com")}, changes: true, immutable: []string{".spec.ingress.domain"}},
		{name: "seed: the ingress controller is mutable", doc: seed, desired: map[string]any{"spec.ingress.controller.providerConfig": map[string]any{"replicas": int64(2)}}, changes: true},
		{name: "seed: shoot defaults are mutable", doc: seed, desired: map[string]any{"spec.networks.shootDefaults.pods": str("100.96.0.0/11")}, changes: true},

		{name: "garden: a changed runtime pod network", doc: garden, desired: map[string]any{"spec.runtimeCluster.networking.pods": str("10.8.0.0/16")}, changes: true, immutable: []string{".spec.runtimeCluster.networking.pods"}},
		{name: "garden: a changed virtual service network", doc: garden, desired: map[string]any{"spec.virtualCluster.networking.services": str("10.8.0.0/16")}, changes: true, immutable: []string{".spec.virtualCluster.networking.services"}},
		{name: "garden: a changed cluster identity", doc: garden, desired: map[string]any{"spec.virtualCluster.gardener.clusterIdentity": str("other")}, changes: true, immutable: []string{".spec.virtualCluster.gardener.clusterIdentity"}},
		{name: "garden: another first domain", doc: garden, desired: map[string]any{"spec.virtualCluster.dns.domains": []any{map[string]any{"name": "garden.example.com"}}}, changes: true, immutable: []string{".spec.virtualCluster.dns.domains[0].name"}},
		{name: "garden: a second domain added", doc: garden, desired: map[string]any{"spec.virtualCluster.dns.domains": []any{map[string]any{"name": "virtual-garden.local.gardener.cloud"}, map[string]any{"name": "garden.example.com"}}}, changes: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			live := liveOf(t, d, tt.doc, func(u *unstructured.Unstructured) {
				for _, p := range sortedKeys(tt.filled) {
					require.NoError(t, unstructured.SetNestedField(u.Object, tt.filled[p], strings.Split(p, ".")...))
				}
			})
			desired := obj(t, tt.doc)
			for _, p := range sortedKeys(tt.desired) {
				if v := tt.desired[p]; v == nil {
					unstructured.RemoveNestedField(desired.Object, strings.Split(p, ".")...)
				} else {
					require.NoError(t, unstructured.SetNestedField(desired.Object, v, strings.Split(p, ".")...))
				}
			}
			r, err := d.Diff(desired, live, false)
			require.NoError(t, err)
			assert.Equal(t, tt.changes, len(r.Changes) > 0, "changes: %v", paths(r))
			assert.Equal(t, tt.immutable, r.Immutable)
		})
	}
}

// TestGardenerImmutableFieldsOfOtherKinds covers one immutable and, where the kind has one, one
// mutable field of every other kind in the table that the stand-ins serve.
func TestGardenerImmutableFieldsOfOtherKinds(t *testing.T) {
	d := standInDiffer(t)
	tests := []struct {
		name      string
		live      string
		desired   string
		immutable []string
	}{
		{
			name:      "project: another namespace",
			live:      `{apiVersion: core.gardener.cloud/v1beta1, kind: Project, metadata: {name: local}, spec: {namespace: garden-local, description: a}}`,
			desired:   `{apiVersion: core.gardener.cloud/v1beta1, kind: Project, metadata: {name: local}, spec: {namespace: garden-other, description: a}}`,
			immutable: []string{".spec.namespace"},
		},
		{
			name:    "project: the description is mutable",
			live:    `{apiVersion: core.gardener.cloud/v1beta1, kind: Project, metadata: {name: local}, spec: {namespace: garden-local, description: a}}`,
			desired: `{apiVersion: core.gardener.cloud/v1beta1, kind: Project, metadata: {name: local}, spec: {namespace: garden-local, description: b}}`,
		},
		{
			name:      "secret binding: another secret",
			live:      `{apiVersion: core.gardener.cloud/v1beta1, kind: SecretBinding, metadata: {name: b, namespace: garden-local}, secretRef: {name: s}, provider: {type: local}}`,
			desired:   `{apiVersion: core.gardener.cloud/v1beta1, kind: SecretBinding, metadata: {name: b, namespace: garden-local}, secretRef: {name: t}, provider: {type: local}}`,
			immutable: []string{".secretRef"},
		},
		{
			name:      "secret binding: another provider",
			live:      `{apiVersion: core.gardener.cloud/v1beta1, kind: SecretBinding, metadata: {name: b, namespace: garden-local}, secretRef: {name: s}, provider: {type: local}}`,
			desired:   `{apiVersion: core.gardener.cloud/v1beta1, kind: SecretBinding, metadata: {name: b, namespace: garden-local}, secretRef: {name: s}, provider: {type: aws}}`,
			immutable: []string{".provider"},
		},
		{
			name:      "credentials binding: another credentials reference",
			live:      `{apiVersion: security.gardener.cloud/v1alpha1, kind: CredentialsBinding, metadata: {name: b, namespace: garden-local}, provider: {type: local}, credentialsRef: {apiVersion: v1, kind: Secret, name: s, namespace: garden-local}}`,
			desired:   `{apiVersion: security.gardener.cloud/v1alpha1, kind: CredentialsBinding, metadata: {name: b, namespace: garden-local}, provider: {type: local}, credentialsRef: {apiVersion: v1, kind: Secret, name: t, namespace: garden-local}}`,
			immutable: []string{".credentialsRef"},
		},
		{
			name:      "quota: another scope",
			live:      `{apiVersion: core.gardener.cloud/v1beta1, kind: Quota, metadata: {name: q, namespace: garden-local}, spec: {scope: {apiVersion: v1, kind: Secret}, metrics: {cpu: "10"}}}`,
			desired:   `{apiVersion: core.gardener.cloud/v1beta1, kind: Quota, metadata: {name: q, namespace: garden-local}, spec: {scope: {apiVersion: core.gardener.cloud/v1beta1, kind: Project}, metrics: {cpu: "10"}}}`,
			immutable: []string{".spec.scope"},
		},
		{
			name:    "quota: the metrics are mutable",
			live:    `{apiVersion: core.gardener.cloud/v1beta1, kind: Quota, metadata: {name: q, namespace: garden-local}, spec: {scope: {apiVersion: v1, kind: Secret}, metrics: {cpu: "10"}}}`,
			desired: `{apiVersion: core.gardener.cloud/v1beta1, kind: Quota, metadata: {name: q, namespace: garden-local}, spec: {scope: {apiVersion: v1, kind: Secret}, metrics: {cpu: "20"}}}`,
		},
		{
			name:      "exposure class: another handler and scheduling added",
			live:      `{apiVersion: core.gardener.cloud/v1beta1, kind: ExposureClass, metadata: {name: e}, handler: internet}`,
			desired:   `{apiVersion: core.gardener.cloud/v1beta1, kind: ExposureClass, metadata: {name: e}, handler: intranet, scheduling: {seedSelector: {matchLabels: {network: intranet}}}}`,
			immutable: []string{".handler", ".scheduling"},
		},
		{
			name:      "controller installation: another seed",
			live:      `{apiVersion: core.gardener.cloud/v1beta1, kind: ControllerInstallation, metadata: {name: c}, spec: {registrationRef: {name: r}, seedRef: {name: a}}}`,
			desired:   `{apiVersion: core.gardener.cloud/v1beta1, kind: ControllerInstallation, metadata: {name: c}, spec: {registrationRef: {name: r}, seedRef: {name: b}}}`,
			immutable: []string{".spec.seedRef.name"},
		},
		{
			name:      "managed seed: another shoot",
			live:      `{apiVersion: seedmanagement.gardener.cloud/v1alpha1, kind: ManagedSeed, metadata: {name: m, namespace: garden}, spec: {shoot: {name: a}}}`,
			desired:   `{apiVersion: seedmanagement.gardener.cloud/v1alpha1, kind: ManagedSeed, metadata: {name: m, namespace: garden}, spec: {shoot: {name: b}}}`,
			immutable: []string{".spec.shoot"},
		},
		{
			name:      "managed seed: another bootstrap mechanism",
			live:      `{apiVersion: seedmanagement.gardener.cloud/v1alpha1, kind: ManagedSeed, metadata: {name: m, namespace: garden}, spec: {shoot: {name: a}, gardenlet: {bootstrap: BootstrapToken}}}`,
			desired:   `{apiVersion: seedmanagement.gardener.cloud/v1alpha1, kind: ManagedSeed, metadata: {name: m, namespace: garden}, spec: {shoot: {name: a}, gardenlet: {bootstrap: ServiceAccount}}}`,
			immutable: []string{".spec.gardenlet.bootstrap"},
		},
		{
			name:      "dns record: another name and type",
			live:      `{apiVersion: extensions.gardener.cloud/v1alpha1, kind: DNSRecord, metadata: {name: r, namespace: shoot--local--dev}, spec: {type: local, secretRef: {name: s}, name: api.a.example.com, recordType: A, values: [1.2.3.4]}}`,
			desired:   `{apiVersion: extensions.gardener.cloud/v1alpha1, kind: DNSRecord, metadata: {name: r, namespace: shoot--local--dev}, spec: {type: local, secretRef: {name: s}, name: api.b.example.com, recordType: CNAME, values: [lb.example.com]}}`,
			immutable: []string{".spec.name", ".spec.recordType"},
		},
		{
			name:    "dns record: the values are mutable",
			live:    `{apiVersion: extensions.gardener.cloud/v1alpha1, kind: DNSRecord, metadata: {name: r, namespace: shoot--local--dev}, spec: {type: local, secretRef: {name: s}, name: api.a.example.com, recordType: A, values: [1.2.3.4]}}`,
			desired: `{apiVersion: extensions.gardener.cloud/v1alpha1, kind: DNSRecord, metadata: {name: r, namespace: shoot--local--dev}, spec: {type: local, secretRef: {name: s}, name: api.a.example.com, recordType: A, values: [1.2.3.5]}}`,
		},
		{
			name:      "network: other CIDRs",
			live:      `{apiVersion: extensions.gardener.cloud/v1alpha1, kind: Network, metadata: {name: n, namespace: shoot--local--dev}, spec: {type: calico, podCIDR: 10.1.0.0/16, serviceCIDR: 10.2.0.0/16}}`,
			desired:   `{apiVersion: extensions.gardener.cloud/v1alpha1, kind: Network, metadata: {name: n, namespace: shoot--local--dev}, spec: {type: calico, podCIDR: 10.3.0.0/16, serviceCIDR: 10.4.0.0/16}}`,
			immutable: []string{".spec.podCIDR", ".spec.serviceCIDR"},
		},
		{
			name:      "operating system config: another purpose",
			live:      `{apiVersion: extensions.gardener.cloud/v1alpha1, kind: OperatingSystemConfig, metadata: {name: o, namespace: shoot--local--dev}, spec: {type: local, purpose: provision}}`,
			desired:   `{apiVersion: extensions.gardener.cloud/v1alpha1, kind: OperatingSystemConfig, metadata: {name: o, namespace: shoot--local--dev}, spec: {type: local, purpose: reconcile}}`,
			immutable: []string{".spec.purpose"},
		},
		{
			name:      "control plane: another purpose",
			live:      `{apiVersion: extensions.gardener.cloud/v1alpha1, kind: ControlPlane, metadata: {name: c, namespace: shoot--local--dev}, spec: {type: local, region: local, secretRef: {name: s}, purpose: normal}}`,
			desired:   `{apiVersion: extensions.gardener.cloud/v1alpha1, kind: ControlPlane, metadata: {name: c, namespace: shoot--local--dev}, spec: {type: local, region: local, secretRef: {name: s}, purpose: exposure}}`,
			immutable: []string{".spec.purpose"},
		},
		{
			name:      "infrastructure: another region",
			live:      `{apiVersion: extensions.gardener.cloud/v1alpha1, kind: Infrastructure, metadata: {name: i, namespace: shoot--local--dev}, spec: {type: local, region: local, secretRef: {name: s}}}`,
			desired:   `{apiVersion: extensions.gardener.cloud/v1alpha1, kind: Infrastructure, metadata: {name: i, namespace: shoot--local--dev}, spec: {type: local, region: eu-1, secretRef: {name: s}}}`,
			immutable: []string{".spec.region"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := d.Diff(obj(t, tt.desired), liveOf(t, d, tt.live), false)
			require.NoError(t, err)
			assert.Equal(t, Update, r.Action, "changes: %v", paths(r))
			assert.Equal(t, tt.immutable, r.Immutable)
		})
	}
}

// TestGardenerImmutableFieldsExist checks every Gardener rule's path against the schema of its
// kind, so that a misspelt path cannot silently never match. Kinds neither gardener-apiserver nor
// the CRDs serve are listed.
func TestGardenerImmutableFieldsExist(t *testing.T) {
	schemas := map[schema.GroupKind]schemaNode{}
	for _, crd := range standInCRDs(t) {
		for _, v := range crd.Spec.Versions {
			if v.Storage {
				raw, err := json.Marshal(v.Schema.OpenAPIV3Schema)
				require.NoError(t, err)
				var node map[string]any
				require.NoError(t, json.Unmarshal(raw, &node))
				schemas[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] = schemaNode{node: node}
			}
		}
	}
	for _, doc := range recordedGardenerSchemas(t) {
		var parsed struct {
			Components struct {
				Schemas map[string]map[string]any `json:"schemas"`
			} `json:"components"`
		}
		require.NoError(t, json.Unmarshal([]byte(doc), &parsed))
		for _, model := range parsed.Components.Schemas {
			gvks, _ := model["x-kubernetes-group-version-kind"].([]any)
			for _, g := range gvks {
				gvk, _ := g.(map[string]any)
				group, _ := gvk["group"].(string)
				kind, _ := gvk["kind"].(string)
				// v1beta1 is the storage version of core.gardener.cloud; v1 serves only a few kinds.
				if gk := (schema.GroupKind{Group: group, Kind: kind}); gvk["version"] != "v1" || schemas[gk].node == nil {
					schemas[gk] = schemaNode{node: model, models: parsed.Components.Schemas}
				}
			}
		}
	}
	unserved := map[string]bool{}
	for gk, f := range gardenerImmutableFields() {
		s, ok := schemas[gk]
		if !ok {
			unserved[gk.String()] = true
			continue
		}
		for _, e := range parsePattern(f.Path) {
			var ok bool
			if e.item {
				s, ok = s.child("items")
				require.True(t, ok, "%s %s: not a list", gk, f.Path)
				continue
			}
			s, ok = s.property(e.name)
			require.True(t, ok, "%s %s: no field %s in the schema", gk, f.Path, e.name)
		}
	}
	assert.Equal(t, map[string]bool{
		"Bastion.extensions.gardener.cloud": true,
	}, unserved, "kinds of the table without a schema")
}

// gardenerImmutableFields yields the immutable fields of the Gardener kinds in the kinds table.
func gardenerImmutableFields() iter.Seq2[schema.GroupKind, kinds.ImmutableField] {
	return func(yield func(schema.GroupKind, kinds.ImmutableField) bool) {
		for _, g := range kinds.Groups() {
			if g.Builtin {
				continue
			}
			for _, k := range g.Kinds {
				for _, f := range k.Immutable {
					if !yield(schema.GroupKind{Group: g.Name, Kind: k.Kind}, f) {
						return
					}
				}
			}
		}
	}
}

// schemaNode is a JSON schema within the models of its OpenAPI document, whose references it
// follows.
type schemaNode struct {
	node   map[string]any
	models map[string]map[string]any
}

// resolved follows $ref and a single allOf entry, the two ways an OpenAPI v3 document refers to
// another model.
func (n schemaNode) resolved() schemaNode {
	for range 8 {
		if all, ok := n.node["allOf"].([]any); ok && len(all) == 1 {
			n.node, _ = all[0].(map[string]any)
			continue
		}
		if ref, ok := n.node["$ref"].(string); ok {
			n.node = n.models[strings.TrimPrefix(ref, "#/components/schemas/")]
			continue
		}
		break
	}
	return n
}

func (n schemaNode) child(key string) (schemaNode, bool) {
	c, ok := n.resolved().node[key].(map[string]any)
	return schemaNode{node: c, models: n.models}, ok
}

func (n schemaNode) property(name string) (schemaNode, bool) {
	props, ok := n.child("properties")
	if !ok {
		return n, false
	}
	return props.child(name)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
