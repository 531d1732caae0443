package extension

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/controllerregistration"
	"github.com/declarative-gardener/gardener/components/helmrelease"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/managedresource"
	"github.com/declarative-gardener/gardener/components/networkpolicies"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Names and labels of what an installation renders in its seed, as gardenlet's ControllerInstallation
// controller makes them (pkg/gardenlet/controller/controllerinstallation/controllerinstallation/reconciler.go
// at Gardener v1.120.0).
const (
	// NamespacePrefix starts the seed namespace of every ControllerInstallation:
	// extension-<installation> (NamespaceNameForControllerInstallation in
	// pkg/utils/gardener/controllerinstallation.go).
	NamespacePrefix = "extension-"
	// SeedGardenNamespace holds the installation's ManagedResource in the seed.
	SeedGardenNamespace = "garden"
	// ManagedResourceClass is the class of the seed's own gardener-resource-manager, which
	// applies the chart's objects into the seed (Gardener's "Gardener Resource Manager"
	// docs/concepts/resource-manager.md).
	ManagedResourceClass = "seed"
	// LabelInstallation on the ManagedResource names the owning ControllerInstallation.
	LabelInstallation = "controllerinstallation-name"
	// LabelRegistration on the extension's namespace names its ControllerRegistration.
	LabelRegistration = "controllerregistration.core.gardener.cloud/name"
	// LabelRole marks the namespace as an extension's (gardener.cloud/role=extension).
	LabelRole = "gardener.cloud/role"
	// LabelHAConsider lets the resource manager's high-availability webhook handle the
	// extension's workloads like those of other seed system components (Gardener's "High
	// Availability Of Components" docs/development/high-availability-of-components.md);
	// AnnotationHAZones names the seed's zones for it.
	LabelHAConsider   = "high-availability-config.resources.gardener.cloud/consider"
	AnnotationHAZones = "high-availability-config.resources.gardener.cloud/zones"
	// LabelPodSecurityEnforce is set from the installation's pod security annotation, which
	// gardener-controller-manager copies from the registration (Gardener's "Conventions"
	// docs/extensions/conventions.md).
	LabelPodSecurityEnforce = "pod-security.kubernetes.io/enforce"
	// EnvSeedName is the variable gardenlet gives every container of the chart's workloads.
	EnvSeedName = "SEED_NAME"
)

// The condition types gardenlet reports on a ControllerInstallation (Gardener's
// ControllerInstallation in docs/api-reference/core.md).
const (
	conditionValid       = "Valid"
	conditionInstalled   = "Installed"
	conditionHealthy     = "Healthy"
	conditionProgressing = "Progressing"
	conditionRequired    = "Required"
)

// installer deploys the extension on one seed for the ControllerInstallation
// gardener-controller-manager made for it, as gardenlet's ControllerInstallation controller does:
// the part installation_<seed>, which follows the installation (render.Await).
type installer struct {
	v      Values
	seed   Seed
	values map[string]any
	// gcm is the seed as gardener-controller-manager's rule sees it, and what the garden's
	// registrations say, for After.
	gcm           gcmSeed
	registrations []gcmRegistration
	// policy is the registration's policy, OnDemand when unset.
	policy string
}

// part is the installation's part of the extension.
func (x *installer) part() render.Component {
	return render.Component{
		Name: partName(x.seed.Name), Type: "extension_installation", DependsOn: []string{"registration"},
		// Nothing waits for it: it comes after the Seed or the Shoots that need it, and what
		// needs the extension waits for its own resources (a Shoot's Infrastructure), as gardenlet's
		// flows do.
		Detached: true,
		Await: &render.Await{
			For:    fmt.Sprintf("the ControllerInstallation of %s for seed %s, which gardener-controller-manager creates", x.v.Name, x.seed.Name),
			After:  x.after,
			Render: x.render,
		},
	}
}

