package readiness

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"slices"

	"github.com/declarative-gardener/gardener/engine/kinds"
)

// Status is the readiness verdict for one object.
type Status struct {
	// Ready is true when the object does what it was applied for.
	Ready bool
	// Reason says, for people, what is not ready and why, quoting the controller's own message
	// (a condition's or a last operation's) where there is one. Empty when Ready.
	Reason string
	// Terminal is true when the object will not become ready without a change by someone (a Job
	// that failed, a Deployment past its progress deadline, an extension reporting a configuration
	// problem): waiting longer is pointless, so Wait stops early.
	Terminal bool
	// Codes are the Gardener error codes the object's controller reported with its last errors
	// (an extension resource's status.lastError.codes), for reports that pass them on.
	Codes []string
}

// Equal reports whether two statuses say the same.
func (s Status) Equal(o Status) bool {
	return s.Ready == o.Ready && s.Reason == o.Reason && s.Terminal == o.Terminal && slices.Equal(s.Codes, o.Codes)
}

// Options tune rules that depend on what the landscape expects rather than on the object.
type Options struct {
	// RequireLoadBalancerAddress makes a Service of type LoadBalancer ready only once the cloud
	// (or a stand-in) has assigned it an ingress IP or hostname, for components whose dependents
	// need that address.
	RequireLoadBalancerAddress bool
}

// Check is CheckWith with default options.
func Check(obj *unstructured.Unstructured) Status { return CheckWith(obj, Options{}) }

// CheckWith returns the readiness of obj by the rule the kinds table names for its kind
// (kinds.ReadinessOf). Kinds without a rule are ready once they exist, unless their
// status.observedGeneration is behind metadata.generation. Objects being deleted are never ready.
// CheckWith does no I/O.
func CheckWith(obj *unstructured.Unstructured, opts Options) Status {
	if obj == nil {
		return notReady("not found")
	}
	if obj.GetDeletionTimestamp() != nil {
		return notReady("being deleted")
	}
	return rules[kinds.ReadinessOf(obj.GroupVersionKind().GroupKind())](obj, opts)
}

// rule is the readiness rule of one kind.
type rule func(obj *unstructured.Unstructured, opts Options) Status

// rules are the functions of the readiness rules the kinds table names (kinds.Rules.Readiness):
// the table says which rule judges a kind, this package how. Every rule the table names has a
// function (TestEveryReadinessRuleHasAFunction).
var rules = map[kinds.Readiness]rule{
	kinds.ObservedGeneration: func(obj *unstructured.Unstructured, _ Options) Status { return generationOnly(obj) },

	kinds.CRDEstablished:      crdReady,
	kinds.APIServiceAvailable: apiServiceReady,
	kinds.ServiceReady:        serviceReady,
	kinds.PVCBound:            pvcReady,
	kinds.NamespaceActive:     namespaceReady,
	kinds.PodReady:            podReady,
	kinds.DeploymentRollout:   deploymentReady,
	kinds.StatefulSetRollout:  statefulSetReady,
	kinds.DaemonSetRollout:    daemonSetReady,
	kinds.JobComplete:         jobReady,

	kinds.EtcdReady:              etcdReady,
	kinds.ManagedResourceHealthy: managedResourceReady,
	kinds.ExtensionSucceeded:     extensionReady,

	kinds.SeedReady:                   seedReady,
	kinds.ShootReady:                  shootReady,
	kinds.GardenReady:                 gardenReady,
	kinds.ControllerInstallationReady: controllerInstallationReady,
	kinds.ProjectReady:                projectReady,
	kinds.LastOperationSucceeded:      operationOnlyReady,
	kinds.ManagedSeedReady:            managedSeedReady,
	kinds.BastionReady:                bastionReady,
}

// generationOnly is the rule for kinds without one: present and observed.
func generationOnly(obj *unstructured.Unstructured) Status {
	if s, behind := generationBehind(obj); behind {
		return s
	}
	return ready()
}

func ready() Status { return Status{Ready: true} }

func notReady(reason string) Status { return Status{Reason: reason} }

func terminal(reason string) Status { return Status{Reason: reason, Terminal: true} }

// readyUnless is the verdict of a rule that collects every reason an object is not ready
// (conditions not True, work in progress): ready when there is none, otherwise not ready for all
// of them, in the order found, so that one wait message names every failing condition.
func readyUnless(reasons []string) Status {
	if len(reasons) > 0 {
		return notReady(joinReasons(reasons))
	}
	return ready()
}
