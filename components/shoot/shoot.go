// Package shoot renders the shoot composite block: the Shoot in its project namespace of the
// virtual garden and the control plane gardenlet deploys for it into the seed namespace
// shoot--<project>--<name> (pkg/gardenlet/operation/botanist/namespaces.go, pkg/gardenlet/controller/shoot/shoot/reconciler_reconcile.go, pkg/gardenlet/controller/shoot/shoot/reconciler_delete.go), as parts the engine applies in the order of
// gardenlet's reconcile flow:
//
//  1. the control-plane namespace with its labels and high-availability annotations, the
//     extensions Cluster ("before the reconciliation flow", Gardener's "Cluster"
//     docs/extensions/cluster.md), the cloudprovider Secret (a copy of the Secret the shoot's
//     binding names, Gardener's "Infrastructure" docs/extensions/resources/infrastructure.md) and
//     the generated certificates and keys;
//  2. the BackupEntry (on seeds with backup), etcd-main and etcd-events, the Infrastructure and
//     the Extensions whose registration reconciles them BeforeKubeAPIServer; what the Shoot's uid
//     decides (the BackupEntry's name, the etcd backup folder, the etcd schedules) is rendered
//     once the Shoot exists (identity.go);
//  3. kube-apiserver (after its etcds, Gardener's "Secrets Management"
//     docs/development/secrets_management.md) exposed through the seed's Istio ingress gateway by
//     SNI;
//  4. after the kube-apiserver: the shoot's gardener-resource-manager, and after both
//     vpn-seed-server, kube-controller-manager, kube-scheduler, the Extensions of lifecycle
//     AfterKubeAPIServer (the default, Gardener's "ControllerRegistration"
//     docs/extensions/registration.md; extension_lifecycles says which are not) and the
//     ControlPlane (after the Infrastructure, Gardener's "ControlPlane"
//     docs/extensions/resources/controlplane.md);
//  5. the OperatingSystemConfigs, the Network, machine-controller-manager, the Worker (after its
//     OperatingSystemConfigs and the Infrastructure, Gardener's "OperatingSystemConfig"
//     docs/extensions/resources/operatingsystemconfig.md, "Worker"
//     docs/extensions/resources/worker.md), cluster-autoscaler (after the Worker, Gardener's
//     docs/extensions/resources/worker.md) and the AfterWorker Extensions;
//  6. the shoot system components as ManagedResources (Gardener's "Conventions"
//     docs/extensions/conventions.md) once the shoot's resource manager runs.
//
// Beyond what each part needs, flowOrder (flow.go) adds the waits of gardenlet's flow between
// them. Outside the flow, the part network_policies holds the NetworkPolicies gardenlet's
// NetworkPolicy controller keeps in the control-plane namespace (networkpolicies.go).
//
// The Shoot itself comes first: gardenlet reconciles an existing Shoot, and gardener-controller-
// manager installs on-demand extensions for it and changes it (hibernation schedules, version
// maintenance), which the control plane follows.
//
// Deleting a shoot runs the order backwards, which is the documented delete flow, and deletes the
// Shoot last; where gardenlet's delete flow is not the reverse (the system components after the
// Worker, gardener-resource-manager and the DNS records after the kube-apiserver), flowOrder says
// so. Extensions are deleted before the kube-apiserver (Gardener's
// docs/extensions/registration.md) and the etcds last (Gardener's "etcd"
// docs/concepts/etcd.md). Hibernation empties the Worker's pools and reverses the order of the
// scaled parts (Gardener's docs/extensions/registration.md, docs/extensions/resources/worker.md):
// the Worker and the components after the kube-apiserver scale down first, then the kube-apiserver,
// then the etcds; waking up runs the reconcile order again.
//
// With the landscape's internal_domain, the kube-apiserver gets its internal DNSRecord, and the
// external one beside it (Gardener's "DNS Record" docs/extensions/resources/dnsrecord.md); their
// value is the address of the seed's load balancer, which the engine reads from the seed's gateway
// Service.
package shoot

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/shootextensions"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Failure tolerance types of .spec.controlPlane.highAvailability (Gardener's "Shoot High
// Availability" docs/usage/high-availability/shoot_high_availability.md).
const (
	FailureToleranceNode = "node"
	FailureToleranceZone = "zone"
)