// after selects what makes gardener-controller-manager create the installation: the Seed, and,
// for a registration the seed does not need for itself (and whose policy is not Always), the
// Shoots on the seed that need it (any Shoot there for AlwaysExceptNoShoots). The rule reads the
// rendered objects, not live ones, so that the graph is the same on every run.
func (x *installer) after(cluster string, obj *unstructured.Unstructured) string {
	if cluster != x.v.VirtualCluster.Name || obj.GroupVersionKind().Group != "core.gardener.cloud" {
		return ""
	}
	switch obj.GetKind() {
	case "Seed":
		if obj.GetName() == x.seed.Name {
			return fmt.Sprintf("gardener-controller-manager creates the ControllerInstallation of %s for seed %s once the Seed exists", x.v.Name, x.seed.Name)
		}
	case "Shoot":
		if str(obj.Object, "spec", "seedName") != x.seed.Name || x.policy == policyAlways || x.servesAny(requiredForSeed(x.gcm, x.registrations)) {
			return ""
		}
		shoot := shootFromLive(obj)
		if x.policy == policyAlwaysExceptNoShoots || x.servesAny(requiredForShoot(shoot, &x.gcm, x.registrations, nil, nil)) {
			return fmt.Sprintf("gardener-controller-manager creates the ControllerInstallation of %s for seed %s once Shoot %s, which needs it, exists", x.v.Name, x.seed.Name, shoot.Name)
		}
	}
	return ""
}

// servesAny reports whether the registration serves one of the kinds and types.
func (x *installer) servesAny(ids set) bool {
	for _, r := range x.v.Resources {
		if ids[extensionID(r.Kind, r.Type)] {
			return true
		}
	}
	return false
}

// render deploys the extension for the seed's live ControllerInstallation; nil while it has none.
func (x *installer) render(in render.Input) (*render.Awaited, error) {
	ref := installationsRef
	ref.Cluster = x.v.VirtualCluster.Name
	list, err := in.Listed(ref)
	if err != nil {
		return nil, fmt.Errorf("list the ControllerInstallations of the virtual garden: %w", err)
	}
	ci := liveInstallation(list, x.v.Name, x.seed.Name)
	if ci == nil {
		return nil, nil
	}
	objects, err := x.deployment(ci)
	if err == nil {
		objects, err = x.withNetworkPolicies(in, objects)
	}
	if err != nil {
		return nil, fmt.Errorf("seed %s: %w", x.seed.Name, err)
	}
	return &render.Awaited{Objects: objects, StatusReports: []render.StatusReport{x.report(ci)}}, nil
}

// liveInstallation is the ControllerInstallation of the registration on the seed that is not
// being deleted (gardenlet deploys what one says and removes it when it goes), the first by
// name of several; nil when there is none.
func liveInstallation(list []unstructured.Unstructured, registration, seed string) *unstructured.Unstructured {
	var out *unstructured.Unstructured
	for i := range list {
		ci := &list[i]
		if ci.GetDeletionTimestamp() != nil || str(ci.Object, "spec", "registrationRef", "name") != registration || str(ci.Object, "spec", "seedRef", "name") != seed {
			continue
		}
		if out == nil || ci.GetName() < out.GetName() {
			out = ci
		}
	}
	return out
}

