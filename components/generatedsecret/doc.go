// Package generatedsecret defines the generated_secret component type. It has a schema and no
// render function: the engine generates the Secret itself (engine/secrets), because a render
// function is pure and can neither create key material nor read what an earlier apply stored.
package generatedsecret

import "github.com/declarative-gardener/gardener/components/component"

// Type is the generated_secret component type as the catalog registers it.
var Type = component.EngineRendered(typeSchema)
