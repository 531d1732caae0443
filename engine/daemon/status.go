package daemon

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// ApproveAnnotation on the status ConfigMap approved the plan whose hash it held in earlier
// versions. It approves nothing now: anyone who may edit the status ConfigMap could set it,
// the daemon among them. The daemon ignores it and says so in the status (Status.Warnings).
const ApproveAnnotation = "declarative-gardener.io/approve"

// Approvals are ConfigMaps of their own, named after the status ConfigMap with ApprovalSuffix,
// holding the approved plan's hash under ApprovalKey: creating one is a deliberate act that an
// edit of the status is not, and RBAC can grant it to approvers without granting it to the
// daemon, which only reads it (docs/daemon.md, "Approvals"). `gardener approve HASH` writes it.
const (
	ApprovalSuffix = "-approval"
	ApprovalKey    = "plan-hash"
)

// StatusFieldManager is the field manager of the daemon's status writes; the daemon's watches
// do not count them as changes by others (the landscape_daemon component renders the status
// ConfigMap, so it is one of the landscape's objects).
const StatusFieldManager = "gardener-daemon"

// Phases of the daemon's last cycle.
const (
	PhaseApplied            = "Applied"
	PhaseUpToDate           = "UpToDate"
	PhasePlanned            = "Planned"
	PhaseWaitingForApproval = "WaitingForApproval"
	PhaseWaitingForLock     = "WaitingForLock"
	// PhaseWaitingForShard is a shard's cycle whose plan depends on instances of another shard
	// that have changes: it applies nothing until their shard applied them.
	PhaseWaitingForShard = "WaitingForShard"
	PhaseFailed          = "Failed"
	PhaseInvalid         = "Invalid"
)

// maxPlanJSON bounds the plan JSON kept on the status ConfigMap, well below its 1 MiB limit.
const maxPlanJSON = 512 << 10

// Status is what the daemon publishes after each cycle.
type Status struct {
	Landscape string
	Policy    Policy
	Phase     string
	// Message says what happened in a sentence.
	Message string
	// Fingerprint identifies the landscape version the cycle planned.
	Fingerprint string
	// Scope are the instances a targeted cycle planned (the shoots whose objects changed),
	// sorted; empty for a cycle of the whole landscape (of its shard, sharded).
	Scope    []string
	PlanTime time.Time
	PlanHash string
	// PlanSummary is the plan's summary line; PlanJSON the plan (empty when too large).
	PlanSummary string
	PlanJSON    string
	ApplyTime   time.Time
	// ApplyResult lists the components that were not applied, one per line.
	ApplyResult string
	LastSuccess time.Time
	// NextChange is when the landscape changes by time alone next (a hibernation schedule's
	// trigger); the daemon runs a cycle then.
	NextChange time.Time
	// Conditions are the landscape's derived conditions (a seed's ExtensionsReady), one line
	// each, as the cycle's plan read them.
	Conditions     []string
	Drifted        []string
	ComponentState map[string]string
	// Errors holds the landscape's diagnostics or the cycle's error.
	Errors string
	// Warnings are what the operator should know besides the phase, one sentence each: an
	// approval annotation that is ignored.
	Warnings []string
}

// StatusStore keeps the status on a ConfigMap.
type StatusStore struct {
	Client    kubernetes.Interface
	Namespace string
	Name      string
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// data is the status as ConfigMap data, one key a field.
func (s Status) data() map[string]string {
	d := map[string]string{
		"landscape":             s.Landscape,
		"policy":                string(s.Policy),
		"phase":                 s.Phase,
		"message":               s.Message,
		"fingerprint":           s.Fingerprint,
		"scope":                 strings.Join(s.Scope, "\n"),
		"last-plan-time":        stamp(s.PlanTime),
		"last-plan-hash":        s.PlanHash,
		"last-plan-summary":     s.PlanSummary,
		"last-apply-time":       stamp(s.ApplyTime),
		"last-apply-result":     s.ApplyResult,
		"last-successful-apply": stamp(s.LastSuccess),
		"next-scheduled-change": stamp(s.NextChange),
		"conditions":            strings.Join(s.Conditions, "\n"),
		"drifted-objects":       strings.Join(s.Drifted, "\n"),
		"errors":                s.Errors,
		"warnings":              strings.Join(s.Warnings, "\n"),
		"components":            componentLines(s.ComponentState),
	}
	if len(s.PlanJSON) <= maxPlanJSON {
		d["last-plan.json"] = s.PlanJSON
	} else {
		d["last-plan.json"] = fmt.Sprintf("(%d bytes, too large for the status; run gardener plan)", len(s.PlanJSON))
	}
	for k, v := range d {
		if v == "" {
			delete(d, k)
		}
	}
	return d
}

// content is the status's data without its times, to tell whether it changed.
func (s Status) content() string {
	d := s.data()
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(d)) {
		switch k {
		case "last-plan-time", "last-apply-time", "last-successful-apply":
			continue
		}
		fmt.Fprintf(&b, "%s=%q\n", k, d[k])
	}
	return b.String()
}