// deployment renders what gardenlet deploys for the installation ci: the namespace
// extension-<installation>, and the chart, rendered as the registration with Gardener's values
// mixed in and SEED_NAME in every container of its workloads, through the ManagedResource
// garden/<installation> of class seed.
func (x *installer) deployment(ci *unstructured.Unstructured) ([]render.Object, error) {
	name := ci.GetName()
	namespace := NamespacePrefix + name
	labels := map[string]string{LabelRole: "extension", LabelRegistration: x.v.Name, LabelHAConsider: "true"}
	if level := podSecurityOf(ci, x.v.PodSecurityEnforce); level != "" {
		labels[LabelPodSecurityEnforce] = level
	}
	ns, err := kube.ToUnstructured(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace, Labels: labels,
		Annotations: map[string]string{AnnotationHAZones: strings.Join(zones(x.seed), ",")}}})
	if err != nil {
		return nil, err
	}
	// gardenlet installs the chart as the registration, in the installation's namespace, with
	// its values mixed over the static ones (Gardener's docs/extensions/registration.md).
	rendered, err := helmrelease.Objects(helmrelease.Values{
		Cluster: x.seed.Cluster, Chart: x.v.Chart, Paths: x.v.Paths, Namespace: namespace, ReleaseName: x.v.Name,
		Values: merge(x.values, mixins(x.v, x.seed)),
	})
	if err != nil {
		return nil, fmt.Errorf("rendering the chart: %w", err)
	}
	objs := make([]*unstructured.Unstructured, 0, len(rendered))
	for _, o := range rendered {
		if err := setSeedName(o.Object, namespace, x.seed.Name); err != nil {
			return nil, err
		}
		objs = append(objs, o.Object)
	}
	packed, err := managedresource.Pack(managedresource.Spec{
		Cluster: x.seed.Cluster.Name, Namespace: SeedGardenNamespace, Name: name, Class: ManagedResourceClass, Objects: objs,
	})
	if err != nil {
		return nil, err
	}
	for _, o := range packed {
		if o.Object.GetKind() == "ManagedResource" {
			o.Object.SetLabels(map[string]string{LabelInstallation: name})
		}
	}
	return append(kube.On(x.seed.Cluster.Name, "", ns), packed...), nil
}

// withNetworkPolicies adds the NetworkPolicies gardenlet's NetworkPolicy controller keeps in the
// installation's namespace, which it selects by gardener.cloud/role=extension, with the seed's
// networks as its Seed names them: the seed entry's spec, else the live Seed's
// (components/networkpolicies). Where neither names a service network the networks are unknown,
// and no policy is rendered.
func (x *installer) withNetworkPolicies(in render.Input, objects []render.Object) ([]render.Object, error) {
	spec := x.seed.Spec
	if _, ok := networkpolicies.SeedNetworks(spec); !ok {
		ref := seedsRef
		ref.Cluster = x.v.VirtualCluster.Name
		seeds, err := in.Listed(ref)
		if err != nil {
			return nil, fmt.Errorf("list the Seeds of the virtual garden: %w", err)
		}
		for i := range seeds {
			if seeds[i].GetName() == x.seed.Name {
				spec, _, _ = unstructured.NestedMap(seeds[i].Object, "spec")
			}
		}
	}
	networks, ok := networkpolicies.SeedNetworks(spec)
	if !ok {
		return objects, nil
	}
	policies, err := networkpolicies.For(in, x.seed.Cluster.Name, networks, objects)
	if err != nil {
		return nil, err
	}
	return append(objects, policies...), nil
}

// podSecurityOf is the installation's pod security level: its annotation, which
// gardener-controller-manager copies from the registration, or, on an installation made before
// the registration had it, the landscape's.
func podSecurityOf(ci *unstructured.Unstructured, declared string) string {
	if level, ok := ci.GetAnnotations()[controllerregistration.AnnotationPodSecurityEnforce]; ok {
		return level
	}
	return declared
}

// zones are the seed's zones (.spec.provider.zones).
func zones(s Seed) []string {
	var out []string
	list, _ := dig(s.Spec, "provider", "zones").([]any)
	for _, z := range list {
		if zs, ok := z.(string); ok {
			out = append(out, zs)
		}
	}
	return out
}

// podSpecPaths are where the workloads of the apps and batch groups keep their pod spec.
var podSpecPaths = map[string][]string{
	"apps/Deployment": {"spec", "template", "spec"}, "apps/StatefulSet": {"spec", "template", "spec"},
	"apps/DaemonSet": {"spec", "template", "spec"}, "apps/ReplicaSet": {"spec", "template", "spec"},
	"batch/Job": {"spec", "template", "spec"}, "batch/CronJob": {"spec", "jobTemplate", "spec", "template", "spec"},
}

