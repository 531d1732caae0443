package landscapetest

import (
	"fmt"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
)

// Events records the Events a daemon reports (daemon.EventRecorder), one line each:
// "<type> <reason>: <note>".
type Events struct {
	mu    sync.Mutex
	lines []string
}

// Eventf records one Event.
func (e *Events) Eventf(_, _ runtime.Object, eventtype, reason, _, note string, args ...interface{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lines = append(e.lines, eventtype+" "+reason+": "+fmt.Sprintf(note, args...))
}

// All returns the Events recorded so far, one per line.
func (e *Events) All() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.lines, "\n")
}
