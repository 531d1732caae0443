package state

import (
	"fmt"
	"testing"
)

// scaleState is a state of about the size of landscapes/scale at 100 shoots: 2,000 components
// owning 12,800 objects.
func scaleState() *State {
	s := Empty("scale")
	s.Lineage, s.Serial = "6f1c3a2e-0000-4000-8000-000000000000", 42
	for c := range 2000 {
		addr := fmt.Sprintf(`component.shoot["s%03d"].part%d`, c/20, c%20)
		comp := &Component{Address: addr, Type: "shoot_part", ConfigHash: fmt.Sprintf("%064x", c), DependsOn: []string{addr + ".dep"}}
		for o := range 6 {
			comp.Objects = append(comp.Objects, Object{
				Cluster: "seed-1", Group: "apps", Version: "v1", Kind: "Deployment",
				Namespace: fmt.Sprintf("shoot--dev--s%03d", c/20), Name: fmt.Sprintf("object-%d-%d", c, o),
				UID: fmt.Sprintf("%08x-0000-4000-8000-%012x", c, o),
			})
		}
		s.Components[addr] = comp
	}
	return s
}

// BenchmarkPackState is the CPU part of every write of a state kept in a cluster at scale:
// encoding and compressing the whole state (an apply writes it several times, in the
// background).
func BenchmarkPackState(b *testing.B) {
	s := scaleState()
	b.ReportAllocs()
	for b.Loop() {
		data, err := pack(s)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(data)), "bytes")
	}
}
