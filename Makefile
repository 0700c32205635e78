SHELL := /bin/bash

# The two commands: `make run` and `make test` (see README.md).
GO      ?= go
PKGS    ?= ./...
# Six parallel tests per package, not GOMAXPROCS' two: most of them wait on
# PostgreSQL, servers and child processes, and would leave the cores idle.
TESTFLAGS ?= -count=1 -timeout 30m -parallel 6
# make test's one compilation mode: the image's static, path-free build.
# Every go command under make test (the generators, the binary, the tests,
# the tests' own builds of the binary and the image, the fuzz targets)
# shares its compiled packages. Its links leave out DWARF and the symbol
# table (-w -s: nobody runs a debugger on them; stack traces and profiles
# need neither), some 40 % of linking; the image's build sets its own
# -ldflags. GOFLAGS quotes a value with a space.
TESTMODE = CGO_ENABLED=0 GOFLAGS="$(strip $(GOFLAGS) -trimpath '-ldflags=-s -w')"
# The tests' cluster: in memory when there is room (scripts/with-pg.sh).
TESTPG = env HAULGRAPH_PG_MEMORY=yes ./scripts/with-pg.sh
# The packages whose tests run goroutines against each other (the event
# hub and relay, webhook delivery, live subscriptions, WebSocket and event
# stream transports, rate limits, the connection edge, the server's
# bounds): make race runs their tests under the race detector, which needs
# cgo and a compilation of its own (CI runs it after make test).
RACE_PKGS ?= ./events/... ./graph/live ./graph/transport ./domain/webhooks ./ratelimit ./httpedge ./app
# Build tags of bin/haulgraph: blob_s3 and blob_gcs link the s3:// and gs://
# document drivers, left out by default for a short first build
# (docs/operating.md, "Document storage"): make build TAGS="blob_s3 blob_gcs".
TAGS    ?=
# Every cloud driver, vetted (and so compiled) by make check.
ALL_TAGS = blob_s3 blob_gcs

# The release a build is (haulgraph version; CHANGELOG.md): empty, the
# module version the toolchain records.
VERSION ?=
LDFLAGS = $(if $(VERSION),-X main.version=$(VERSION))

.PHONY: run reset test race check check-static generate build fuzz fuzz-targets sdk-typescript image release

# The built binary, not `go run`, so that SIGTERM and SIGINT reach the server
# through with-pg.sh (make forwards SIGTERM to the recipe it runs).
# HAULGRAPH_DEV_ALLOW_HTTP_WEBHOOKS: the README's receivers listen on http://127.0.0.1.
# HAULGRAPH_SHUTDOWN_DRAIN: no balancer to drain from, so Ctrl-C stops at once.
# Each step is announced on stderr; serve --seed-demo announces its own.
run:
	@echo "run: building bin/haulgraph (a first build compiles about 530 packages; later ones take seconds)" >&2
	@$(GO) build -tags '$(TAGS)' -o bin/haulgraph ./cmd/haulgraph
	@if [ -n "$${DATABASE_URL:-}" ]; then echo "run: database: DATABASE_URL" >&2; \
		else echo "run: database: the private PostgreSQL under .data (make reset removes it)" >&2; fi
	@HAULGRAPH_DEV_ALLOW_HTTP_WEBHOOKS=$${HAULGRAPH_DEV_ALLOW_HTTP_WEBHOOKS:-true} \
		HAULGRAPH_SHUTDOWN_DRAIN=$${HAULGRAPH_SHUTDOWN_DRAIN:-0} \
		exec ./scripts/with-pg.sh ./bin/haulgraph serve --seed-demo

# Removes make run's demo (private cluster, key, demo client) so that the next
# make run starts afresh; it stops nothing and refuses while the cluster runs.
reset:
	@./scripts/reset-demo.sh

# The packages of the binary the tests that run it share (cmd/haulgraph's,
# make build in the README's and the scripts' copies of the tree), compiled
# once here (go list -export: compiled, not linked) so that each of them
# finds them in the build cache; with them the packages most tests import.
# Then (scripts/test.sh; docs/testing.md) go test -vet=all (make check's
# vet on the build the tests compile) and the fuzz targets on its test
# binaries; beside them, the cloud drivers' dependencies resolved and the
# deploy and SDK modules' tests.
test:
	@$(TESTMODE) $(MAKE) --no-print-directory check-static
	$(TESTMODE) $(GO) list -export -deps ./cmd/haulgraph >/dev/null
	@$(TESTMODE) GO='$(GO)' TESTFLAGS='$(TESTFLAGS)' PKGS='$(PKGS)' ALL_TAGS='$(ALL_TAGS)' FUZZTIME='$(FUZZTIME)' \
		./scripts/with-tools.sh $(TESTPG) ./scripts/with-chromium.sh ./scripts/test.sh $(FUZZ_TARGETS)

