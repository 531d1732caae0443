package seed

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The seed conditions gardener-controller-manager maintains, derived here from the same live
// objects so that `gardener status` shows them (Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md). The landscape's gardener-controller-manager writes them on
// the Seed; the engine only reports.
const (
	ConditionBackupBucketsReady = "BackupBucketsReady"
	ConditionExtensionsReady    = "ExtensionsReady"
)

var (
	backupBucketsRef = render.ListRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "backupbuckets"}
	installationsRef = render.ListRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "controllerinstallations"}
)

// conditions derives the seed's BackupBucketsReady and ExtensionsReady from the virtual garden's
// BackupBuckets and ControllerInstallations of the seed, and says when BackupBucketsReady turns
// from Progressing to False by time alone (zero when it does not). A seed without BackupBuckets
// gets no BackupBucketsReady (inferred: Gardener's documentation says only when it turns
// False and True). Without clusters to read there is nothing to report.
func conditions(in render.Input, name, virtual string, threshold time.Duration) ([]render.Condition, time.Time, error) {
	if in.List == nil {
		return nil, time.Time{}, nil // no clusters to read (graph, validate): nothing to report
	}
	var out []render.Condition
	var revisit time.Time
	buckets, err := listOfSeed(in, backupBucketsRef, virtual, name, "spec", "seedName")
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("seed %s: list the BackupBuckets: %w", name, err)
	}
	if len(buckets) > 0 {
		ready := backupBucketsReady(buckets)
		if ready.Status == "False" && threshold > 0 {
			// Only a failing bucket with a threshold needs the condition as Gardener last wrote it.
			live, err := in.Observed(render.LiveRef{Cluster: virtual, Group: "core.gardener.cloud", Version: "v1beta1", Resource: "seeds", Name: name})
			if err != nil {
				return nil, time.Time{}, fmt.Errorf("seed %s: read the live Seed: %w", name, err)
			}
			prev, known := gardenapi.LiveCondition(live, ConditionBackupBucketsReady)
			ready, revisit = withThreshold(ready, prev, known, threshold, in.Now)
		}
		out = append(out, ready)
	}
	installations, err := listOfSeed(in, installationsRef, virtual, name, "spec", "seedRef", "name")
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("seed %s: list the ControllerInstallations: %w", name, err)
	}
	return append(out, extensionsReady(installations)), revisit, nil
}

// withThreshold applies gardener-controller-manager's conditionThreshold to a BackupBucketsReady
// that would be False: "first be set to Progressing and eventually to False once the
// conditionThreshold expires" (Gardener's docs/concepts/controller-manager.md). First means from a
// condition that is True (inferred, as Gardener's care controllers do): it turns Progressing now,
// and stays Progressing until the threshold has passed since the live condition turned Progressing.
// From any other state (False, Unknown, not written yet, an unreadable transition time) it is False
// at once. It returns when a Progressing condition turns False (zero for False).
func withThreshold(failing render.Condition, live gardenapi.Condition, known bool, threshold time.Duration, now time.Time) (render.Condition, time.Time) {
	var since time.Time
	switch {
	case known && live.Status == "True":
		since = now
	case known && live.Status == "Progressing" && !live.LastTransitionTime.IsZero():
		since = live.LastTransitionTime
	default:
		return failing, time.Time{}
	}
	ends := since.Add(threshold)
	if !now.Before(ends) {
		return failing, time.Time{}
	}
	progressing := failing
	progressing.Status = "Progressing"
	progressing.Message = fmt.Sprintf("%s; False from %s if they persist (condition threshold %s)", failing.Message, ends.UTC().Format(time.RFC3339), threshold)
	return progressing, ends
}

// listOfSeed lists a resource of the virtual garden and keeps the objects whose field at path
// names the seed, sorted by name.
func listOfSeed(in render.Input, ref render.ListRef, virtual, seed string, path ...string) ([]unstructured.Unstructured, error) {
	ref.Cluster = virtual
	items, err := in.Listed(ref)
	if err != nil {
		return nil, err
	}
	var out []unstructured.Unstructured
	for _, item := range items {
		if s, _, _ := unstructured.NestedString(item.Object, path...); s == seed {
			out = append(out, item)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out, nil
}

// backupBucketsReady is False when at least one of the seed's BackupBuckets has a
// .status.lastError (Gardener's docs/concepts/controller-manager.md), naming the buckets and their
// errors, and True otherwise with the documented reason and message (Gardener's "Deploy Gardenlet
// Manually" docs/deployment/deploy_gardenlet_manually.md); withThreshold turns False into
// Progressing while a configured conditionThreshold runs.
func backupBucketsReady(buckets []unstructured.Unstructured) render.Condition {
	var failed []string
	for _, b := range buckets {
		if e, ok, _ := unstructured.NestedMap(b.Object, "status", "lastError"); ok && e != nil {
			desc, _ := e["description"].(string)
			failed = append(failed, fmt.Sprintf("%s: %s", b.GetName(), desc))
		}
	}
	if len(failed) > 0 {
		return render.Condition{Type: ConditionBackupBucketsReady, Status: "False", Reason: "BackupBucketsError",
			Message: "Backup Buckets have errors: " + strings.Join(failed, "; ")}
	}
	return render.Condition{Type: ConditionBackupBucketsReady, Status: "True", Reason: "BackupBucketsAvailable", Message: "Backup Buckets are available."}
}

// extensionsReady is True when every ControllerInstallation of the seed has Valid, Installed and
// Healthy True and Progressing False (Gardener's docs/concepts/controller-manager.md); otherwise
// False, naming each installation and the first condition that is not as it should be. Its reasons
// and messages are not documented (inferred).
func extensionsReady(installations []unstructured.Unstructured) render.Condition {
	var bad []string
	for _, i := range installations {
		if problem := installationProblem(&i); problem != "" {
			bad = append(bad, i.GetName()+": "+problem)
		}
	}
	if len(bad) > 0 {
		return render.Condition{Type: ConditionExtensionsReady, Status: "False", Reason: "NotAllExtensionsReady",
			Message: "Extensions are not ready: " + strings.Join(bad, "; ")}
	}
	return render.Condition{Type: ConditionExtensionsReady, Status: "True", Reason: "AllExtensionsReady",
		Message: fmt.Sprintf("All %d extensions installed into the seed are ready and healthy.", len(installations))}
}

// installationProblem says which of a ControllerInstallation's conditions is not as ready
// requires, with its message; "" when all are.
func installationProblem(u *unstructured.Unstructured) string {
	for _, want := range []struct{ typ, status string }{{"Valid", "True"}, {"Installed", "True"}, {"Healthy", "True"}, {"Progressing", "False"}} {
		c, ok := gardenapi.LiveCondition(u, want.typ)
		if !ok {
			return want.typ + " is not reported yet"
		}
		if c.Status != want.status {
			return fmt.Sprintf("%s is %s (%s)", want.typ, c.Status, c.Message)
		}
	}
	return ""
}