// setSeedName gives every container and init container of a workload of the apps and batch
// groups in the installation's namespace the variable SEED_NAME, replacing one the chart sets, as
// gardenlet does.
func setSeedName(obj *unstructured.Unstructured, namespace, seed string) error {
	path, ok := podSpecPaths[obj.GroupVersionKind().Group+"/"+obj.GetKind()]
	if !ok || obj.GetNamespace() != namespace {
		return nil
	}
	podSpec, found, err := unstructured.NestedMap(obj.Object, path...)
	if err != nil || !found {
		return err
	}
	for _, key := range []string{"initContainers", "containers"} {
		containers, _, _ := unstructured.NestedSlice(podSpec, key)
		for i, c := range containers {
			container, ok := c.(map[string]any)
			if !ok {
				continue
			}
			env, _, _ := unstructured.NestedSlice(container, "env")
			kept := env[:0:0]
			for _, e := range env {
				if m, ok := e.(map[string]any); !ok || m["name"] != EnvSeedName {
					kept = append(kept, e)
				}
			}
			container["env"] = append(kept, map[string]any{"name": EnvSeedName, "value": seed})
			containers[i] = container
		}
		if len(containers) > 0 {
			podSpec[key] = containers
		}
	}
	return unstructured.SetNestedMap(obj.Object, podSpec, path...)
}

// report is what gardenlet reports on the installation: Valid once its chart renders, and what
// its care controller derives from the ManagedResource (Installed, Healthy, Progressing) and its
// required controller from the extension resources in the seed (Required).
func (x *installer) report(ci *unstructured.Unstructured) render.StatusReport {
	name := ci.GetName()
	return render.StatusReport{
		Cluster: x.v.VirtualCluster.Name, APIVersion: InstallationAPIVersion, Kind: InstallationKind, Name: name,
		Conditions: func(in render.Input) ([]render.Condition, error) {
			mr, err := in.Observed(render.LiveRef{Cluster: x.seed.Cluster.Name, Group: "resources.gardener.cloud", Version: "v1alpha1",
				Resource: "managedresources", Namespace: SeedGardenNamespace, Name: name})
			if err != nil {
				return nil, err
			}
			required, decided, err := x.requiredCondition(in)
			if err != nil {
				return nil, err
			}
			valid := render.Condition{Type: conditionValid, Status: "True", Reason: "RegistrationValid", Message: "chart could be rendered successfully."}
			conds := append([]render.Condition{valid}, careConditions(mr, name)...)
			if decided {
				conds = append(conds, required)
			}
			return conds, nil
		},
	}
}

// careConditions are gardenlet's care controller's conditions of an installation from its
// ManagedResource (pkg/gardenlet/controller/controllerinstallation/care/reconciler.go and
// pkg/utils/kubernetes/health/managedresource.go at Gardener v1.120.0).
func careConditions(mr *unstructured.Unstructured, name string) []render.Condition {
	if mr == nil {
		// The text of the API server's NotFound error, which gardenlet quotes.
		msg := fmt.Sprintf("Failed to get ManagedResource %q: managedresources.resources.gardener.cloud %q not found", SeedGardenNamespace+"/"+name, name)
		return []render.Condition{
			{Type: conditionInstalled, Status: "Unknown", Reason: "SeedReadError", Message: msg},
			{Type: conditionHealthy, Status: "Unknown", Reason: "SeedReadError", Message: msg},
			{Type: conditionProgressing, Status: "Unknown", Reason: "SeedReadError", Message: msg},
		}
	}
	installed := render.Condition{Type: conditionInstalled, Status: "True", Reason: "InstallationSuccessful", Message: "The controller was successfully installed in the seed cluster."}
	if err := mrApplied(mr); err != "" {
		installed = render.Condition{Type: conditionInstalled, Status: "False", Reason: "InstallationPending", Message: err}
	}
	healthy := render.Condition{Type: conditionHealthy, Status: "True", Reason: "ControllerHealthy", Message: "The controller running in the seed cluster is healthy."}
	if err := mrCondition(mr, "ResourcesHealthy", "True"); err != "" {
		healthy = render.Condition{Type: conditionHealthy, Status: "False", Reason: "ControllerNotHealthy", Message: err}
	}
	progressing := render.Condition{Type: conditionProgressing, Status: "False", Reason: "ControllerRolledOut", Message: "The controller has been rolled out successfully."}
	if err := mrCondition(mr, "ResourcesProgressing", "False"); err != "" {
		progressing = render.Condition{Type: conditionProgressing, Status: "True", Reason: "ControllerNotRolledOut", Message: err}
	}
	return []render.Condition{installed, healthy, progressing}
}