func componentLines(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%s: %s\n", k, m[k])
	}
	return b.String()
}

// Write publishes the status, keeping the ConfigMap's annotations (an approval among them), and
// returns the ConfigMap, which Events refer to.
func (st StatusStore) Write(ctx context.Context, s Status) (*corev1.ConfigMap, error) {
	cms := st.Client.CoreV1().ConfigMaps(st.Namespace)
	cm, err := cms.Get(ctx, st.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: st.Name, Namespace: st.Namespace,
			Labels: map[string]string{"app.kubernetes.io/name": "gardener-daemon"}}, Data: s.data()}
		cm, err = cms.Create(ctx, cm, metav1.CreateOptions{FieldManager: StatusFieldManager})
	} else if err == nil {
		cm.Data = s.data()
		cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: StatusFieldManager})
	}
	if err != nil {
		return nil, fmt.Errorf("status configmap %s/%s: %w", st.Namespace, st.Name, err)
	}
	return cm, nil
}

// ApprovalName is the name of the approval ConfigMap, in the status ConfigMap's namespace.
func (st StatusStore) ApprovalName() string { return st.Name + ApprovalSuffix }

// Approval is what approves the daemon's plans.
type Approval struct {
	// Hash is the plan hash the approval ConfigMap names; "" when there is none.
	Hash string
	// Ignored is the hash an ApproveAnnotation on the status ConfigMap still names; it approves
	// nothing, and the status says so.
	Ignored string
}

// Approval reads the approval ConfigMap, and the status ConfigMap for an annotation of earlier
// versions; missing ConfigMaps approve nothing.
func (st StatusStore) Approval(ctx context.Context) (Approval, error) {
	var a Approval
	cms := st.Client.CoreV1().ConfigMaps(st.Namespace)
	approval, err := cms.Get(ctx, st.ApprovalName(), metav1.GetOptions{})
	switch {
	case err == nil:
		a.Hash = approval.Data[ApprovalKey]
	case !apierrors.IsNotFound(err):
		return a, fmt.Errorf("approval configmap %s/%s: %w", st.Namespace, st.ApprovalName(), err)
	}
	status, err := cms.Get(ctx, st.Name, metav1.GetOptions{})
	switch {
	case err == nil:
		a.Ignored = status.Annotations[ApproveAnnotation]
	case !apierrors.IsNotFound(err):
		return a, fmt.Errorf("status configmap %s/%s: %w", st.Namespace, st.Name, err)
	}
	return a, nil
}

// IgnoredApprovalWarning is the status's warning about an ApproveAnnotation, which approves
// nothing any more.
func (st StatusStore) IgnoredApprovalWarning(hash string) string {
	return fmt.Sprintf("the annotation %s=%s on ConfigMap %s/%s is ignored: approvals are the ConfigMap %s/%s, which gardener approve HASH writes",
		ApproveAnnotation, hash, st.Namespace, st.Name, st.Namespace, st.ApprovalName())
}

// Approve records an approval of the plan with hash, as `gardener approve` does: it writes the
// approval ConfigMap (creating it, or updating the one an earlier approval left), after checking
// that hash is the plan the status shows. It runs with the approver's credentials; the daemon
// never calls it.
func (st StatusStore) Approve(ctx context.Context, hash string) error {
	cms := st.Client.CoreV1().ConfigMaps(st.Namespace)
	status, err := cms.Get(ctx, st.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("status configmap %s/%s: %w", st.Namespace, st.Name, err)
	}
	if pending := status.Data["last-plan-hash"]; pending != hash {
		return fmt.Errorf("plan %s is not the daemon's last plan (%s); check gardener status", hash, orNone(pending))
	}
	name := st.ApprovalName()
	data := map[string]string{ApprovalKey: hash}
	opts := metav1.CreateOptions{FieldManager: "gardener-approve"}
	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: st.Namespace,
		Labels: map[string]string{"app.kubernetes.io/name": "gardener-daemon", "app.kubernetes.io/component": "approval"}}, Data: data}, opts)
	if apierrors.IsAlreadyExists(err) {
		var cur *corev1.ConfigMap
		if cur, err = cms.Get(ctx, name, metav1.GetOptions{}); err == nil {
			cur.Data = data
			_, err = cms.Update(ctx, cur, metav1.UpdateOptions{FieldManager: "gardener-approve"})
		}
	}
	if err != nil {
		return fmt.Errorf("approval configmap %s/%s: %w", st.Namespace, name, err)
	}
	return nil
}

// Read returns the status ConfigMap's data.
func (st StatusStore) Read(ctx context.Context) (map[string]string, map[string]string, error) {
	cm, err := st.Client.CoreV1().ConfigMaps(st.Namespace).Get(ctx, st.Name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("status configmap %s/%s: %w", st.Namespace, st.Name, err)
	}
	return cm.Data, cm.Annotations, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