// Labels and annotations gardenlet puts on the control-plane namespace (pkg/gardenlet/operation/botanist/namespaces.go,
// Gardener's "ControlPlane Webhooks" docs/extensions/controlplane-webhooks.md, "Provider Local"
// docs/extensions/provider-local.md, "High Availability Of Components"
// docs/development/high-availability-of-components.md).
const (
	LabelRole                     = "gardener.cloud/role"
	LabelShootProvider            = "shoot.gardener.cloud/provider"
	LabelSeedProvider             = "seed.gardener.cloud/provider"
	LabelConsiderHA               = "high-availability-config.resources.gardener.cloud/consider"
	LabelNetworkingProvider       = "networking.shoot.gardener.cloud/provider"
	LabelBackupProvider           = "backup.gardener.cloud/provider"
	LabelExtensionPrefix          = "extensions.gardener.cloud/"
	LabelPodSecurityEnforce       = "pod-security.kubernetes.io/enforce"
	AnnotationShootUID            = "shoot.gardener.cloud/uid"
	AnnotationFailureToleranceTyp = "high-availability-config.resources.gardener.cloud/failure-tolerance-type"
	AnnotationZones               = "high-availability-config.resources.gardener.cloud/zones"
)

// Type is the shoot block as the catalog registers it: its schema (schema.go) and its render
// function.
var Type = component.Define(typeSchema, renderValues)

// The defaults of blocks the shoot block may leave out, which stand in for them.
var (
	autoUpdateDefaults = component.BlockDefaults[AutoUpdate](typeSchema, "maintenance", "auto_update")
	kubeProxyDefaults  = component.BlockDefaults[KubeProxy](typeSchema, "kubernetes", "kube_proxy")
)

// renderValues renders one shoot instance into its parts and outputs.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	b, err := newBuilder(in.Name, v)
	if err != nil {
		return nil, err
	}
	return b.render(in)
}

// render decides what time and the live objects change about the shoot, then renders its parts.
// What gardener-controller-manager does to the Shoot (hibernation schedules, version
// maintenance, cluster lifetime, retries) is its own: the shoot block renders the Shoot with the
// live values of those fields, the control plane from the Shoot as it is or as the controller
// manager will have changed it by the evaluation time, and predicts its next actions.
func (b *builder) render(in render.Input) (*render.Output, error) {
	v := b.v
	b.in = in
	live, err := b.observeShoot(in)
	if err != nil {
		return nil, fmt.Errorf("shoot %s: read the live Shoot: %w", b.name, err)
	}
	loops, err := b.seed.shootLoops()
	if err != nil {
		return nil, fmt.Errorf("shoot %s: %w", b.name, err)
	}
	b.hibernation, err = decideHibernation(hibernationInput{
		declared: v.Hibernation, live: live, observed: in.Observation(), now: in.Now, deadline: loops.HibernationTriggerDeadline,
		liveIsDeclared: b.fromAPI,
	})
	if err != nil {
		return nil, fmt.Errorf("shoot %s: %w", b.name, err)
	}
	b.hibernated, b.shootHibernated = b.hibernation.enabled, b.hibernation.onShoot
	b.window = decideWindow(v.Maintenance, live, in.Now)
	b.operation = decideOperation(live)
	b.liveShoot = live
	tasks := maintenanceTasks(b.seed.ShootLoops.MaintenanceRestartControlPlane, b.seed.ShootLoops.MaintenanceRestartCoreAddons)
	if b.maintenance, err = b.decideVersions(in, live, tasks); err != nil {
		return nil, fmt.Errorf("shoot %s: %w", b.name, err)
	}
	b.retry = predictRetry(live, loops.RetryPeriod, loops.RetryJitterPeriod)
	if err := b.decideResourceManagerBootstrap(in); err != nil {
		return nil, fmt.Errorf("shoot %s: %w", b.name, err)
	}
	if !b.fromAPI { // a user's Shoot expires by gardener-controller-manager deleting it
		if b.lifetime, err = b.decideLifetime(in, live, loops.QuotaSyncPeriod); err != nil {
			return nil, fmt.Errorf("shoot %s: %w", b.name, err)
		}
	}
	if err := b.build(); err != nil {
		return nil, err
	}
	if b.seed.ManagedBy == "gardenlet" {
		return b.toGardenlet(), nil
	}
	out := &render.Output{Components: b.parts, Outputs: b.outputs(), Lifetime: b.lifetime.output(), Reports: []render.Report{b.report()}}
	out.Revisit = render.Earliest(b.hibernation.next, b.maintenance.next, b.lifetime.ends)
	for _, group := range [][]render.Prediction{b.hibernationPredictions(), b.maintenancePredictions(), b.retryPredictions(), b.lifetimePredictions()} {
		out.Predictions = append(out.Predictions, group...)
	}
	backupMove, err := b.backupMoveNotice(in)
	if err != nil {
		return nil, fmt.Errorf("shoot %s: read the live etcd-main: %w", b.name, err)
	}
	notices := append([]string{b.lifetime.notice, backupMove}, b.maintenance.notices...)
	notices = append(notices, b.operation.notice(v.Maintenance != nil && v.Maintenance.ConfineSpecUpdateRollout))
	for _, n := range notices {
		if n != "" {
			out.Notices = append(out.Notices, fmt.Sprintf("shoot %s: %s", b.name, n))
		}
	}
	return out, nil
}

