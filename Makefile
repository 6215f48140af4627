# arenaprof: one entry point. make [all|check|bench|fuzz|demo|install|clean] [V=1]
# CC, ARCH, CROSS_COMPILE, CFLAGS, LDFLAGS, PREFIX and DESTDIR are honoured.
#
# For a board (docs/arm64.md):
#   make                                                      native, on the board itself
#   make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- BUILD=build/arm64     cross, on Debian
# A cross build takes its libraries from the :arm64 multiarch packages through
# $(CROSS_COMPILE)pkg-config (scripts/install-deps installs both).

ARCH ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
CROSS_COMPILE ?=
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
ifneq ($(CROSS_COMPILE),)
PKG_CONFIG ?= $(CROSS_COMPILE)pkg-config
else
PKG_CONFIG ?= pkg-config
endif
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

CFLAGS ?= -O2 -g
CLANG ?= clang
BPFTOOL ?= bpftool
LIBS_PC := libbpf libelf libdw zlib libpng ncursesw
# The kernel types of the target arch (bpf/README.md says where each comes from), checked
# first: an arch without them (32-bit ARM) is refused before its libraries are looked for.
VMLINUX_H := bpf/$(ARCH)/vmlinux.h
ifeq ($(filter clean,$(MAKECMDGOALS))$(wildcard $(VMLINUX_H)),)
$(error no $(VMLINUX_H): ARCH=$(ARCH) is not supported (x86, arm64); scripts/gen-vmlinux makes one from a kernel's BTF)
endif
# No silent fallback to the build machine's own libraries: a cross build without the
# :arm64 packages stops here with the fix named.
ifeq ($(filter clean,$(MAKECMDGOALS)),)
PC_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(LIBS_PC) 2>/dev/null)
PC_LIBS := $(shell $(PKG_CONFIG) --libs $(LIBS_PC) 2>/dev/null)
ifeq ($(PC_LIBS),)
ifneq ($(CROSS_COMPILE),)
$(error $(PKG_CONFIG) finds no $(LIBS_PC) for ARCH=$(ARCH): install the cross toolchain and the :$(ARCH) libraries with scripts/install-deps)
else
$(error $(PKG_CONFIG) finds no $(LIBS_PC): install them with scripts/install-deps)
endif
endif
endif
AP_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude -I$(BUILD) \
	$(PC_CFLAGS) $(CFLAGS)
AP_LDLIBS := $(PC_LIBS) -lm -lpthread

# make SANITIZE=1 [all unit]: the command, the unit tests and the fixtures built with
# AddressSanitizer and UndefinedBehaviorSanitizer, stopping at the first error, into their
# own directory $(BUILD)/sanitize. make check runs the tests on them once
# (tests/integration/test_sanitize.sh).
ifeq ($(SANITIZE),1)
override BUILD := $(BUILD)/sanitize
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
AP_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude -I$(BUILD) \
	$(PC_CFLAGS) $(CFLAGS) $(SAN_FLAGS)
AP_LDLIBS += $(SAN_FLAGS)
endif

