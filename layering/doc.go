// Package layering holds the test of the import rules drawn in
// docs/architecture.md: which of the project's packages each may import.
package layering
