package graph

import (
	"cmp"
	"strings"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/config"
)

// kindRank orders the kinds of blocks the way a landscape is built: the garden before seeds,
// seeds before shoots, and single components last. Text that is no address sorts after all of
// them.
var kindRank = map[string]int{"garden": 0, "seed": 1, "shoot": 2, "component": 3}

// sortKey is what Less compares of an instance address.
type sortKey struct {
	rank int
	// block is the block's address (`shoot.local`, `component.manifests.crds`).
	block string
	key   address.Key
	// part is the name of a composite's part, empty for the instance itself.
	part string
}

func keyOf(a config.InstanceAddress) sortKey {
	addr, err := address.Parse(string(a))
	if err != nil {
		return sortKey{rank: len(kindRank), block: string(a)} // after every block of the landscape
	}
	return sortKey{rank: kindRank[string(addr.Kind)], block: addr.Block().String(), key: addr.Key, part: addr.Part}
}

// Less is the tie-break of Order: by kind (garden, seed, shoot, component), then by block
// address, then by instance key, count indices numerically (x[2] before x[10]) and for_each
// keys lexically. Plans list components in this order among independent ones, so it reads
// top-down like the landscape: the garden first, shoots after their seeds.
func Less(a, b config.InstanceAddress) bool { return compare(keyOf(a), keyOf(b)) < 0 }

func compare(a, b sortKey) int {
	return cmp.Or(cmp.Compare(a.rank, b.rank), strings.Compare(a.block, b.block), a.key.Compare(b.key), strings.Compare(a.part, b.part))
}

// topoSort is Kahn's algorithm with a priority queue: of all vertices whose predecessors (as
// given by before; after is its transpose) are placed, the one of least priority comes next, by
// its number when priority is nil. The result is therefore the one order among all valid ones
// that is smallest by priority, whatever order the graph was built in. It assumes an acyclic
// graph; cycles are rejected before it is called.
func topoSort(before, after [][]vertex, priority []vertex) []vertex {
	waiting := make([]int, len(before))
	ready := &queue{priority: priority}
	for v, ps := range before {
		waiting[v] = len(ps)
		if len(ps) == 0 {
			ready.push(vertex(v))
		}
	}
	out := make([]vertex, 0, len(before))
	for len(ready.items) > 0 {
		v := ready.pop()
		out = append(out, v)
		for _, m := range after[v] {
			if waiting[m]--; waiting[m] == 0 {
				ready.push(m)
			}
		}
	}
	return out
}

// queue is a min-heap of vertices by priority (by number when priority is nil).
type queue struct {
	items    []vertex
	priority []vertex
}

func (q *queue) less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if q.priority != nil {
		a, b = q.priority[a], q.priority[b]
	}
	return a < b
}

func (q *queue) push(v vertex) {
	q.items = append(q.items, v)
	for i := len(q.items) - 1; i > 0; {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			break
		}
		q.items[i], q.items[parent] = q.items[parent], q.items[i]
		i = parent
	}
}

func (q *queue) pop() vertex {
	top := q.items[0]
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items = q.items[:last]
	for i := 0; ; {
		least, l, r := i, 2*i+1, 2*i+2
		if l < last && q.less(l, least) {
			least = l
		}
		if r < last && q.less(r, least) {
			least = r
		}
		if least == i {
			break
		}
		q.items[i], q.items[least] = q.items[least], q.items[i]
		i = least
	}
	return top
}
