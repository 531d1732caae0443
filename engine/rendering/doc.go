// Package rendering drives the render functions of engine/render while the landscape is
// evaluated: a Renderer is the config.Hooks.Instance hook that hands each component instance to
// its type's render function and keeps what came back (Rendered) for the graph and the plan.
//
// What a pure render function cannot do itself happens here: a composite's parts (garden, seed,
// shoot) become instances of their own with their sibling order; generated secrets reuse the
// live Secret while it is valid (engine/secrets); Secret copies read their source as the
// landscape renders it or as it is live; markers of values live objects hold (a load balancer's
// address) and of generated certificates are resolved where their value is known; an instance
// whose lifetime ended renders nothing. Live objects are read through the callbacks the caller
// sets (engine/planner connects them to clusters), each once per run.
//
// engine/render is the contract the components implement; engine/plan turns what this package
// rendered into a plan.
package rendering

// Retirement is an instance whose lifetime ended (render.Output.Lifetime): either the rendering
// found its end passed, or the state records that an earlier apply began deleting it. The plan
// records it as a plan.Retirement, which has the same fields.
type Retirement struct {
	Address string
	// Ended is when the lifetime ended, RFC 3339.
	Ended  string
	Reason string
	// EndedBy names the Gardener controller that deletes what the instance applied
	// (render.Lifetime.EndedBy); empty when the engine deletes it.
	EndedBy string
	// Recorded is set when the state records the retirement already.
	Recorded bool
}
