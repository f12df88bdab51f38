# gpuplan - one GNU Makefile (musl-style: small, explicit).
#
#   make            build build/gpuplan and build/libgpuplan.a
#   make demo       build and run the main job on the embedded catalog
#   make check      build and run every test (SAN=1: under ASan+UBSan)
#   make bench      benchmarks (not timed tests)
#   make accuracy   score the estimators against validation/measurements.csv
#   make intervals  regenerate validation/intervals-*.csv from the scorers
#   make fuzz       run every libFuzzer target (FUZZ_SECONDS each)
#   make lint format golden-update install uninstall
#   make docs       regenerate docs/cli.md;  make update-po   refresh po/ (docs/i18n.md)
#
# Dependencies are Debian packages found with pkg-config; `scripts/deps.sh`
# installs missing ones when run as root, else prints the apt-get line.

SHELL      := /bin/sh
CC         ?= cc
PREFIX     ?= /usr/local
SAN        ?=
FUZZ_SECONDS ?= 60

ifeq ($(SAN),)
BUILD      ?= build
SANFLAGS   :=
else
BUILD      ?= build-san
SANFLAGS   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif

# Quiet build: one line per target; `make V=1` prints the full commands.
ifeq ($(V),1)
Q :=
say =
else
Q := @
say = printf '  %-6s %s\n' $(1) $(2)
endif

WARN := -std=c17 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wvla -Wwrite-strings -Wformat=2 -Wcast-qual -Werror
OPT  ?= -O2 -g

PKGS        := jansson libmicrohttpd yaml-0.1
PKG_CFLAGS   = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS     = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS  = $(shell pkg-config --libs cmocka 2>/dev/null)

# Front-ends see only include/ (the public API); library objects, and the
# white-box tests and tools, also see the library's private headers.
CPPFLAGS_ALL := -D_GNU_SOURCE -Iinclude -I$(BUILD)/gen
INTERNAL     := -Isrc/lib
CFLAGS_ALL    = $(WARN) $(OPT) $(SANFLAGS) $(CPPFLAGS_ALL) $(PKG_CFLAGS) $(CFLAGS)
LINK_PKG_LIBS = $(PKG_LIBS)
LDLIBS_ALL    = $(LINK_PKG_LIBS) -lm -ldl -lpthread $(LDLIBS)

