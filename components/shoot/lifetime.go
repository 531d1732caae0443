package shoot

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// Cluster lifetime is carried out the way gardener-controller-manager's shoot quota reconciler
// does (Gardener's "Gardener Controller Manager" docs/concepts/controller-manager.md): a shoot
// whose SecretBinding or CredentialsBinding references a Quota with .spec.clusterLifetimeDays is
// deleted once it is older than that lifetime, and the end of its life is kept in the Shoot's
// expiration-timestamp annotation, which "might be overridden, however only by at most twice the
// value of the .spec.clusterLifetimeDays" ("end-users may extend the lifetime manually if needed",
// Gardener's "Gardener API Server" docs/concepts/apiserver.md).
//
// The shoot tells the engine the end of its life (render.Output.Lifetime); the engine deletes
// it from then on as if its block were removed, under the destroy protection of every deletion
// (its control-plane namespace and etcd are protected), and keeps it from being created again.
const (
	// AnnotationExpirationTimestamp is when the shoot's lifetime ends, RFC 3339 (Gardener's
	// docs/concepts/controller-manager.md).
	AnnotationExpirationTimestamp = "shoot.gardener.cloud/expiration-timestamp"
	// AnnotationExpirationDeclared is the landscape's expiration_timestamp when the Shoot was
	// last written, so that an end the landscape no longer declares is not taken for one a
	// user set on the Shoot.
	AnnotationExpirationDeclared = "declarative-gardener.io/expiration-declared"
)

// lifetime is what the shoot's Quotas decide about the end of its life.
type lifetime struct {
	// days is the cluster lifetime in days; zero when no Quota limits it.
	days int64
	// quota names the Quota with the shortest lifetime, namespace/name.
	quota string
	// ends is the end of the shoot's life: the annotation's value.
	ends time.Time
	// declared is the landscape's expiration_timestamp, recorded on the Shoot.
	declared string
	// notice says when the shoot expires, or why a longer end was not taken.
	notice string
}

// decideLifetime reads the shoot's binding and its Quotas and decides the end of the shoot's
// life. A shoot whose binding or Quotas do not exist yet has none until they do.
func (b *builder) decideLifetime(in render.Input, live *unstructured.Unstructured) (lifetime, error) {
	var l lifetime
	days, quota, err := b.observeLifetimeDays(in)
	if err != nil || days == 0 {
		return l, err
	}
	l.days, l.quota = days, quota
	// The lifetime counts from the Shoot's creation; one this plan creates starts now.
	created := in.Now
	if live != nil {
		if c := live.GetCreationTimestamp(); !c.Time.IsZero() {
			created = c.Time
		}
	}
	lifetime := time.Duration(days) * 24 * time.Hour
	l.ends = created.Add(lifetime).UTC().Truncate(time.Second)
	longest := created.Add(2 * lifetime).UTC().Truncate(time.Second)
	override := ""
	if b.v.ExpirationTimestamp != "" {
		override, l.declared = b.v.ExpirationTimestamp, b.v.ExpirationTimestamp
	} else if live != nil {
		// A user's end on the Shoot holds; one the landscape declared and no longer does not.
		annotations := live.GetAnnotations()
		if v := annotations[AnnotationExpirationTimestamp]; v != "" && v != annotations[AnnotationExpirationDeclared] {
			override = v
		}
	}
	if override != "" {
		t, err := time.Parse(time.RFC3339, override)
		switch {
		case err != nil:
			l.notice = fmt.Sprintf("expiration timestamp %q is not an RFC 3339 time; the shoot expires at %s (%s)", override, l.ends.Format(time.RFC3339), l.reason())
		case t.After(longest):
			// Gardener's docs/concepts/controller-manager.md: at most twice the lifetime.
			l.ends = longest
			l.notice = fmt.Sprintf("expiration timestamp %s is later than twice the lifetime allows; the shoot expires at %s (%s)", override, longest.Format(time.RFC3339), l.reason())
		default:
			l.ends = t.UTC()
		}
	}
	if l.notice == "" && l.ends.After(in.Now) {
		l.notice = fmt.Sprintf("expires at %s (%s)", l.ends.Format(time.RFC3339), l.reason())
	}
	return l, nil
}

// reason names what sets the shoot's lifetime.
func (l lifetime) reason() string {
	return fmt.Sprintf("the cluster lifetime of Quota %s, %d days", l.quota, l.days)
}

// output is the lifetime as the engine takes it; nil without one.
func (l lifetime) output() *render.Lifetime {
	if l.days == 0 {
		return nil
	}
	return &render.Lifetime{Ends: l.ends, Reason: l.reason()}
}

// observeLifetimeDays returns the shortest clusterLifetimeDays of the Quotas the shoot's binding
// references and the Quota that sets it; zero when none sets one. Several Quotas with lifetimes
// are not described by Gardener's documentation; the shortest one is the one that ends the shoot
// first.
func (b *builder) observeLifetimeDays(in render.Input) (int64, string, error) {
	ns := ProjectNamespace(b.v.Project)
	ref := render.LiveRef{Cluster: b.seed.VirtualCluster, Namespace: ns}
	switch {
	case b.v.CredentialsBinding != "":
		ref.Group, ref.Version, ref.Resource, ref.Name = "security.gardener.cloud", "v1alpha1", "credentialsbindings", b.v.CredentialsBinding
	case b.v.SecretBinding != "":
		ref.Group, ref.Version, ref.Resource, ref.Name = "core.gardener.cloud", "v1beta1", "secretbindings", b.v.SecretBinding
	default:
		return 0, "", nil
	}
	binding, err := in.Observed(ref)
	if err != nil {
		return 0, "", fmt.Errorf("read the %s %s for its quotas: %w", ref.Resource, ref.Name, err)
	}
	if binding == nil {
		return 0, "", nil
	}
	quotas, _, _ := unstructured.NestedSlice(binding.Object, "quotas")
	var days int64
	var which string
	for _, q := range quotas {
		m, ok := q.(map[string]any)
		if !ok {
			continue
		}
		name, _, _ := unstructured.NestedString(m, "name")
		namespace, _, _ := unstructured.NestedString(m, "namespace")
		if namespace == "" {
			namespace = ns
		}
		if name == "" {
			continue
		}
		quota, err := in.Observed(render.LiveRef{Cluster: b.seed.VirtualCluster, Group: "core.gardener.cloud", Version: "v1beta1", Resource: "quotas", Namespace: namespace, Name: name})
		if err != nil {
			return 0, "", fmt.Errorf("read the Quota %s/%s for its cluster lifetime: %w", namespace, name, err)
		}
		if quota == nil {
			continue
		}
		d, found, _ := unstructured.NestedInt64(quota.Object, "spec", "clusterLifetimeDays")
		if found && d > 0 && (days == 0 || d < days) {
			days, which = d, namespace+"/"+name
		}
	}
	return days, which, nil
}
