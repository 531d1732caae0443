// Package schemas declares each component type's and composite block's attributes once, as data:
// types, required or optional, defaults, descriptions, allowed values, immutability. The HCL
// decoder, cty types, reference docs and `gardener schema --json` are derived from it.
package schemas
