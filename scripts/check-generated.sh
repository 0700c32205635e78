#!/usr/bin/env bash
# Fails when `go generate ./...` changes generated code: it hashes the
# directories gqlgen, the event catalogue and the SDK's types write, the served OpenAPI document, and go.mod/go.sum
# (which gqlgen tidies), before and after running it. The Go SDK is a module
# of its own, which the root's `go generate ./...` does not enter: it is
# generated in its directory too.
set -euo pipefail
cd "$(dirname "$0")/.."
dirs="graph resolvers contract rest/openapi.json sdk go.mod go.sum"
digest() { { find $dirs -type f -not -path '*/node_modules/*' 2>/dev/null || true; } | LC_ALL=C sort | xargs -r sha256sum | sha256sum; }
before=$(digest)
# -trimpath: the generators' compilations (the standard library, shared
# modules) are then those of the -trimpath builds make test runs next.
GOFLAGS="$(go env GOFLAGS) -trimpath" go generate ./...
(cd sdk/haulgraph && GOWORK=off GOFLAGS="$(go env GOFLAGS) -trimpath" go generate ./...)
after=$(digest)
if [ "$before" != "$after" ]; then
  echo "go generate changed the tree: run 'make generate' and commit the result" >&2
  git status --short -- $dirs >&2 || true
  exit 1
fi
