package graph

import (
	"cmp"
	"container/heap"
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

// reverseLess is the tie-break of ReverseOrder: components first, then shoots, seeds and the
// garden, by address within a kind; the reverse of how a landscape is built, with addresses still
// reading top-down.
func reverseLess(a, b config.InstanceAddress) bool {
	ka, kb := keyOf(a), keyOf(b)
	if ka.rank != kb.rank {
		return ka.rank > kb.rank
	}
	return compare(ka, kb) < 0
}

func compare(a, b sortKey) int {
	return cmp.Or(cmp.Compare(a.rank, b.rank), strings.Compare(a.block, b.block), a.key.Compare(b.key), strings.Compare(a.part, b.part))
}

// topoSort is Kahn's algorithm with a priority queue: of all instances whose predecessors (as
// given by before) are placed, the least by less comes next. The result is therefore the one
// order among all valid ones that is smallest by less, whatever order the input maps iterate in.
// It assumes an acyclic graph; cycles are rejected before it is called.
func topoSort(nodes []config.InstanceAddress, before map[config.InstanceAddress][]config.InstanceAddress,
	less func(a, b config.InstanceAddress) bool) []config.InstanceAddress {
	waiting := make(map[config.InstanceAddress]int, len(nodes))
	after := map[config.InstanceAddress][]config.InstanceAddress{}
	for _, n := range nodes {
		waiting[n] = len(before[n])
		for _, p := range before[n] {
			after[p] = append(after[p], n)
		}
	}
	ready := &queue{less: less}
	for _, n := range nodes {
		if waiting[n] == 0 {
			ready.items = append(ready.items, n)
		}
	}
	heap.Init(ready)
	out := make([]config.InstanceAddress, 0, len(nodes))
	for ready.Len() > 0 {
		n := heap.Pop(ready).(config.InstanceAddress)
		out = append(out, n)
		for _, m := range after[n] {
			if waiting[m]--; waiting[m] == 0 {
				heap.Push(ready, m)
			}
		}
	}
	return out
}

// queue is a min-heap of addresses under less.
type queue struct {
	items []config.InstanceAddress
	less  func(a, b config.InstanceAddress) bool
}

func (q *queue) Len() int           { return len(q.items) }
func (q *queue) Less(i, j int) bool { return q.less(q.items[i], q.items[j]) }
func (q *queue) Swap(i, j int)      { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *queue) Push(x any)         { q.items = append(q.items, x.(config.InstanceAddress)) }
func (q *queue) Pop() any {
	last := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return last
}
