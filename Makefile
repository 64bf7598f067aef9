# The README's two commands. Each installs missing Debian packages, configures
# and builds the release preset; `run` then runs the demo script, `test` the suite.
# `make fuzz` builds the libFuzzer harnesses with clang and runs each for
# FUZZ_SECONDS (fuzz/README.md); only it needs clang.
PRESET ?= release
BUILD := build/$(PRESET)
PACKAGES := cmake ninja-build g++ pkg-config libboost-dev libboost-filesystem-dev \
            libcli11-dev libtomlplusplus-dev doctest-dev liburing-dev librapidcheck-dev \
            redis-tools redis-server nlohmann-json3-dev librsvg2-bin
FUZZ_PACKAGES := clang-14 libfuzzer-14-dev
FUZZ_SECONDS ?= 60

.PHONY: run test deps fuzz-deps build fuzz clean format

run: build
	$(BUILD)/bin/rtctl run examples/scripts/hello.rts

test: build
	ctest --preset $(PRESET) -j2

build: deps
	cmake --preset $(PRESET) >/dev/null
	cmake --build --preset $(PRESET)

fuzz: fuzz-deps
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz
	fuzz/run.sh $(FUZZ_SECONDS)

fuzz-deps: deps
	@$(MAKE) --no-print-directory deps PACKAGES="$(FUZZ_PACKAGES)"

# Install only what is missing; apt-get update first, since a fresh machine's
# package lists may be empty.
deps:
	@missing=$$(for p in $(PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

format:
	git ls-files '*.cpp' '*.hpp' | xargs clang-format -i

clean:
	rm -rf build
