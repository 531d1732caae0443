package readiness

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Rules for the Gardener API objects (core, seedmanagement, operations, operator): Gardener
// reports their health through conditions and the last operation (pkg/gardenlet/controller/shoot/care/health.go-4.7). Kinds
// of these groups without a rule (CloudProfile, SecretBinding, Quota, ControllerRegistration, ...)
// have no controller-reported health and are ready once they exist.

// conditionsAndOperation is the common shape of Seed, Shoot and Garden readiness: no operation
// request pending, the current generation observed, the last operation Succeeded, the required
// conditions True and the optional ones True when present. Operation problems come first because
// they carry the terminal verdict.
func conditionsAndOperation(obj *unstructured.Unstructured, required, optional []string) Status {
	if s, pending := pendingOperation(obj); pending {
		return s
	}
	if s, behind := generationBehind(obj); behind {
		return s
	}
	if s := lastOperationStatus(obj); !s.Ready {
		return s
	}
	conds := conditions(obj)
	return readyUnless(append(requireTrue(conds, required...), trueIfPresent(conds, optional...)...))
}

// seedReady: GardenletReady and SeedSystemComponentsHealthy True (the seed's reconciliation and
// system components, as gardenlet reports them), BackupBucketsReady True when the Seed has a
// backup (Gardener's docs/concepts/controller-manager.md) and the last operation Succeeded. Not
// ExtensionsReady, which Gardener's local readiness check also waits for (Gardener's "Getting
// Started Locally" docs/deployment/getting_started_locally.md): gardener-controller-manager
// derives it from the seed's ControllerInstallations, which it creates only once the Seed exists
// and which the engine installs after the Seed (render.Await), so that waiting for it here would
// wait for what comes after. The extensions are waited for where they are installed, and
// extensions ExtensionsReady ignores (an installation on demand for a shoot) would hold the seed
// back otherwise.
func seedReady(obj *unstructured.Unstructured, _ Options) Status {
	required := []string{"GardenletReady", "SeedSystemComponentsHealthy"}
	optional := []string{"BackupBucketsReady"}
	if backup, found, _ := unstructured.NestedMap(obj.Object, "spec", "backup"); found && backup != nil {
		required, optional = append(required, "BackupBucketsReady"), nil
	}
	return conditionsAndOperation(obj, required, optional)
}

// shootReady: the Shoot exists, so gardener-apiserver accepted it. The Shoot comes before its
// control plane: gardenlet reconciles an existing Shoot and gardener-controller-manager installs
// on-demand extensions only for existing Shoots, so a rule that waited for the Shoot's last
// operation, which is reported about the control plane deployed after it, would never end.
func shootReady(_ *unstructured.Unstructured, _ Options) Status {
	return ready()
}

// gardenReady: last operation Succeeded, VirtualGardenAPIServerAvailable and
// VirtualComponentsHealthy True (the local readiness check, Gardener's "Gardener
// Operator" docs/concepts/operator.md), and the runtime and observability conditions True when
// reported (Gardener's docs/concepts/operator.md).
func gardenReady(obj *unstructured.Unstructured, _ Options) Status {
	return conditionsAndOperation(obj,
		[]string{"VirtualGardenAPIServerAvailable", "VirtualComponentsHealthy"},
		[]string{"RuntimeComponentsHealthy", "ObservabilityComponentsHealthy"})
}

// controllerInstallationReady: Valid, Installed and Healthy True and Progressing not True, the test
// behind the Seed's ExtensionsReady (Gardener's "Gardener Controller
// Manager" docs/concepts/controller-manager.md).
func controllerInstallationReady(obj *unstructured.Unstructured, _ Options) Status {
	if s, behind := generationBehind(obj); behind {
		return s
	}
	conds := conditions(obj)
	return readyUnless(append(requireTrue(conds, "Valid", "Installed", "Healthy"), notTrue(conds, "Progressing")...))
}

// projectReady: status.phase Ready (Gardener's
// docs/concepts/controller-manager.md). Failed is not terminal: the project controller retries.
func projectReady(obj *unstructured.Unstructured, _ Options) Status {
	if s, behind := generationBehind(obj); behind {
		return s
	}
	if phase := stringField(obj, "status", "phase"); phase != "Ready" {
		return notReady("project phase is " + orDefault(phase, "not set yet"))
	}
	return ready()
}

// operationOnlyReady: kinds whose status mirrors an extension resource's last operation (core
// BackupBucket/BackupEntry, Gardener's "gardenlet" docs/concepts/gardenlet.md).
func operationOnlyReady(obj *unstructured.Unstructured, _ Options) Status {
	if s, behind := generationBehind(obj); behind {
		return s
	}
	return lastOperationStatus(obj)
}

// managedSeedReady: its Shoot was reconciled (ShootReconciled True, Gardener's ManagedSeed in
// docs/api-reference/seedmanagement.md and
// "gardenlet" docs/concepts/gardenlet.md).
func managedSeedReady(obj *unstructured.Unstructured, _ Options) Status {
	if s, behind := generationBehind(obj); behind {
		return s
	}
	return readyUnless(requireTrue(conditions(obj), "ShootReconciled"))
}

// bastionReady: Ready True (Gardener's Bastion in docs/api-reference/operations.md).
func bastionReady(obj *unstructured.Unstructured, _ Options) Status {
	if s, behind := generationBehind(obj); behind {
		return s
	}
	return readyUnless(requireTrue(conditions(obj), "Ready"))
}
