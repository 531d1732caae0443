package views

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestProgressPlainLines(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, false, false)
	p.Event(ProgressEvent{Address: "b", Status: "waiting", Detail: "a"})
	p.Event(ProgressEvent{Address: "a", Status: "started"})
	p.Event(ProgressEvent{Address: "a", Status: "applied", Duration: 1200 * time.Millisecond})
	p.Event(ProgressEvent{Address: "b", Status: "blocked", Detail: "blocked by a: boom"})
	p.Stop()
	assert.Equal(t, "… b: waiting for a\n~ a: applying\n✓ a: done after 1.2s\n✗ b: blocked: blocked by a: boom\n", buf.String())
}

func TestProgressLiveRedrawsInPlace(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, true, false)
	now := time.Unix(100, 0)
	p.now = func() time.Time { return now }
	p.Event(ProgressEvent{Address: "a", Status: "started"})
	now = now.Add(3 * time.Second)
	p.Event(ProgressEvent{Address: "b", Status: "waiting", Detail: "a"})
	p.Stop()
	out := buf.String()
	assert.Contains(t, out, "\x1b[1A", "the second draw moves up over the first")
	assert.Contains(t, out, "~ a: applying (3s)")
	last := out[strings.LastIndex(out, "\x1b[2A"):]
	assert.Less(t, strings.Index(last, "a: applying"), strings.Index(last, "b: waiting"), "running components are listed first")
}