// toGardenlet is the shoot on a seed handed to gardenlet: the Shoot alone. The seed's gardenlet
// reconciles every Shoot on it into its control plane, reports its status and carries out the
// operations asked of it, so the engine deploys nothing of the control plane (two writers of
// every object otherwise) and releases what it deployed while it managed the seed to gardenlet,
// which deploys the same objects under the same names. gardener-controller-manager's loops act
// on the Shoot as on any other, and plans predict them.
func (b *builder) toGardenlet() *render.Output {
	var shoot []render.Component
	var controlPlane []render.Component
	for _, p := range b.parts {
		if p.Name == "shoot" {
			p.Objects[0].Consume = nil // gardenlet removes the operations it carries out
			shoot = append(shoot, p)
			continue
		}
		controlPlane = append(controlPlane, p)
	}
	out := &render.Output{Components: shoot, Outputs: b.outputs(), Lifetime: b.lifetime.output(), HandedOver: render.HandOver(controlPlane, "gardenlet")}
	out.Predictions = append(b.hibernationPredictions(), b.maintenancePredictions()...)
	out.Predictions = append(out.Predictions, b.retryPredictions()...)
	out.Predictions = append(out.Predictions, b.lifetimePredictions()...)
	out.Revisit = render.Earliest(b.hibernation.next, b.maintenance.next, b.lifetime.ends)
	out.Notices = []string{fmt.Sprintf("shoot %s: seed %s is handed to gardenlet, which deploys the control plane and reports the Shoot's status; the landscape writes the Shoot alone", b.name, b.seed.Name)}
	return out
}

// Parts renders the parts of one shoot for values built in Go.
func Parts(name string, v Values) ([]render.Component, error) {
	b, err := newBuilder(name, v)
	if err != nil {
		return nil, err
	}
	if err := b.build(); err != nil {
		return nil, err
	}
	return b.parts, nil
}