# RACE_PKGS' tests under the race detector (cgo; a build of its own).
race:
	@CGO_ENABLED=1 ./scripts/with-tools.sh $(TESTPG) ./scripts/with-chromium.sh \
		$(GO) test -race $(TESTFLAGS) $(RACE_PKGS)

# Fuzz targets (package:function), each run for FUZZTIME: in `make test`
# 2,000 inputs, unguided, on the tests' own build (a count, not a duration:
# a duration's deadline fails a run whose workers a loaded machine slows);
# `make fuzz` builds them instrumented, guided by coverage, longer by hand
# (docs/testing.md).
# Failing inputs land in the package's testdata/fuzz/ and then run with
# every `go test`.
FUZZTIME ?= 2000x
FUZZ_TARGETS = \
	./domain:FuzzParseDateTime \
	./domain:FuzzCheckText \
	./domain:FuzzIdentifier \
	./rest:FuzzDecodeBodies \
	./rest:FuzzParseVersion \
	./rest:FuzzReadUploadParts \
	./graph/transport:FuzzReadMultipart \
	./graph/transport:FuzzWebsocketBeforeInit \
	./webhooksig:FuzzParse \
	./webhooksig:FuzzVerify \
	./app:FuzzBodyDeadline \
	./graph/operation:FuzzDocumentBounds \
	./graph/operation:FuzzActualCost \
	./jsonkey:FuzzRepeated \
	./jsonkey:FuzzFold \
	./rest:FuzzCheckQuery \
	./domain/webhooks:FuzzPublicAddr \
	./rest:FuzzCSVCell \
	./domain/eventlog:FuzzOpenEventCursor

# FuzzReadUploadParts stores into a real PostgreSQL: the loop runs under with-pg.sh.
fuzz:
	@$(TESTPG) $(MAKE) --no-print-directory fuzz-targets

# A target that is not in its package fails: go test would say "no fuzz
# tests to fuzz" and pass (scripts/fuzz.sh).
fuzz-targets:
	@GO='$(GO)' FUZZTIME='$(FUZZTIME)' ./scripts/fuzz.sh $(FUZZ_TARGETS)

# The gates CI enforces: generated code is current, formatting, vet (of the
# build with every cloud driver too). -trimpath, as the binary make test
# builds next: vet's compilations are then that build's, not a second one.
check: check-static
	$(GO) vet -trimpath ./...
	$(GO) vet -trimpath -tags '$(ALL_TAGS)' ./cmd/haulgraph
	cd deploy && $(GO) vet ./...
	cd sdk/haulgraph && GOWORK=off $(GO) vet ./...

check-static:
	./scripts/check-generated.sh
	@unformatted=$$(gofmt -l $$(find . -name '*.go' -not -path './.data/*' -not -path '*/node_modules/*')); test -z "$$unformatted" || { echo "gofmt would change: $$unformatted"; exit 1; }

generate:
	$(GO) generate ./...
	cd sdk/haulgraph && GOWORK=off $(GO) generate ./...

build:
	$(GO) build -tags '$(TAGS)' -ldflags '$(LDFLAGS)' -o bin/haulgraph ./cmd/haulgraph

# The OCI image (docs/deploy.md), built without a container daemon:
# bin/haulgraph-image.tar, VERSION and TAGS as for build.
image:
	VERSION='$(VERSION)' TAGS='$(TAGS)' GO='$(GO)' ./scripts/build-image.sh bin/haulgraph-image.tar

# Tags the current commit VERSION and records it in CHANGELOG.md.
release:
	@test -n '$(VERSION)' || { echo "usage: make release VERSION=vX.Y.Z" >&2; exit 2; }
	./scripts/release.sh '$(VERSION)'

# The TypeScript package's generated types (sdk/typescript/src/generated),
# from rest/openapi.json, schema/ and sdk/typescript/operations/; its Go
# test fails while they differ.
sdk-typescript:
	cd sdk/typescript && npm ci --ignore-scripts --no-audit --no-fund && node generate.mjs
