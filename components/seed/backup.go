package seed

import (
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// BackupBucketName is the name of a seed's BackupBucket. Gardener names it after the seed's UID,
// which a landscape cannot know before the seed exists; the engine names it after the seed.
func BackupBucketName(seed string) string { return "seed-" + seed }

// BackupSecretName is the seed's copy of its backup credentials in its garden namespace, which
// the BackupBucket and the shoots' BackupEntries refer to.
func BackupSecretName(seed string) string { return "bucket-" + BackupBucketName(seed) }

// backup: a seed with backup gets the bucket for its shoots' etcd backups "as part of the seed
// flow" (Gardener's "BackupBucket" docs/extensions/resources/backupbucket.md): the backup
// credentials copied from the virtual garden's garden namespace and the extensions BackupBucket,
// which the backup provider's extension reconciles (Gardener's
// docs/extensions/resources/backupbucket.md). The core.gardener.cloud BackupBucket that gardenlet
// keeps in the virtual garden is not rendered: gardenlet writes it itself.
func (b *builder) backup() error {
	bk := b.v.Backup
	if bk == nil {
		return nil
	}
	region := bk.Region
	if region == "" {
		region = b.v.Provider.Region
	}
	secret := BackupSecretName(b.name)
	b.copySecret("backup_secret", secret, bk.SecretRef)
	spec := map[string]any{
		"type":      bk.Provider,
		"region":    region,
		"secretRef": map[string]any{"name": secret, "namespace": GardenNamespace},
	}
	if bk.ProviderConfig != nil {
		spec["providerConfig"] = bk.ProviderConfig
	}
	bucket := kube.Custom("extensions.gardener.cloud/v1alpha1", "BackupBucket", "", BackupBucketName(b.name), nil, map[string]any{"spec": spec})
	// The backup provider's extension that reconciles the bucket is installed only after the
	// Seed is registered (pkg/gardenlet/controller/seed/seed/reconciler_reconcile.go): the bucket comes after the Seed, and neither the Seed nor
	// what depends on the seed (its extensions) waits for it.
	b.parts = append(b.parts, render.Component{Name: "backup_bucket", Type: "manifests", Detached: true,
		DependsOn: []string{"extension_crds", "backup_secret", "seed"}, Objects: kube.On(b.cluster, "", bucket)})
	return nil
}

// copySecret adds a part copying a Secret of the virtual garden's garden namespace, where a
// Seed's credentials live, into the seed's garden namespace.
func (b *builder) copySecret(part, name, from string) {
	var deps []string
	if !b.runtimeAsSeed { // else the garden's part creates the namespace
		deps = []string{"garden_namespace"}
	}
	b.parts = append(b.parts, render.Component{Name: part, Type: "secret_copy", DependsOn: deps, Copy: &render.CopySpec{
		Cluster: b.cluster, Namespace: GardenNamespace, Name: name,
		FromCluster: b.virtual, FromNamespace: GardenNamespace, FromName: from,
	}})
}
