package shoot

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// Cluster lifetime is gardener-controller-manager's (its quota loop, shoot-quota,
// pkg/controllermanager/controller/shoot/quota/reconciler.go at Gardener v1.120.0): a Shoot whose
// SecretBinding or CredentialsBinding references a Quota with .spec.clusterLifetimeDays gets
// the annotation shoot.gardener.cloud/expiration-timestamp (its creation plus the shortest such
// lifetime) when it has none, loses it when no Quota sets a lifetime any more, and is deleted
// (with the deletion confirmation) at the loop's first look after that time; the loop looks at a
// Shoot when it is created and then every sync period. The annotation "might be overridden,
// however only by at most twice the value of the .spec.clusterLifetimeDays" (Gardener's
// "Gardener API Server" docs/concepts/apiserver.md): gardener-apiserver refuses a changed one later
// than now plus the lifetime (plugin/pkg/shoot/quotavalidator/admission.go).
//
// The shoot block writes the annotation only when the landscape declares expiration_timestamp
// (for a shoot with such a Quota), never deletes the Shoot itself, and predicts both. From the
// end on it is retired (render.Output.Lifetime): its control plane is deleted in the delete flow
// as gardenlet would once the Shoot is deleted, the Shoot is left to the loop (the deletion it
// predicts), and the state records the end so that the shoot is not created again while its
// block stays. Once the loop deleted the Shoot it predicts no deletion any more, so the next plan
// deletes it as gardenlet ends its delete flow: the apply reports the Delete and removes
// gardenlet's finalizer (engine/report). A Shoot deleted before that end retires at its deletion.

// AnnotationExpirationTimestamp is when the shoot's lifetime ends, RFC 3339 (Gardener's
// docs/concepts/controller-manager.md).
const AnnotationExpirationTimestamp = "shoot.gardener.cloud/expiration-timestamp"

// lifetime is what the shoot's Quotas decide about the end of its life.
type lifetime struct {
	// days is the cluster lifetime in days; zero when no Quota limits it.
	days int64
	// quota names the Quota with the shortest lifetime, namespace/name.
	quota string
	// ends is the end of the shoot's life; zero without a lifetime.
	ends time.Time
	// declared is the landscape's expiration_timestamp, written to the Shoot; empty when the
	// landscape declares none (or the shoot has no lifetime, when the loop would remove it).
	declared string
	// notice says when the shoot expires.
	notice string
	// predictions are what the quota loop does to the Shoot.
	predictions []lifetimePrediction
}

// lifetimePrediction is one thing the quota loop does to the Shoot.
type lifetimePrediction struct {
	action      string
	at, until   time.Time
	description string
}

// decideLifetime reads the shoot's binding and its Quotas and decides the end of the shoot's
// life. A shoot whose binding or Quotas do not exist yet has none until they do.
func (b *builder) decideLifetime(in render.Input, live *unstructured.Unstructured, syncPeriod time.Duration) (lifetime, error) {
	var l lifetime
	days, quota, err := b.observeLifetimeDays(in)
	if err != nil {
		return l, err
	}
	onShoot := ""
	if live != nil {
		onShoot = live.GetAnnotations()[AnnotationExpirationTimestamp]
	}
	if days == 0 {
		if onShoot != "" && live.GetDeletionTimestamp() == nil {
			l.predictions = append(l.predictions, lifetimePrediction{action: "update",
				description: fmt.Sprintf("removes %s: no Quota of the shoot's binding sets a cluster lifetime", AnnotationExpirationTimestamp)})
		}
		return l, nil
	}
	l.days, l.quota = days, quota
	// The lifetime counts from the Shoot's creation; one this apply creates starts now.
	created := in.Now
	if live != nil {
		if c := live.GetCreationTimestamp(); !c.Time.IsZero() {
			created = c.Time
		}
	}
	end := created.Add(time.Duration(days) * 24 * time.Hour).UTC().Truncate(time.Second)
	switch {
	case b.v.ExpirationTimestamp != "":
		if err := b.admitExpiration(live, onShoot, days, in.Now); err != nil {
			return l, err
		}
		l.declared = b.v.ExpirationTimestamp
		end, _ = time.Parse(time.RFC3339, b.v.ExpirationTimestamp)
	case onShoot != "":
		if t, err := time.Parse(time.RFC3339, onShoot); err == nil {
			end = t
		}
	default:
		l.predictions = append(l.predictions, lifetimePrediction{action: "update",
			description: fmt.Sprintf("sets %s=%s (%s)", AnnotationExpirationTimestamp, end.Format(time.RFC3339), l.reason())})
	}
	l.ends = end.UTC()
	if live != nil && live.GetDeletionTimestamp() != nil {
		// Deleted before the end the engine knows of: gone for good all the same, so that the
		// shoot is not created again while its block stays (the state records the end).
		if deleted := live.GetDeletionTimestamp().Time.UTC(); deleted.Before(l.ends) {
			l.ends = deleted
		}
	}
	if live == nil || live.GetDeletionTimestamp() == nil {
		l.predictions = append(l.predictions, lifetimePrediction{action: "delete", at: l.ends, until: l.ends.Add(syncPeriod),
			description: fmt.Sprintf("deletes the Shoot, confirming the deletion, at its first look after %s (%s)", l.ends.Format(time.RFC3339), l.reason())})
	}
	if l.ends.After(in.Now) {
		l.notice = fmt.Sprintf("expires at %s (%s); gardener-controller-manager deletes it then", l.ends.Format(time.RFC3339), l.reason())
	}
	return l, nil
}

// admitExpiration refuses what gardener-apiserver's quota admission refuses: an expiration
// timestamp changed on an existing Shoot to later than now plus the lifetime
// (plugin/pkg/shoot/quotavalidator/admission.go at Gardener v1.120.0).
func (b *builder) admitExpiration(live *unstructured.Unstructured, onShoot string, days int64, now time.Time) error {
	t, err := time.Parse(time.RFC3339, b.v.ExpirationTimestamp)
	if err != nil {
		return fmt.Errorf("expiration_timestamp %q is not an RFC 3339 time", b.v.ExpirationTimestamp)
	}
	if live == nil || onShoot == b.v.ExpirationTimestamp {
		return nil
	}
	if latest := now.Add(time.Duration(days) * 24 * time.Hour); t.After(latest) {
		return fmt.Errorf("expiration_timestamp %s is later than %s: gardener-apiserver refuses to extend a shoot's life by more than its Quota's %d days from now", b.v.ExpirationTimestamp, latest.UTC().Format(time.RFC3339), days)
	}
	return nil
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

// lifetimePredictions are the quota loop's actions as the plan shows them.
func (b *builder) lifetimePredictions() []render.Prediction {
	var out []render.Prediction
	for _, p := range b.lifetime.predictions {
		pr := b.shootPrediction("shoot-quota", p.at, p.until, p.description)
		pr.Action = p.action
		out = append(out, pr)
	}
	return out
}

// observeLifetimeDays returns the shortest clusterLifetimeDays of the Quotas the shoot's binding
// references and the Quota that sets it; zero when none sets one (the quota loop takes the
// shortest too).
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