// builder collects the parts of one shoot.
type builder struct {
	name string
	v    Values
	seed SeedRef
	// ns is the control-plane namespace, shoot--<project>--<name>.
	ns string
	// hibernated is whether the control plane hibernates: the landscape's
	// hibernation.enabled, or what the Shoot says (decideHibernation).
	hibernated bool
	// shootHibernated is the Shoot's spec.hibernation.enabled as the engine writes it.
	shootHibernated bool
	// shootValues are the values the Shoot is written with where they differ from the control
	// plane's: without gardener-apiserver's defaults (defaultAsTheAPI), and without the versions
	// gardener-controller-manager will have raised by the evaluation time.
	shootValues *Values
	// declared are the landscape's values, before the live Shoot raised any version.
	declared Values
	// operation is the gardener.cloud/operation the live Shoot asks for.
	operation operationRequest
	// hibernation is what the schedules decided, when the shoot has any.
	hibernation hibernationDecision
	// maintenance is what gardener-controller-manager's maintenance does to the versions.
	maintenance maintenance
	// retry is when gardener-controller-manager retries a shoot that failed on rate limits;
	// nil when it does not.
	retry *retryPrediction
	// lifetime is the end of the shoot's life its Quotas set.
	lifetime lifetime
	// window is the maintenance window in force (decideWindow).
	window shootWindow
	// tolerance is the failure tolerance type, "" without high availability.
	tolerance string
	// pods, services and nodes are the shoot's networks, the seed's defaults filled in.
	pods, services, nodes string
	parts                 []render.Component
	// legacyNames are the extension resources that keep the names of earlier versions, once
	// legacyExtensionNames looked.
	legacyNames *shootextensions.LegacyNames
	// scaled are the parts that scale to zero in hibernation, whose order hibernation reverses.
	scaled map[string]bool
	// fromAPI is set for a Shoot a user created through the Gardener API (RenderFromAPI): the
	// Shoot is theirs, so the builder renders only its control plane, from the Shoot as it is.
	fromAPI bool
	// liveShoot is the Shoot as the plan read it, nil before it exists; apiShoot is the Shoot a
	// user created through the API (RenderFromAPI).
	liveShoot, apiShoot *unstructured.Unstructured
	// identity is the Shoot's uid, creation time and window (decideIdentity).
	identity shootIdentity
	// grm is whether the shoot's gardener-resource-manager bootstraps its token.
	grm grmBootstrap
	// in is the render input, from which the NetworkPolicies read the seed API server's
	// endpoints; empty for Parts, which reads nothing.
	in render.Input
}

