package readiness

import (
	"errors"
	"fmt"
	"strings"
)

// ErrTerminal is what a NotReadyError unwraps to when Wait stopped early because an object reported
// a terminal status.
var ErrTerminal = errors.New("will not become ready without a change")

// TargetStatus is the last known readiness of one target.
type TargetStatus struct {
	Target Target
	// Kind is the object's kind as last observed; empty while the object was never seen.
	Kind   string
	Status Status
}

// String renders `Kind namespace/name: reason`, e.g.
// `Deployment garden/etcd-druid: 1 of 2 replicas available (Progressing: ReplicaSet "x" is progressing)`.
func (s TargetStatus) String() string {
	head := s.Target.String()
	if s.Kind != "" {
		head = s.Kind + " " + s.Target.objectName()
	}
	if s.Status.Ready {
		return head + ": ready"
	}
	return head + ": " + orDefault(s.Status.Reason, "not ready")
}

// NotReadyError reports the targets that were not ready when Wait gave up, with the reason of
// each, so a timeout says what was not ready and why (issue 5 item 3).
type NotReadyError struct {
	// NotReady lists every target that was not ready, sorted by group, resource, namespace, name.
	NotReady []TargetStatus
	// Terminal is true when Wait stopped because at least one target will not become ready
	// without a change; those targets have Status.Terminal set.
	Terminal bool
	// Err is the cause: the context's error (deadline exceeded, cancelled) or ErrTerminal.
	Err error
}

// Error lists the terminal targets when Terminal, and every not-ready target otherwise.
func (e *NotReadyError) Error() string {
	shown := e.NotReady
	if e.Terminal {
		shown = nil
		for _, s := range e.NotReady {
			if s.Status.Terminal {
				shown = append(shown, s)
			}
		}
	}
	lines := make([]string, 0, len(shown))
	for _, s := range shown {
		lines = append(lines, s.String())
	}
	noun := "objects"
	if len(shown) == 1 {
		noun = "object"
	}
	if e.Terminal {
		return fmt.Sprintf("%d %s %s: %s", len(shown), noun, ErrTerminal, strings.Join(lines, "; "))
	}
	return fmt.Sprintf("%d %s not ready (%v): %s", len(shown), noun, e.Err, strings.Join(lines, "; "))
}

// Unwrap returns Err, so errors.Is(err, context.DeadlineExceeded) and errors.Is(err, ErrTerminal)
// work.
func (e *NotReadyError) Unwrap() error { return e.Err }
