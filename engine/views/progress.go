package views

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// ProgressEvent is one step of an apply, as the progress view shows it.
type ProgressEvent struct {
	Address string
	// Status is "waiting", "started", "applied", "failed", "blocked" or "skipped".
	Status   string
	Detail   string
	Duration time.Duration
}

// Progress shows an apply while it runs. On a terminal (Live) it keeps a block of lines up to
// date: what runs (for how long), what waits (for which dependencies) and what finished; otherwise
// it prints one line per event, which reads well in CI logs.
type Progress struct {
	w     io.Writer
	live  bool
	color bool
	now   func() time.Time

	mu      sync.Mutex
	order   []string
	state   map[string]ProgressEvent
	started map[string]time.Time
	lines   int
	stop    chan struct{}
	done    chan struct{}
}

// NewProgress returns a progress view; live redraws in place (terminals only).
func NewProgress(w io.Writer, live, color bool) *Progress {
	p := &Progress{w: w, live: live, color: color, now: time.Now, state: map[string]ProgressEvent{}, started: map[string]time.Time{}}
	if live {
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go p.tick()
	}
	return p
}

// Event records one event.
func (p *Progress) Event(e ProgressEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, seen := p.state[e.Address]; !seen {
		p.order = append(p.order, e.Address)
	}
	p.state[e.Address] = e
	if e.Status == "started" {
		p.started[e.Address] = p.now()
	}
	if !p.live {
		_, _ = io.WriteString(p.w, string(p.line(e))+"\n")
		return
	}
	p.redraw()
}

// Stop ends live redrawing, leaving the final state on the screen.
func (p *Progress) Stop() {
	if !p.live {
		return
	}
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	p.redraw()
}

func (p *Progress) tick() {
	defer close(p.done)
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.redraw()
			p.mu.Unlock()
		}
	}
}

// redraw replaces the block drawn last; callers hold mu.
func (p *Progress) redraw() {
	var b strings.Builder
	if p.lines > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", p.lines)
	}
	addrs := append([]string(nil), p.order...)
	rank := map[string]int{"started": 0, "waiting": 1}
	sort.SliceStable(addrs, func(i, j int) bool {
		ri, ok := rank[p.state[addrs[i]].Status]
		if !ok {
			ri = 2
		}
		rj, ok := rank[p.state[addrs[j]].Status]
		if !ok {
			rj = 2
		}
		return ri < rj
	})
	for _, a := range addrs {
		b.WriteString("\x1b[2K")
		b.WriteString(string(p.line(p.state[a])))
		b.WriteString("\n")
	}
	p.lines = len(addrs)
	_, _ = io.WriteString(p.w, b.String())
}

// line renders one component's state, its address and detail escaped.
func (p *Progress) line(e ProgressEvent) styled {
	pr := &printer{color: p.color}
	// One line per component, or the live block miscounts what it redraws.
	e.Detail = strings.Join(strings.Fields(e.Detail), " ")
	switch e.Status {
	case "started":
		d := ""
		if p.live {
			d = fmt.Sprintf(" (%s)", p.now().Sub(p.started[e.Address]).Round(time.Second))
		}
		return sprintf("%s %s: applying%s", pr.paint(yellow, "~"), e.Address, d)
	case "waiting":
		return sprintf("%s %s: waiting for %s", pr.paint(cyan, "…"), e.Address, e.Detail)
	case "applied":
		return sprintf("%s %s: done after %s", pr.paint(green, "✓"), e.Address, e.Duration.Round(100*time.Millisecond))
	default:
		msg := ""
		if e.Detail != "" {
			msg = ": " + e.Detail
		}
		return sprintf("%s %s: %s%s", pr.paint(red, "✗"), e.Address, e.Status, msg)
	}
}