func newBuilder(name string, v Values) (*builder, error) {
	if v.Name != "" {
		name = v.Name
	}
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return nil, fmt.Errorf("shoot name %q is not a DNS label (%s); set name to one", name, strings.Join(errs, "; "))
	}
	if v.Seed == nil || v.Seed.Cluster == "" {
		return nil, fmt.Errorf("shoot %s: seed is not set: the engine deploys the control plane itself and needs the seed block that runs it", name)
	}
	if v.Seed.VirtualCluster == "" {
		return nil, fmt.Errorf("shoot %s: seed %s has no virtual garden cluster to create the Shoot in", name, v.Seed.Name)
	}
	if v.Project == "" {
		return nil, fmt.Errorf("shoot %s: project is required", name)
	}
	b := &builder{name: name, v: v, seed: *v.Seed, ns: shootextensions.TechnicalID(v.Project, name), scaled: map[string]bool{}}
	// Without live reads there is no access Secret yet: the GRM is deployed with its token path
	// (resourcemanager.MustBootstrap), as decideResourceManagerBootstrap decides then too.
	b.grm = grmBootstrap{}
	b.hibernated = v.Hibernation != nil && v.Hibernation.Enabled
	b.shootHibernated = b.hibernated
	b.declared = cloneValues(v)
	if cp := v.ControlPlane; cp != nil && cp.HighAvailability != nil {
		b.tolerance = cp.HighAvailability.FailureTolerance
	}
	// Gardener's "Gardener Scheduler" docs/concepts/scheduler.md, Gardener's
	// docs/usage/high-availability/shoot_high_availability.md: zone failure tolerance needs a seed
	// with at least three zones.
	if b.tolerance == FailureToleranceZone && len(b.seed.Zones) < 3 {
		return nil, fmt.Errorf("shoot %s: control_plane.high_availability.failure_tolerance zone needs a seed with at least three zones; seed %s has %d", name, b.seed.Name, len(b.seed.Zones))
	}
	if (v.ExposureClass == "") != (v.ExposureClassHandler == "") {
		return nil, fmt.Errorf("shoot %s: exposure_class and exposure_class_handler go together: set exposure_class_handler = component.exposure_class.<name>.handler", name)
	}
	if h := v.ExposureClassHandler; h != "" {
		if _, ok := b.seed.ExposureClassHandlers[h]; !ok {
			return nil, fmt.Errorf("shoot %s: seed %s has no exposure_class_handler %q for the shoot's exposure class %s", name, b.seed.Name, h, v.ExposureClass)
		}
	}
	if n := v.Networking; n != nil {
		b.pods, b.services, b.nodes = n.Pods, n.Services, n.Nodes
	}
	if b.pods == "" && len(v.Workers) > 0 {
		b.pods = b.seed.ShootPods
	}
	if b.services == "" {
		b.services = b.seed.ShootServices
	}
	if b.services == "" {
		return nil, fmt.Errorf("shoot %s: networking.services is not set and seed %s has no shoot default (networks.shoot_defaults.services)", name, b.seed.Name)
	}
	if len(v.Workers) > 0 && b.pods == "" {
		return nil, fmt.Errorf("shoot %s: networking.pods is not set and seed %s has no shoot default (networks.shoot_defaults.pods)", name, b.seed.Name)
	}
	if len(v.Workers) > 0 && (v.Networking == nil || v.Networking.Type == "") {
		return nil, fmt.Errorf("shoot %s: networking.type is required for a shoot with workers: it names the networking extension", name)
	}
	if err := checkWorkerless(name, v); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *builder) build() error {
	b.defaultAsTheAPI()
	b.decideIdentity(b.liveShoot)
	if b.hibernated {
		b.grm = grmBootstrap{} // scaled to zero, nothing bootstraps
	}
	steps := []func() error{b.registration, b.base, b.credentials, b.secrets, b.etcds, b.kubeAPIServer, b.dnsRecords, b.controllers, b.extensionResources, b.systemComponents, b.observabilityStack, b.flowOrder, b.publication, b.completeCluster, b.afterTheShoot, b.confineToWindow, b.networkPolicies}
	for _, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("shoot %s: %w", b.name, err)
		}
	}
	if b.hibernated {
		b.reverseScaled()
		// The parts that scale down first wait for nothing else now; they still wait for
		// the Shoot, which says that the shoot hibernates.
		_ = b.afterTheShoot()
	}
	if note := joinNotes(b.hibernation.note, b.maintenance.note()); note != "" {
		// Every part that hibernation changes says why: the scaled ones, the Shoot, and the
		// extensions Cluster that carries the Shoot's spec.
		for i := range b.parts {
			if p := &b.parts[i]; p.Secret == nil && p.Copy == nil {
				p.Note = joinNotes(p.Note, note)
			}
		}
	}
	return nil
}

// add appends a part of objects.
func (b *builder) add(name, typ string, objects []render.Object, deps ...string) {
	b.parts = append(b.parts, render.Component{Name: name, Type: typ, DependsOn: deps, Objects: objects})
}

// addScaled appends a part that scales to zero in hibernation.
func (b *builder) addScaled(name, typ string, objects []render.Object, deps ...string) {
	b.add(name, typ, objects, deps...)
	b.scaled[name] = true
}

// secret appends a generated-secret part in the control-plane namespace; a certificate's part
// depends on its CA's part.
func (b *builder) secret(part string, spec render.SecretSpec, caPart string) {
	b.parts = append(b.parts, render.SecretPart(part, b.seed.Cluster, b.ns, spec, "namespace", caPart))
}

