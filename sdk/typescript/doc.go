// Package typescript holds HaulGraph's TypeScript package (package.json,
// src/, generated types in src/generated/, examples/); its Go test
// regenerates the types, type-checks the package with tsc --strict and
// runs the example program against a live server.
package typescript
