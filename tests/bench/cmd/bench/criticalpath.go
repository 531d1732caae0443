package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// componentTimes reads the summary gardener apply prints at its end: a "Component Result Time"
// table with each component that had something to do, its result and how long it took from its
// start to ready (its writes and its readiness wait; "-" when it took no time).
func componentTimes(output string) (map[string]time.Duration, error) {
	at := strings.LastIndex(output, "\nComponent ")
	if at < 0 {
		return nil, errors.New("no component summary in the output")
	}
	times := map[string]time.Duration{}
	s := bufio.NewScanner(strings.NewReader(output[at+1:]))
	s.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	s.Scan() // the header
	for s.Scan() {
		f := strings.Fields(s.Text())
		if len(f) != 3 {
			break // the summary ends at the first line that is not a row
		}
		if f[2] == "-" {
			times[f[0]] = 0
			continue
		}
		d, err := time.ParseDuration(f[2])
		if err != nil {
			return nil, fmt.Errorf("component %s: time %q: %w", f[0], f[2], err)
		}
		times[f[0]] = d
	}
	return times, s.Err()
}

// graphDependencies reads `gardener graph --format json`: each component's dependencies.
func graphDependencies(data []byte) (map[string][]string, error) {
	var g struct {
		Nodes []struct {
			Address      string   `json:"address"`
			Dependencies []string `json:"dependencies"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("the graph: %w", err)
	}
	deps := make(map[string][]string, len(g.Nodes))
	for _, n := range g.Nodes {
		deps[n.Address] = n.Dependencies
	}
	return deps, nil
}

// criticalPath is the longest chain of dependencies by the sum of its components' times, and the
// chain from its first component to its last. A component that is not timed (nothing to do)
// counts zero; a cycle, which a graph gardener applied cannot have, is cut where it closes.
// Ties go to the address first in byte order, so the answer is deterministic.
func criticalPath(deps map[string][]string, times map[string]time.Duration) (time.Duration, []string) {
	finish := map[string]time.Duration{}
	via := map[string]string{}
	visiting := map[string]bool{}
	var visit func(a string) time.Duration
	visit = func(a string) time.Duration {
		if d, done := finish[a]; done {
			return d
		}
		if visiting[a] {
			return 0
		}
		visiting[a] = true
		var longest time.Duration
		for _, d := range deps[a] {
			if f := visit(d); f > longest || (f == longest && f > 0 && d < via[a]) {
				longest, via[a] = f, d
			}
		}
		visiting[a] = false
		finish[a] = longest + times[a]
		return finish[a]
	}
	last := ""
	var total time.Duration
	for _, a := range sortedKeys(deps) {
		if f := visit(a); f > total {
			last, total = a, f
		}
	}
	var path []string
	for a := last; a != ""; a = via[a] {
		path = append([]string{a}, path...)
	}
	return total, path
}