LIB_SRC    := $(sort $(wildcard src/lib/*/*.c))
LIB_HDR    := $(sort $(wildcard src/lib/*/*.h))
CLI_SRC    := $(sort $(wildcard src/cli/*.c) $(wildcard src/server/*.c))
# validation/intervals-*.csv: the ranges on every estimate (src/lib/estimate/intervals.c)
DATA       := $(sort $(wildcard data/*.json) $(wildcard data/*.html)) \
              validation/intervals-memory.csv validation/intervals-throughput.csv
UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/targets/fuzz_*.c))

# The library but the compiled catalog (what tools/catalog_gen.c links to write it).
LIB_OBJ_BASE := $(LIB_SRC:src/lib/%.c=$(BUILD)/obj/lib/%.o) $(BUILD)/obj/gen/embedded_data.o
LIB_OBJ    := $(LIB_OBJ_BASE) $(BUILD)/obj/gen/catalog_data.o
CLI_OBJ    := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(CLI_SRC))
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/targets/fuzz_%.c=%)
REPLAY_BIN := $(FUZZ_NAMES:%=$(BUILD)/fuzz/replay_%)
LIBFUZZ_BIN:= $(FUZZ_NAMES:%=build-fuzz/fuzz_%)

.PHONY: all deps deps-test demo check unit fuzz-replay golden accuracy intervals bench fuzz lint format \
        golden-update install uninstall clean
all: deps $(BUILD)/gpuplan

# Installs missing Debian packages (as root) or says how.
deps:
	@scripts/deps.sh build
# The browser group (chromium, chromium-driver, python3-selenium) is installed by
# tests/suites/browser.sh itself, so that where it cannot be (no root, no network)
# that suite is skipped with a note instead of failing the whole check.
deps-test:
	@scripts/deps.sh build test

$(BUILD)/tools/embed: tools/embed.c
	@mkdir -p $(@D)
	@$(call say,CC,$@)
	$(Q)$(CC) -std=c17 -O2 -Wall -Wextra -Werror -o $@ $<

# (Makefile too: a file added to DATA is embedded in a build folder made before it)
$(BUILD)/gen/embedded_data.c: $(BUILD)/tools/embed $(DATA) Makefile
	@mkdir -p $(@D)
	@$(call say,EMBED,$@)
	$(Q)$(BUILD)/tools/embed $@ $(DATA)

$(BUILD)/obj/gen/embedded_data.o: $(BUILD)/gen/embedded_data.c
	@mkdir -p $(@D)
	@$(call say,CC,$@)
	$(Q)$(CC) $(CFLAGS_ALL) $(INTERNAL) -Wno-overlength-strings -c -o $@ $<

# The embedded catalog's records, loaded at build time with the library's own loader and
# written as C initialisers (catalog_compiled_internal.h): no JSON parsing at start-up.
$(BUILD)/tools/catalog_gen: tools/catalog_gen.c tools/catalog_none.c $(LIB_OBJ_BASE)
	@mkdir -p $(@D)
	@$(call say,CC,$@)
	$(Q)$(CC) $(CFLAGS_ALL) $(INTERNAL) -o $@ tools/catalog_gen.c tools/catalog_none.c \
	    $(LIB_OBJ_BASE) $(LDLIBS_ALL)

$(BUILD)/gen/catalog_data.c: $(BUILD)/tools/catalog_gen
	@mkdir -p $(@D)
	@$(call say,GEN,$@)
	$(Q)$(BUILD)/tools/catalog_gen $@

$(BUILD)/obj/gen/catalog_data.o: $(BUILD)/gen/catalog_data.c
	@mkdir -p $(@D)
	@$(call say,CC,$@)
	$(Q)$(CC) $(CFLAGS_ALL) $(INTERNAL) -Wno-overlength-strings -c -o $@ $<

$(BUILD)/obj/lib/%.o: src/lib/%.c $(wildcard include/gpuplan/*.h) $(LIB_HDR) | $(BUILD)/gen/embedded_data.c
	@mkdir -p $(@D)
	@$(call say,CC,$@)
	$(Q)$(CC) $(CFLAGS_ALL) $(INTERNAL) -c -o $@ $<

# The front-ends (src/cli, src/server) see the public API and, for the CLI's
# serve command, the server's interface (src/server/server.h).
FRONTEND := -Isrc/server
$(BUILD)/obj/%.o: src/%.c $(wildcard include/gpuplan/*.h) $(wildcard src/*/*.h)
	@mkdir -p $(@D)
	@$(call say,CC,$@)
	$(Q)$(CC) $(CFLAGS_ALL) $(FRONTEND) -c -o $@ $<

$(BUILD)/libgpuplan.a: $(LIB_OBJ)
	@rm -f $@
	@$(call say,AR,$@)
	$(Q)ar rcs $@ $^

# Programs linked against the library: the binary (front-ends: public API
# only), and the white-box unit tests, fuzz-corpus replays, tools and
# benchmarks (which also see the private headers). Each list names its
# prerequisites; one rule links them all: its C sources and objects, then
# libgpuplan.a.
TOOL_PROGS  := $(BUILD)/tools/accuracy $(BUILD)/tools/accuracy_throughput $(BUILD)/tools/accuracy_serving
BENCH_SRC   := $(sort $(wildcard tests/bench/bench_*.c))
BENCH_BIN   := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)
WHITE_BOX   := $(UNIT_BIN) $(REPLAY_BIN) $(TOOL_PROGS) $(BENCH_BIN)
$(BUILD)/gpuplan: $(CLI_OBJ) $(BUILD)/libgpuplan.a
# The binary does not link libmicrohttpd: `serve` loads it (src/server/mhd.h), so other
# commands do not pay for loading GnuTLS and its libraries at start-up.
$(BUILD)/gpuplan: LINK_PKG_LIBS = $(shell pkg-config --libs jansson yaml-0.1 2>/dev/null)
$(UNIT_BIN): $(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libgpuplan.a $(wildcard tests/unit/*.h)
$(REPLAY_BIN): $(BUILD)/fuzz/replay_%: tests/fuzz/targets/fuzz_%.c tests/fuzz/replay.c $(BUILD)/libgpuplan.a
$(TOOL_PROGS): $(BUILD)/tools/%: tools/%.c $(BUILD)/libgpuplan.a
$(BUILD)/tools/accuracy $(BUILD)/tools/accuracy_throughput $(BUILD)/tests/test_scoring: tools/scoring.h
$(BENCH_BIN): $(BUILD)/bench/%: tests/bench/%.c $(BUILD)/libgpuplan.a
$(WHITE_BOX): LINK_CPPFLAGS = $(INTERNAL)
$(UNIT_BIN): LINK_CPPFLAGS = $(INTERNAL) -Itests/unit
$(UNIT_BIN): LINK_LIBS = $(CMOCKA_LIBS)
# test_cli checks the CLI's tables and --help, test_pdf its PDF printer: they link the
# front-ends' objects but main.o.
CLI_TEST_OBJ := $(filter-out $(BUILD)/obj/cli/main.o,$(CLI_OBJ))
CLI_TESTS    := $(BUILD)/tests/test_cli $(BUILD)/tests/test_pdf
$(CLI_TESTS): $(CLI_TEST_OBJ)
$(CLI_TESTS): LINK_CPPFLAGS = $(INTERNAL) -Itests/unit -Isrc/cli $(FRONTEND)
$(BUILD)/gpuplan $(WHITE_BOX):
	@mkdir -p $(@D)
	@$(call say,CC,$@)
	$(Q)$(CC) $(CFLAGS_ALL) $(LINK_CPPFLAGS) -o $@ $(filter %.c %.o,$^) $(BUILD)/libgpuplan.a \
	    $(LINK_LIBS) $(LDLIBS_ALL)

demo: all
	@scripts/demo.sh $(BUILD)/gpuplan

# Stand-in NVML libraries for the detect tests (tests/stubs/nvml_stub.c): full, no _v2, no handle.
STUB_LIBS := $(BUILD)/stubs/libnvidia-ml.so.1 $(BUILD)/stubs/libnvidia-ml-nov2.so.1 \
             $(BUILD)/stubs/libnvidia-ml-noreq.so.1
STUB_CFLAGS := -std=c17 -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden
$(BUILD)/stubs/libnvidia-ml.so.1: tests/stubs/nvml_stub.c
	@mkdir -p $(@D)
	@$(call say,CC,$@)
	$(Q)$(CC) $(STUB_CFLAGS) -o $@ $<
$(BUILD)/stubs/libnvidia-ml-nov2.so.1: tests/stubs/nvml_stub.c
	@mkdir -p $(@D)
	@$(call say,CC,$@)
	$(Q)$(CC) $(STUB_CFLAGS) -DSTUB_NO_V2 -o $@ $<
$(BUILD)/stubs/libnvidia-ml-noreq.so.1: tests/stubs/nvml_stub.c
	@mkdir -p $(@D)
	@$(call say,CC,$@)
	$(Q)$(CC) $(STUB_CFLAGS) -DSTUB_NO_HANDLE -o $@ $<

# Test clients (tests/tools/*.c): the raw HTTP client of tests/suites/http_faults.sh.
TOOL_BIN := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(wildcard tests/tools/*.c))
$(TOOL_BIN): $(BUILD)/tools/%: tests/tools/%.c
	@mkdir -p $(@D)
	@$(call say,CC,$@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $<

check: deps-test $(BUILD)/gpuplan $(UNIT_BIN) $(REPLAY_BIN) $(TOOL_BIN) $(BUILD)/tools/accuracy_throughput $(STUB_LIBS)
	@BUILD=$(BUILD) SAN=$(SAN) scripts/run-tests.sh

# A report: prints the out-of-sample headlines, the per-class tables, the
# intervals and whether the issue's targets are met, and exits 0 when it ran
# (the regression gates live in `make check`: tests/suites/accuracy*.sh).
accuracy: $(BUILD)/tools/accuracy $(BUILD)/tools/accuracy_throughput $(BUILD)/tools/accuracy_serving
	@$(BUILD)/tools/accuracy --csv validation/measurements.csv --target-median 8 --target-p90 20 --target-coverage 80
	@$(BUILD)/tools/accuracy_throughput --csv validation/measurements.csv --target-median 0.15 --target-coverage 0.80
	@$(BUILD)/tools/accuracy_serving --csv validation/serving.csv --target-kv-median 3 --target-kv-p90 8
# Regenerate validation/intervals-*.csv (make check fails while they are stale).
intervals: $(BUILD)/tools/accuracy $(BUILD)/tools/accuracy_throughput
	@stamp="$$(date -u +%F) $$(git rev-parse --short HEAD 2>/dev/null || echo no-git)"; \
	$(BUILD)/tools/accuracy --write-intervals validation/intervals-memory.csv --stamp "$$stamp" >/dev/null && \
	$(BUILD)/tools/accuracy_throughput --write-intervals validation/intervals-throughput.csv --stamp "$$stamp" >/dev/null && \
	echo "wrote validation/intervals-memory.csv validation/intervals-throughput.csv ($$stamp)"

# Each tests/bench/bench_*.c is a program that prints its own figures.
bench: all $(BENCH_BIN)
	@for b in $(BENCH_BIN); do echo "== $$b"; BUILD=$(BUILD) $$b || exit 1; done
	@[ ! -x scripts/bench-extra.sh ] || BUILD=$(BUILD) scripts/bench-extra.sh

# libFuzzer builds always use clang with ASan+UBSan, in their own directory.
FUZZ_CFLAGS = -std=c17 -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Iinclude -Isrc/lib \
              -Ibuild-fuzz/gen $(PKG_CFLAGS)
build-fuzz/gen/embedded_data.c: $(BUILD)/tools/embed $(DATA)
	@mkdir -p $(@D)
	@$(call say,EMBED,$@)
	$(Q)$(BUILD)/tools/embed $@ $(DATA)
# The library is compiled once for every target (instrumented, not linked with
# libFuzzer's main: fuzzer-no-link), then each target links against it.
FUZZ_LIB_CFLAGS = $(subst -fsanitize=fuzzer$(COMMA),-fsanitize=fuzzer-no-link$(COMMA),$(FUZZ_CFLAGS))
COMMA := ,
# No compiled catalog (tools/catalog_none.c): the fuzzers' library parses the embedded JSON.
FUZZ_OBJ := $(LIB_SRC:src/lib/%.c=build-fuzz/obj/lib/%.o) build-fuzz/obj/gen/embedded_data.o \
            build-fuzz/obj/tools/catalog_none.o
.SECONDARY: $(FUZZ_OBJ)
build-fuzz/obj/lib/%.o: src/lib/%.c $(wildcard include/gpuplan/*.h) $(LIB_HDR)
	@mkdir -p $(@D)
	@$(call say,CLANG,$@)
	$(Q)clang $(FUZZ_LIB_CFLAGS) -c -o $@ $<
build-fuzz/obj/gen/embedded_data.o: build-fuzz/gen/embedded_data.c
	@mkdir -p $(@D)
	$(Q)clang $(FUZZ_LIB_CFLAGS) -c -o $@ $<
build-fuzz/obj/tools/catalog_none.o: tools/catalog_none.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(Q)clang $(FUZZ_LIB_CFLAGS) -c -o $@ $<
build-fuzz/fuzz_%: tests/fuzz/targets/fuzz_%.c $(FUZZ_OBJ)
	@mkdir -p $(@D)
	@$(call say,CLANG,$@)
	$(Q)clang $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_OBJ) $(LDLIBS_ALL)
fuzz:
	@scripts/deps.sh build fuzz
	@$(MAKE) --no-print-directory $(LIBFUZZ_BIN)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh $(FUZZ_NAMES)

# Also the charts' and the document's goldens (tests/golden/svg/), which their unit tests write.
golden-update: $(BUILD)/gpuplan $(STUB_LIBS) $(BUILD)/tests/test_svg $(BUILD)/tests/test_doc
	@GOLDEN_UPDATE=1 BUILD=$(BUILD) tests/golden/run.sh
	@GOLDEN_UPDATE=1 $(BUILD)/tests/test_svg >/dev/null && GOLDEN_UPDATE=1 $(BUILD)/tests/test_doc >/dev/null \
	    && echo "golden: tests/golden/svg/ (updated)"

lint:
	@scripts/lint.sh

# The C sources clang-format keeps in the style of .clang-format (checked by `make lint`
# and by make check's source_rules suite, scripts/check-format.sh).
FORMAT_SRC = $(wildcard include/gpuplan/*.h src/*/*.c src/*/*.h src/lib/*/*.c src/lib/*/*.h \
             tests/*/*.c tests/*/*.h tests/fuzz/targets/*.c tools/*.c)
format:
	clang-format -i $(FORMAT_SRC)

# ---- Fit the ecosystem: man page, completions, message catalogs, install ----
# The man page and docs/cli.md come from the hidden `gpuplan help-man` /
# `help-md`, which read the same tables as --help; the completion scripts ask
# `gpuplan __complete` at run time; po/POTFILES lists the files xgettext scans
# (docs/i18n.md).
VERSION    := $(shell sed -n 's/^#define GPUPLAN_VERSION "\(.*\)"/\1/p' include/gpuplan/gpuplan.h)
LINGUAS    := $(basename $(notdir $(wildcard po/*.po)))
POT_SRC    := $(shell cat po/POTFILES 2>/dev/null)
MO_FILES   := $(LINGUAS:%=$(BUILD)/locale/%/LC_MESSAGES/gpuplan.mo)
ECO_OUT    := $(BUILD)/gpuplan.1 $(BUILD)/completions/gpuplan.bash $(BUILD)/completions/_gpuplan \
              $(BUILD)/po/gpuplan.pot $(MO_FILES)
XGETTEXT_FLAGS := --language=C --from-code=UTF-8 --keyword=_ --keyword=N_ \
                  --keyword=cli_usage_error:2 --flag=cli_usage_error:2:c-format \
                  --keyword=GPUPLAN_TR --flag=GPUPLAN_TR:1:c-format --keyword=GPUPLAN_N_ \
                  --keyword=gpuplan_error_set:4 --flag=gpuplan_error_set:4:c-format \
                  --keyword=gpuplan_error_hint:2 --flag=gpuplan_error_hint:2:c-format \
                  --keyword=gpuplan_cursor_fail:5 --flag=gpuplan_cursor_fail:5:c-format \
                  --keyword=gpuplan_json_scan_fail:5 --flag=gpuplan_json_scan_fail:5:c-format \
                  --keyword=tensor_fail:5 --flag=tensor_fail:5:c-format \
                  --keyword=gpuplan_plan_add_text:4 --flag=gpuplan_plan_add_text:4:c-format --keyword=field_error:6 \
                  --keyword=REASON:2 --flag=REASON:2:c-format \
                  --keyword=WARNING:2 --flag=WARNING:2:c-format \
                  --keyword=NOTE:2 --flag=NOTE:2:c-format \
                  --add-comments=TRANSLATORS: --package-name=gpuplan --package-version=$(VERSION)
BINDIR     := $(PREFIX)/bin
LIBDIR     := $(PREFIX)/lib
INCLUDEDIR := $(PREFIX)/include
DATADIR    := $(PREFIX)/share
MANDIR     := $(DATADIR)/man
BASHCOMPDIR:= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR := $(DATADIR)/zsh/site-functions
LOCALEDIR  := $(DATADIR)/locale
.PHONY: docs update-po
all: $(ECO_OUT)
check: $(ECO_OUT)

$(BUILD)/gpuplan.1: $(BUILD)/gpuplan
	LC_ALL=C LANGUAGE= $(BUILD)/gpuplan help-man >$@.tmp && mv $@.tmp $@
$(BUILD)/completions/%: completions/%
	@mkdir -p $(@D)
	cp $< $@
$(BUILD)/po/gpuplan.pot: po/POTFILES $(POT_SRC)
	@mkdir -p $(@D)
	xgettext $(XGETTEXT_FLAGS) -f po/POTFILES -o $@
$(BUILD)/locale/%/LC_MESSAGES/gpuplan.mo: po/%.po
	@mkdir -p $(@D)
	msgfmt -c -o $@ $<

# Refresh po/gpuplan.pot from the sources and merge it into every po/LANG.po.
update-po: $(BUILD)/po/gpuplan.pot
	cp $< po/gpuplan.pot
	for l in $(LINGUAS); do msgmerge --quiet --update --backup=none po/$$l.po po/gpuplan.pot || exit 1; done
# Regenerate docs/cli.md from the option tables.
docs: $(BUILD)/gpuplan
	LC_ALL=C LANGUAGE= $(BUILD)/gpuplan help-md >docs/cli.md

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/gpuplan \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 $(BUILD)/gpuplan $(DESTDIR)$(BINDIR)/gpuplan
	install -m 644 $(BUILD)/libgpuplan.a $(DESTDIR)$(LIBDIR)/libgpuplan.a
	install -m 644 include/gpuplan/*.h $(DESTDIR)$(INCLUDEDIR)/gpuplan/
	install -m 644 $(BUILD)/gpuplan.1 $(DESTDIR)$(MANDIR)/man1/gpuplan.1
	install -m 644 $(BUILD)/completions/gpuplan.bash $(DESTDIR)$(BASHCOMPDIR)/gpuplan
	install -m 644 $(BUILD)/completions/_gpuplan $(DESTDIR)$(ZSHCOMPDIR)/_gpuplan
	for l in $(LINGUAS); do \
	    install -d $(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES && \
	    install -m 644 $(BUILD)/locale/$$l/LC_MESSAGES/gpuplan.mo \
	        $(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES/gpuplan.mo || exit 1; done
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' gpuplan.pc.in \
	    >$(DESTDIR)$(LIBDIR)/pkgconfig/gpuplan.pc

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/gpuplan $(DESTDIR)$(LIBDIR)/libgpuplan.a \
	    $(DESTDIR)$(LIBDIR)/pkgconfig/gpuplan.pc $(DESTDIR)$(MANDIR)/man1/gpuplan.1 \
	    $(DESTDIR)$(BASHCOMPDIR)/gpuplan $(DESTDIR)$(ZSHCOMPDIR)/_gpuplan \
	    $(LINGUAS:%=$(DESTDIR)$(LOCALEDIR)/%/LC_MESSAGES/gpuplan.mo)
	rm -rf $(DESTDIR)$(INCLUDEDIR)/gpuplan
# ---- end of the ecosystem rules ----

clean:
	rm -rf build build-san build-fuzz