// mrApplied is health.CheckManagedResourceApplied's error text, "" when the ManagedResource is
// applied in its current generation.
func mrApplied(mr *unstructured.Unstructured) string {
	observed, _, _ := unstructured.NestedInt64(mr.Object, "status", "observedGeneration")
	if observed != mr.GetGeneration() {
		return fmt.Sprintf("observed generation of managed resource %s/%s outdated (%d/%d)", mr.GetNamespace(), mr.GetName(), observed, mr.GetGeneration())
	}
	return mrCondition(mr, "ResourcesApplied", "True")
}

// mrCondition is the health check's error text for a ManagedResource condition that does not have
// the wanted status, "" when it has.
func mrCondition(mr *unstructured.Unstructured, typ, want string) string {
	for _, c := range slice(mr.Object, "status", "conditions") {
		if str(c, "type") != typ {
			continue
		}
		if status := str(c, "status"); status != want {
			return fmt.Sprintf("condition %s of managed resource %s/%s is %s: %s", typ, mr.GetNamespace(), mr.GetName(), status, str(c, "message"))
		}
		return ""
	}
	return fmt.Sprintf("condition %s for managed resource %s/%s has not been reported yet", typ, mr.GetNamespace(), mr.GetName())
}

// extensionResources are the plural resources of the extension kinds gardenlet watches in the seed
// to decide whether an installation is still required
// (pkg/gardenlet/controller/controllerinstallation/required/add.go).
var extensionResources = map[string]string{
	kinds.BackupBucketKind: "backupbuckets", kinds.BackupEntryKind: "backupentries", "Bastion": "bastions",
	kinds.ContainerRuntimeKind: "containerruntimes", kinds.ControlPlaneKind: "controlplanes", kinds.DNSRecordKind: "dnsrecords",
	kinds.ExtensionKind: "extensions", kinds.InfrastructureKind: "infrastructures", kinds.NetworkKind: "networks",
	kinds.OperatingSystemConfigKind: "operatingsystemconfigs", kinds.WorkerKind: "workers",
}

// requiredCondition is gardenlet's Required condition: True while extension resources of class
// shoot or seed (shoot when unset) of the registration's kinds and types exist in the seed, else
// False. decided is false when the registration serves a kind gardenlet does not watch and none
// of the others is in use: gardenlet's required controller then writes nothing
// (pkg/gardenlet/controller/controllerinstallation/required/reconciler.go at Gardener v1.120.0),
// and so does the engine.
func (x *installer) requiredCondition(in render.Input) (cond render.Condition, decided bool, err error) {
	inUse := set{}
	all := true
	for _, r := range x.v.Resources {
		resource, watched := extensionResources[r.Kind]
		if !watched {
			all = false
			continue
		}
		items, err := in.Listed(render.ListRef{Cluster: x.seed.Cluster.Name, Group: "extensions.gardener.cloud", Version: "v1alpha1", Resource: resource})
		if err != nil {
			return render.Condition{}, false, fmt.Errorf("list the %s of seed %s: %w", resource, x.seed.Name, err)
		}
		for _, item := range items {
			class := str(item.Object, "spec", "class")
			if (class == "" || class == "shoot" || class == "seed") && str(item.Object, "spec", "type") == r.Type {
				inUse.add(extensionID(r.Kind, r.Type))
			}
		}
	}
	switch {
	case len(inUse) > 0:
		ids := inUse.sorted()
		sort.Strings(ids)
		return render.Condition{Type: conditionRequired, Status: "True", Reason: "ExtensionObjectsExist",
			Message: fmt.Sprintf("extension objects still exist in the seed: [%s]", strings.Join(ids, " "))}, true, nil
	case !all:
		return render.Condition{}, false, nil
	}
	return render.Condition{Type: conditionRequired, Status: "False", Reason: "NoExtensionObjects",
		Message: "no extension objects exist in the seed having the kind/type combinations the controller is responsible for"}, true, nil
}
