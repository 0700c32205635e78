// Package typescript holds HaulGraph's TypeScript package (package.json,
// src/, generated types in src/generated/, examples/); its Go test
// regenerates the types, runs the node tests, packs the package, installs
// the tarball into a scratch project, compiles the example program there
// under tsc --strict and runs it against a live server.
package typescript
