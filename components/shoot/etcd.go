package shoot

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/etcd"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/components/seed"
	"github.com/declarative-gardener/gardener/components/shootextensions"
	"github.com/declarative-gardener/gardener/engine/render"
)

// etcdBackupSecret is the Secret the shoot's BackupEntry controller writes into the control-plane
// namespace with the bucket's credentials and name (Gardener's "BackupEntry"
// docs/extensions/resources/backupentry.md).
const etcdBackupSecret = "etcd-backup"

// etcds: etcd-main and etcd-events, three members with high availability of either type
// (Gardener's "Shoot High Availability" docs/usage/high-availability/shoot_high_availability.md),
// gardener-system-500 (Gardener's "Priority Classes" docs/development/priority-classes.md). What
// the Shoot's identity decides (the backup folder, the schedules) waits for the Shoot
// (addIdentified).
func (b *builder) etcds() error {
	ha := b.highAvailability()
	for _, role := range []string{etcd.RoleMain, etcd.RoleEvents} {
		name := etcd.Name("", role)
		server := "etcd-server-" + role
		part := "etcd_" + role
		b.secret(part+"_server_tls", render.SecretSpec{
			Name: server, Class: "server-cert", CommonName: name,
			DNSNames: append(kube.ServiceDNSNames(etcd.ClientServiceName("", role), b.ns), name+"-local"), CA: secretEtcdCA,
		}, "ca_etcd")
		deps := []string{"namespace", "etcd_client_tls", part + "_server_tls"}
		vals := etcd.Type.Defaults()
		vals.Cluster, vals.Namespace, vals.NamePrefix, vals.Role = decode.Cluster{Name: b.seed.Cluster}, b.ns, "", role
		vals.HighAvailability, vals.PriorityClassName = ha, priorityclasses.System500
		vals.CASecretName, vals.ServerTLSSecretName, vals.ClientTLSSecretName = secretEtcdCA, server, secretEtcdClient
		vals.Hibernated = b.hibernated
		if ha {
			peer := "etcd-peer-server-" + role
			b.secret(part+"_peer_tls", render.SecretSpec{
				Name: peer, Class: "server-cert", CommonName: name + "-peer",
				DNSNames: []string{"*." + name + "-peer", "*." + name + "-peer." + b.ns, "*." + name + "-peer." + b.ns + ".svc"}, CA: secretEtcdPeerCA,
			}, "ca_etcd_peer")
			vals.PeerCASecretName, vals.PeerTLSSecretName = secretEtcdPeerCA, peer
			deps = append(deps, part+"_peer_tls")
		}
		// Backups go to the seed's bucket through the shoot's BackupEntry, whose controller
		// writes the etcd-backup Secret (Gardener's "BackupEntry"
		// docs/extensions/resources/backupentry.md); only main is backed up (Gardener's "ControlPlane
		// Webhooks" docs/extensions/controlplane-webhooks.md).
		backup := role == etcd.RoleMain && b.seed.BackupProvider != ""
		if backup {
			deps = append(deps, "backup_entry")
		}
		err := b.addIdentified(part, "etcd", true, deps, func(id shootIdentity) ([]render.Object, error) {
			v, err := b.placeEtcd(vals, id, backup)
			if err != nil {
				return nil, fmt.Errorf("etcd %s: %w", role, err)
			}
			objs, err := etcd.Objects(v)
			if err != nil {
				return nil, fmt.Errorf("etcd %s: %w", role, err)
			}
			return objs, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// placeEtcd completes an etcd's values with what the Shoot's identity decides, as gardenlet does
// (pkg/gardenlet/operation/botanist/etcd.go at Gardener v1.120.0): defragmentation every third day
// at a minute of the maintenance window, the VPA's eviction requirement with the window; for main with backup, the shoot's own folder of the
// seed's bucket, named after its BackupEntry (<technical ID>--<uid>), so that no two shoots ever
// share snapshots, and a daily full snapshot in the hour before the window.
func (b *builder) placeEtcd(v etcd.Values, id shootIdentity, backup bool) (etcd.Values, error) {
	defrag, err := etcd.Schedule(etcd.EveryThirdDay, id.begin, id.end, id.uid, id.created, etcd.InWindow)
	if err != nil {
		return v, err
	}
	v.DefragmentationSchedule = defrag
	v.EvictionRequirement = b.etcdEvictionRequirement(v.Role, id)
	v.MaintenanceWindowBegin, v.MaintenanceWindowEnd = id.begin, id.end
	if !backup {
		return v, nil
	}
	full, err := etcd.Schedule(etcd.Daily, id.begin, id.end, id.uid, id.created, etcd.HourBeforeWindow)
	if err != nil {
		return v, err
	}
	store := etcd.BackupDefaults()
	store.Provider, store.BucketName, store.SecretRef = b.seed.BackupProvider, seed.BackupBucketName(b.seed.Name), etcdBackupSecret
	store.Prefix, store.FullSnapshotSchedule = shootextensions.BackupEntryName(b.ns, id.uid), full
	v.Backup = &store
	return v, nil
}

// etcdEvictionRequirement is when the VPA of an etcd may evict its members to scale them down
// (getEvictionRequirement in pkg/gardenlet/operation/botanist/etcd.go at Gardener v1.120.0):
// never for main of a production or infrastructure shoot, or of any etcd of a Shoot with the
// scale-down-disabled annotation; otherwise only in the maintenance window.
func (b *builder) etcdEvictionRequirement(role string, id shootIdentity) string {
	if role == etcd.RoleMain && (b.v.Purpose == "production" || b.v.Purpose == "infrastructure") {
		return etcd.EvictionNever
	}
	if id.scaleDownDisabled {
		return etcd.EvictionNever
	}
	return etcd.EvictionInMaintenanceWindowOnly
}

// backupMoveNotice says, when the live etcd-main writes its snapshots elsewhere than the shoot's
// own folder (a landscape applied before the folder was named as gardenlet names it, which put
// every shoot of a seed into etcd-main of the seed's bucket), where the backups move and what
// happens to the old ones: the Etcd is updated in place, etcd-druid rolls its members with their
// volumes, and etcd-backup-restore starts a new chain with a full snapshot in the new folder;
// nothing deletes the old folder. A BackupEntry of the earlier name is no longer rendered: its
// deletion, which removes only that entry's own folder, waits for --allow-destroy like every
// protected object's.
func (b *builder) backupMoveNotice(in render.Input) (string, error) {
	if b.seed.BackupProvider == "" || !b.identity.known() {
		return "", nil
	}
	live, err := in.Observed(render.LiveRef{
		Cluster: b.seed.Cluster, Group: "druid.gardener.cloud", Version: "v1alpha1", Resource: "etcds",
		Namespace: b.ns, Name: etcd.Name("", etcd.RoleMain),
	})
	if err != nil || live == nil {
		return "", err
	}
	container, _, _ := unstructured.NestedString(live.Object, "spec", "backup", "store", "container")
	prefix, found, _ := unstructured.NestedString(live.Object, "spec", "backup", "store", "prefix")
	entry := shootextensions.BackupEntryName(b.ns, b.identity.uid)
	want := etcd.StorePrefix(entry, etcd.RoleMain)
	if !found || prefix == want {
		return "", nil
	}
	notice := fmt.Sprintf("etcd-main's backups move from %s/%s to the shoot's own folder %s/%s; "+
		"the snapshots in %s/%s stay where they are (nothing deletes them; keep them until the new folder has a full snapshot), "+
		"and etcd-backup-restore takes a full snapshot into the new folder when etcd-druid has rolled the members, which keep their volumes",
		container, prefix, seed.BackupBucketName(b.seed.Name), want, container, prefix)
	old, err := in.Observed(render.LiveRef{
		Cluster: b.seed.Cluster, Group: "extensions.gardener.cloud", Version: "v1alpha1", Resource: "backupentries", Name: b.ns,
	})
	if err != nil {
		return "", err
	}
	if old != nil {
		notice += fmt.Sprintf("; the BackupEntry %s of the earlier naming is replaced by %s and its deletion, "+
			"which removes only its own folder %s/ of the bucket, needs --allow-destroy", b.ns, entry, b.ns)
	}
	return notice, nil
}
