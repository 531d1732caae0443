package shoot

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// shootIdentity is what only an existing Shoot gives and gardenlet derives per-shoot values from:
// its uid, which names the shoot's BackupEntry and the folder of its etcd backups, and which
// together with the maintenance window and the creation time places the etcd schedules
// (pkg/gardenlet/operation/botanist/etcd.go, pkg/gardenlet/operation/botanist/backupentry.go at
// Gardener v1.120.0).
type shootIdentity struct {
	// uid is status.uid, which gardenlet keeps when the control plane moves to another seed, or
	// else metadata.uid (GenerateBackupEntryName in pkg/utils/gardener/backupentry.go).
	uid     string
	created time.Time
	// begin and end are the Shoot's maintenance window.
	begin, end string
	// scaleDownDisabled is the Shoot's annotation that keeps the control plane from being scaled
	// down (ShootAlphaControlPlaneScaleDownDisabled in pkg/apis/core/v1beta1/constants).
	scaleDownDisabled bool
}

// AnnotationScaleDownDisabled on a Shoot keeps the VPAs of its etcds, kube-apiserver and
// kube-controller-manager from scaling them down (pkg/apis/core/v1beta1/constants at Gardener
// v1.120.0).
const AnnotationScaleDownDisabled = "alpha.control-plane.scaling.shoot.gardener.cloud/scale-down-disabled"

// known reports whether the identity is complete: a Shoot a landscape declares has none before
// its first apply creates it.
func (id shootIdentity) known() bool {
	return id.uid != "" && !render.HasLive(id.begin) && !render.HasLive(id.end)
}

// identityOf reads the identity of a live Shoot, with the window given (the control plane's,
// which is the live Shoot's unless the landscape declares one); empty for none.
func identityOf(live *unstructured.Unstructured, begin, end string) shootIdentity {
	if live == nil {
		return shootIdentity{}
	}
	uid, _, _ := unstructured.NestedString(live.Object, "status", "uid")
	if uid == "" {
		uid = string(live.GetUID())
	}
	_, scaleDownDisabled := live.GetAnnotations()[AnnotationScaleDownDisabled]
	return shootIdentity{uid: uid, created: live.GetCreationTimestamp().Time, begin: begin, end: end, scaleDownDisabled: scaleDownDisabled}
}

// liveWindow is the maintenance window of a live Shoot.
func liveWindow(live *unstructured.Unstructured) (begin, end string) {
	begin, _, _ = unstructured.NestedString(live.Object, "spec", "maintenance", "timeWindow", "begin")
	end, _, _ = unstructured.NestedString(live.Object, "spec", "maintenance", "timeWindow", "end")
	return begin, end
}

// decideIdentity takes the identity from the live Shoot, or from the Shoot a user created through
// the API, which always exists. The window is the control plane's: the landscape's, or the one
// gardener-apiserver picked, which is the live Shoot's.
func (b *builder) decideIdentity(live *unstructured.Unstructured) {
	if live == nil {
		live = b.apiShoot
	}
	if live == nil {
		b.identity = shootIdentity{}
		return
	}
	begin, end := liveWindow(live)
	if w := b.v.Maintenance; w != nil && w.TimeWindow != nil && !render.HasLive(w.TimeWindow.Begin) && !render.HasLive(w.TimeWindow.End) {
		begin, end = w.TimeWindow.Begin, w.TimeWindow.End
	}
	b.identity = identityOf(live, begin, end)
}

// addIdentified adds a part whose objects depend on the Shoot's identity. With the identity
// known the part is rendered now; without it (a shoot whose Shoot the same apply creates) it is
// rendered during apply once the Shoot exists, from the live Shoot's uid, creation time and
// window, so that the plan says so instead of rendering values that would be wrong.
func (b *builder) addIdentified(name, typ string, scaled bool, deps []string, objects func(shootIdentity) ([]render.Object, error)) error {
	if scaled {
		b.scaled[name] = true
	}
	if b.identity.known() {
		objs, err := objects(b.identity)
		if err != nil {
			return err
		}
		b.add(name, typ, objs, deps...)
		return nil
	}
	shapes, err := shapesOf(objects)
	if err != nil {
		return err
	}
	b.parts = append(b.parts, render.Component{Name: name, Type: typ, DependsOn: deps, Await: &render.Await{
		Shapes: shapes,
		For: fmt.Sprintf("Shoot %s/%s, whose uid names the shoot's etcd backups and places its etcd schedules in the maintenance window",
			ProjectNamespace(b.v.Project), b.name),
		Render: func(in render.Input) (*render.Awaited, error) {
			live, err := b.observeShoot(in)
			if err != nil || live == nil {
				return nil, err
			}
			begin, end := liveWindow(live)
			id := identityOf(live, begin, end)
			if !id.known() {
				return nil, nil
			}
			objs, err := objects(id)
			if err != nil {
				return nil, err
			}
			return &render.Awaited{Objects: objs}, nil
		},
	}})
	return nil
}

// placeholderIdentity stands in for the identity of a Shoot that does not exist yet, only to learn
// the kinds and namespaces of what a part will render once it does.
var placeholderIdentity = shootIdentity{uid: "00000000-0000-0000-0000-000000000000", begin: "220000+0000", end: "230000+0000"}

// shapesOf renders a part with the placeholder identity and keeps of each object its kind and
// namespace (render.Await.Shapes): what orders the part in the graph before it can be rendered.
func shapesOf(objects func(shootIdentity) ([]render.Object, error)) ([]render.Object, error) {
	objs, err := objects(placeholderIdentity)
	if err != nil {
		return nil, err
	}
	return shapes(objs), nil
}

// shapes keeps of each object its kind and namespace (render.Await.Shapes).
func shapes(objs []render.Object) []render.Object {
	out := make([]render.Object, 0, len(objs))
	for _, o := range objs {
		shape := &unstructured.Unstructured{}
		shape.SetAPIVersion(o.Object.GetAPIVersion())
		shape.SetKind(o.Object.GetKind())
		shape.SetNamespace(o.Object.GetNamespace())
		out = append(out, render.Object{Cluster: o.Cluster, Object: shape, DefaultNamespace: o.DefaultNamespace})
	}
	return out
}