// reverseScaled turns around every dependency between two scaled parts: during hibernation
// "the opposite rule is applied" (Gardener's docs/extensions/registration.md), so what comes after
// the kube-apiserver when waking up scales down before it, and the etcds scale down last. A part
// that does not scale but that a scaled part waits for (an OperatingSystemConfig before the Worker)
// no longer waits for the scaled parts it needs awake: nothing about it changes in hibernation, and
// keeping both directions would make a cycle.
func (b *builder) reverseScaled() {
	deps := map[string][]string{}
	for i, p := range b.parts {
		deps[p.Name] = p.DependsOn
		// Deleting a hibernated shoot still follows the delete flow: the reverse of the
		// reconcile order (or the Extensions' delete lifecycle), not of the hibernation order.
		if p.DeletionDependsOn == nil {
			b.parts[i].DeletionDependsOn = append([]string{}, p.DependsOn...)
		}
	}
	// neededByScaled: the parts that do not scale and that a scaled part waits for, directly or
	// through other such parts.
	neededByScaled := map[string]bool{}
	var visit func(string)
	visit = func(name string) {
		for _, d := range deps[name] {
			if !b.scaled[d] && !neededByScaled[d] {
				neededByScaled[d] = true
				visit(d)
			}
		}
	}
	for name := range b.scaled {
		visit(name)
	}
	reversed := map[string][]string{}
	for i, p := range b.parts {
		var keep []string
		for _, d := range p.DependsOn {
			switch {
			case b.scaled[p.Name] && b.scaled[d]:
				reversed[d] = append(reversed[d], p.Name)
			case neededByScaled[p.Name] && b.scaled[d]:
			default:
				keep = append(keep, d)
			}
		}
		b.parts[i].DependsOn = keep
	}
	for i, p := range b.parts {
		if r := reversed[p.Name]; len(r) > 0 {
			b.parts[i].DependsOn = append(b.parts[i].DependsOn, r...)
		}
	}
}

// highAvailability is whether the control plane runs with high availability of either type.
func (b *builder) highAvailability() bool { return b.tolerance != "" }

// zones are the seed zones the control plane's pods are pinned to (Gardener's
// docs/development/high-availability-of-components.md): exactly three for zone failure tolerance,
// otherwise one. Gardener picks the zone at random once; the engine derives it from the namespace,
// so that every plan picks the same one.
func (b *builder) zones() []string {
	zs := slices.Clone(b.seed.Zones)
	slices.Sort(zs)
	if len(zs) == 0 {
		return nil
	}
	if b.tolerance == FailureToleranceZone {
		return zs[:3]
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(b.ns))
	return []string{zs[int(h.Sum32()%uint32(len(zs)))]}
}

// domain is the shoot's DNS domain: dns_domain, else <name>.<project>.<default domain> as
// Gardener assigns it (Gardener's docs/extensions/resources/dnsrecord.md), else, in a landscape
// that declares no default domain, <name>.<project>.<seed ingress domain>.
func (b *builder) domain() string {
	if b.v.DNSDomain != "" {
		return b.v.DNSDomain
	}
	if d := b.v.DefaultDomain; d != nil && d.Domain != "" {
		return b.name + "." + b.v.Project + "." + d.Domain
	}
	return b.name + "." + b.v.Project + "." + b.seed.IngressDomain
}

// outputs are the shoot's outputs.
func (b *builder) outputs() map[string]cty.Value {
	return map[string]cty.Value{
		"name":         cty.StringVal(b.name),
		"namespace":    cty.StringVal(ProjectNamespace(b.v.Project)),
		"technical_id": cty.StringVal(b.ns),
		"api_endpoint": cty.StringVal("https://api." + b.domain()),
		"ca_bundle":    cty.StringVal(render.GeneratedRef(b.ns, secretCA, "ca.crt", false)),
	}
}

// ProjectNamespace is the namespace of a project's Shoots in the virtual garden, garden-<project>.
func ProjectNamespace(project string) string {
	if project == "garden" { // the garden project's namespace is garden itself (Gardener's docs/usage/shoot/shoot_purposes.md)
		return project
	}
	return "garden-" + project
}

// joinNotes joins the non-empty notes.
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}
