# ralph-loop. "make demo" plays a scripted session through the real Claude Code CLI;
# "make test" runs every test. See README.md.

GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS   := -X main.version=$(VERSION)
BIN       := bin/ralph-loop
FUZZTIME  ?= 30s
STATICCHECK_VERSION := v0.8.2

.PHONY: all build install test unit lint fuzz clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/ralph-loop

install:
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/ralph-loop

# Unit tests, testscript scripts (testdata/script) and the fuzz seed corpora, with -race.
test: unit

unit:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...
	$(GO) mod tidy -diff

# Every fuzz target for FUZZTIME each; crashers land in <pkg>/testdata/fuzz/<Target>/.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$t ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

clean:
	rm -rf bin
