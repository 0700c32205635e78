# The two commands: `make run` and `make test` (see README.md).
GO      ?= go
PKGS    ?= ./...
TESTFLAGS ?= -race -count=1 -timeout 30m

.PHONY: run test check generate build

# The built binary, not `go run`, so that SIGTERM and SIGINT reach the server
# through with-pg.sh (make forwards SIGTERM to the recipe it runs).
run: build
	exec ./scripts/with-pg.sh ./bin/haulgraph serve --seed-demo

test: check
	./scripts/with-pg.sh ./scripts/with-chromium.sh $(GO) test $(TESTFLAGS) $(PKGS)

# The gates CI enforces: generated code is current, formatting, vet.
check:
	./scripts/check-generated.sh
	@unformatted=$$(gofmt -l $$(find . -name '*.go' -not -path './.data/*')); test -z "$$unformatted" || { echo "gofmt would change: $$unformatted"; exit 1; }
	$(GO) vet ./...

generate:
	$(GO) generate ./...

build:
	$(GO) build -o bin/haulgraph ./cmd/haulgraph
