package graph

import (
	"container/heap"
	"strconv"
	"strings"

	"github.com/declarative-gardener/gardener/engine/config"
)

// kindRank orders the kinds of blocks the way a landscape is built: the garden before seeds,
// seeds before shoots, and single components last. Unknown prefixes sort after all of them.
var kindRank = map[string]int{"garden": 0, "seed": 1, "shoot": 2, "component": 3}

// sortKey splits an instance address into what Less compares.
type sortKey struct {
	rank  int
	block string
	// hasKey, numeric, num and str describe the instance key: none, a count index or a for_each
	// key.
	hasKey  bool
	numeric bool
	num     int
	str     string
	// part is the name of a composite's part, empty for the instance itself.
	part string
}

// SplitPart splits the address of a composite's part (`garden.local.virtual_garden_etcd_main`,
// `shoot.local["dev"].kube_apiserver`) into the composite instance's address and the part's
// name; for any other address it returns the address and "".
func SplitPart(a config.InstanceAddress) (config.InstanceAddress, string) {
	s := string(a)
	kind, rest, ok := strings.Cut(s, ".")
	if !ok || kind == "component" {
		return a, ""
	}
	if _, known := kindRank[kind]; !known {
		return a, ""
	}
	i := strings.IndexAny(rest, ".[")
	if i < 0 {
		return a, ""
	}
	end := len(kind) + 1 + i // index of the '.' or '[' after the block name
	if s[end] == '[' {
		j := keyEnd(s, end)
		if j < 0 || j+1 >= len(s) || s[j+1] != '.' {
			return a, ""
		}
		end = j + 1
	}
	return config.InstanceAddress(s[:end]), s[end+1:]
}

// keyEnd returns the index of the ']' closing the instance key that starts at open, skipping
// quoted strings with escapes; -1 when there is none.
func keyEnd(s string, open int) int {
	inString := false
	for i := open + 1; i < len(s); i++ {
		switch c := s[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && c == ']':
			return i
		}
	}
	return -1
}

func keyOf(a config.InstanceAddress) sortKey {
	inst, part := SplitPart(a)
	s := string(inst)
	k := sortKey{rank: len(kindRank), block: s, part: part}
	kind, _, _ := strings.Cut(s, ".")
	if r, ok := kindRank[kind]; ok {
		k.rank = r
	}
	i := strings.IndexByte(s, '[')
	if i < 0 || !strings.HasSuffix(s, "]") {
		return k
	}
	k.block, k.hasKey = s[:i], true
	raw := s[i+1 : len(s)-1]
	if n, err := strconv.Atoi(raw); err == nil {
		k.numeric, k.num = true, n
		return k
	}
	k.str = raw
	if u, err := strconv.Unquote(raw); err == nil {
		k.str = u
	}
	return k
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
	switch {
	case a.rank != b.rank:
		return a.rank - b.rank
	case a.block != b.block:
		return strings.Compare(a.block, b.block)
	case a.hasKey != b.hasKey:
		if !a.hasKey {
			return -1
		}
		return 1
	case a.numeric != b.numeric:
		if a.numeric {
			return -1
		}
		return 1
	case a.numeric && a.num != b.num:
		return a.num - b.num
	case a.str != b.str:
		return strings.Compare(a.str, b.str)
	}
	return strings.Compare(a.part, b.part)
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