# src/ has one folder per stage of the pipeline (docs/design.md); all but main.c go into
# the library the command, the fixtures and the tests link.
MAIN_SRC := src/cli/main.c
MAIN_OBJ := $(BUILD)/obj/cli/main.o
LIB_SRCS := $(filter-out $(MAIN_SRC),$(wildcard src/*/*.c src/*/*/*.c))
LIB_OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
LIB := $(BUILD)/libarenaprof.a
BPF_SRCS := $(wildcard bpf/*.bpf.c)
SKELS := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
# tests/fixtures/*.c: mininfer (the default workload) at build/mininfer, the rest under
# build/fixtures/.
FIXTURE_SRCS := $(filter-out tests/fixtures/mininfer.c,$(wildcard tests/fixtures/*.c))
FIXTURES := $(BUILD)/mininfer $(patsubst tests/fixtures/%.c,$(BUILD)/fixtures/%,$(FIXTURE_SRCS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

.PHONY: check-layers all check unit bench fuzz demo install install-strip uninstall deb deb-arm64 clean arm64 \
	check-arm64 check-arm64-litert check-litert-models
all: $(BUILD)/arenaprof $(FIXTURES)

# The boards' build beside the host's, for the arm64 VM suite: on an x86-64 host, the
# cross build in $(BUILD)/arm64. make check builds it and boots it (scripts/vmtest --arch
# arm64, run by tests/integration/test_vm_arm64.sh).
ARM64_CROSS ?= aarch64-linux-gnu-
ifeq ($(shell uname -m),x86_64)
ARM64_BUILD := $(BUILD)/arm64
arm64:
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 CROSS_COMPILE=$(ARM64_CROSS) \
		CC=$(ARM64_CROSS)gcc PKG_CONFIG=$(ARM64_CROSS)pkg-config BUILD=$(ARM64_BUILD) all unit
else
ARM64_BUILD := $(BUILD)
arm64: all
endif

# BPF: CO-RE object from the checked-in vmlinux.h of the target arch, then a skeleton.
$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(VMLINUX_H) $(wildcard bpf/*.h) include/arenaprof/event.h \
		include/arenaprof/dmabuf_event.h \
		| $(BUILD)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) -Ibpf/$(ARCH) \
		-Ibpf -Iinclude -c $< -o $@.tmp.o && $(BPFTOOL) gen object $@ $@.tmp.o && \
		rm -f $@.tmp.o
.SECONDARY: $(patsubst bpf/%.bpf.c,$(BUILD)/bpf/%.bpf.o,$(BPF_SRCS))

$(BUILD)/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# The skeleton is generated: its users wait for it, and only they (-MMD finds the rest).
SKEL_USERS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(shell grep -l "\.skel\.h" $(LIB_SRCS)))
$(SKEL_USERS): $(SKELS)

# The test fixture and default workload (tests/fixtures/mininfer.c): exported markers
# for uprobes, so no stripping and no inlining across them.
$(BUILD)/mininfer: tests/fixtures/mininfer.c $(LIB) | $(BUILD)/obj $(BUILD)/deps
	$(call msg,CC,$@)
	$(Q)$(CC) $(AP_CFLAGS) $(DEPFLAGS) -MF $(BUILD)/deps/mininfer.d -O1 -fno-inline-functions \
		-rdynamic $< $(LIB) $(AP_LDLIBS) -o $@

$(BUILD)/fixtures/%: tests/fixtures/%.c $(LIB) | $(BUILD)/fixtures $(BUILD)/deps
	$(call msg,CC,$@)
	$(Q)$(CC) $(AP_CFLAGS) $(DEPFLAGS) -MF $(BUILD)/deps/fixture_$*.d -O1 \
		-fno-inline-functions -rdynamic $< $(LIB) $(AP_LDLIBS) -o $@

# Each object rebuilds when a header it includes changes: -MMD writes the list beside it
# (a program's in $(BUILD)/deps, away from the programs), -MP keeps a removed header from
# breaking the build.
DEPFLAGS = -MMD -MP
$(BUILD)/obj/%.o: src/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(AP_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(CROSS_COMPILE)ar rcs $@ $^

$(BUILD)/arenaprof: $(MAIN_OBJ) $(LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(AP_LDLIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c $(LIB) | $(BUILD)/tests $(BUILD)/deps
	$(call msg,CC,$@)
	$(Q)$(CC) $(AP_CFLAGS) $(DEPFLAGS) -MF $(BUILD)/deps/$*.d -Itests/unit $< $(LIB) \
		$(AP_LDLIBS) -o $@

$(BUILD)/obj $(BUILD)/tests $(BUILD)/bpf $(BUILD)/fixtures $(BUILD)/deps:
	$(Q)mkdir -p $@

unit: $(UNIT_BINS)

# The scale table's (make bench) and the hostile-scale test's inputs: the trace generator
# and the live model's driver (the TUI's rows).
SCALE_TRACE := $(BUILD)/bench/scale_trace
SCALE_LIVE := $(BUILD)/bench/scale_live
$(SCALE_TRACE) $(SCALE_LIVE): $(BUILD)/bench/%: bench/%.c $(LIB) | $(BUILD)/deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(AP_CFLAGS) $(DEPFLAGS) -MF $(BUILD)/deps/$*.d -O2 $< $(LIB) \
		$(AP_LDLIBS) -o $@

-include $(LIB_OBJS:.o=.d) $(MAIN_OBJ:.o=.d) $(wildcard $(BUILD)/deps/*.d)

# Every test: unit tests, then integration tests; the runner prints one summary line.
check: all unit $(FIXTURES) $(SCALE_TRACE) $(SCALE_LIVE) arm64
	$(Q)BUILD=$(BUILD) ARM64_BUILD=$(ARM64_BUILD) tests/run-tests

# The folder order of docs/design.md from the includes, and the size rules (make check
# runs it too: tests/integration/test_layers.sh).
check-layers:
	$(Q)python3 scripts/check-layers

# The arm64 VM suites alone (both kernels; VMTEST_KERNELS="6.12" for one): the guest
# tests, and a real LiteRT traced in the guest. make check runs both.
check-arm64: all arm64
	$(Q)BUILD=$(BUILD) ARM64_BUILD=$(ARM64_BUILD) tests/integration/test_vm_arm64.sh

check-arm64-litert: all arm64
	$(Q)BUILD=$(BUILD) ARM64_BUILD=$(ARM64_BUILD) tests/integration/test_vm_arm64_litert.sh

# The LiteRT comparison of make check on models the project has not seen:
# make check-litert-models LITERT_MODELS=DIR (every DIR/*.tflite, both runtimes).
check-litert-models: all
	$(Q)test -d "$(LITERT_MODELS)" || { echo "usage: make check-litert-models" \
		"LITERT_MODELS=DIR" >&2; exit 2; }
	$(Q)out=$$(BUILD=$(BUILD) LITERT_MODELS="$(LITERT_MODELS)" \
		bash tests/integration/test_litert_plan.sh); echo "$$out"; \
		! echo "$$out" | grep -q '^FAIL:'

bench: all $(SCALE_TRACE) $(SCALE_LIVE)
	$(Q)BUILD=$(BUILD) bench/run-bench

# make fuzz FUZZ_SECONDS=60 [FUZZ_TARGETS="report plan"] [FUZZ_MERGE=1]: libFuzzer under ASan
# and UBSan, FUZZ_SECONDS per target: model (the model reader), trace (the trace reader),
# report (a trace through analysis, correlation, report, heatmap and export), import_csv,
# import_litert, import_tflm (the plan importers), plan (a model through the planner),
# procfs (the /proc parsers) and cli (every command's option parser). tests/fuzz/run-fuzz
# says where corpora and crashes go.
FUZZ_SECONDS ?= 30
FUZZ_TARGETS ?= model trace report import_csv import_litert import_tflm plan procfs cli
fuzz:
	$(Q)BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS="$(FUZZ_TARGETS)" \
		FUZZ_MERGE=$(FUZZ_MERGE) tests/fuzz/run-fuzz

demo: all
	$(Q)BUILD=$(BUILD) scripts/demo

# What make install puts where (make uninstall removes exactly these).
MAN1 := $(notdir $(wildcard man/*.1))
INSTALLED := bin/arenaprof $(addprefix share/man/man1/,$(MAN1)) \
	share/man/man5/arenaprof-trace.5 \
	share/bash-completion/completions/arenaprof share/zsh/site-functions/_arenaprof \
	share/fish/vendor_completions.d/arenaprof.fish

install: all
	install -D -m 0755 $(BUILD)/arenaprof $(DESTDIR)$(PREFIX)/bin/arenaprof
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 $(addprefix man/,$(MAN1)) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -D -m 0644 man/arenaprof-trace.5 $(DESTDIR)$(PREFIX)/share/man/man5/arenaprof-trace.5
	install -D -m 0644 scripts/completions/arenaprof.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/arenaprof
	install -D -m 0644 scripts/completions/_arenaprof \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_arenaprof
	install -D -m 0644 scripts/completions/arenaprof.fish \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/arenaprof.fish

# The same with the binary stripped of its symbols (a board's flash is small).
install-strip: install
	$(CROSS_COMPILE)strip $(DESTDIR)$(PREFIX)/bin/arenaprof

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALLED))

# Debian packages under $(BUILD): the host's build, and the boards' from the cross build.
deb: all
	$(Q)scripts/pkg/make-deb $(BUILD) $(ARCH)

deb-arm64: arm64
	$(Q)scripts/pkg/make-deb $(ARM64_BUILD) arm64

clean:
	rm -rf $(BUILD)
