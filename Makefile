# arenaprof: one entry point. make [all|check|bench|fuzz|demo|install|clean] [V=1]
# CC, ARCH, CROSS_COMPILE, CFLAGS, LDFLAGS, PREFIX and DESTDIR are honoured.

ARCH ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
CROSS_COMPILE ?=
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
PKG_CONFIG ?= pkg-config
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
AP_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude -I$(BUILD) \
	$(shell $(PKG_CONFIG) --cflags $(LIBS_PC) 2>/dev/null) $(CFLAGS)
AP_LDLIBS := $(shell $(PKG_CONFIG) --libs $(LIBS_PC) 2>/dev/null || echo -lbpf -lelf -ldw -lz) -lm -lpthread

LIB_SRCS := $(filter-out src/main.c,$(wildcard src/*.c))
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

.PHONY: all check unit bench fuzz demo install clean
all: $(BUILD)/arenaprof $(FIXTURES)

# BPF: CO-RE object from the checked-in vmlinux.h of the target arch, then a skeleton.
$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) include/arenaprof/event.h | $(BUILD)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ibpf/$(ARCH) -Ibpf -Iinclude \
		-c $< -o $@.tmp.o && $(BPFTOOL) gen object $@ $@.tmp.o && rm -f $@.tmp.o

$(BUILD)/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(LIB_OBJS) $(BUILD)/obj/main.o: $(SKELS)

# The test fixture and default workload (tests/fixtures/mininfer.c): exported markers
# for uprobes, so no stripping and no inlining across them.
$(BUILD)/mininfer: tests/fixtures/mininfer.c $(LIB) | $(BUILD)/obj
	$(call msg,CC,$@)
	$(Q)$(CC) $(AP_CFLAGS) -O1 -fno-inline-functions -rdynamic $< $(LIB) $(AP_LDLIBS) -o $@

$(BUILD)/fixtures/%: tests/fixtures/%.c $(LIB) | $(BUILD)/fixtures
	$(call msg,CC,$@)
	$(Q)$(CC) $(AP_CFLAGS) -O1 -fno-inline-functions -rdynamic $< $(LIB) $(AP_LDLIBS) -o $@

$(BUILD)/obj/%.o: src/%.c $(wildcard include/arenaprof/*.h) | $(BUILD)/obj
	$(call msg,CC,$@)
	$(Q)$(CC) $(AP_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(CROSS_COMPILE)ar rcs $@ $^

$(BUILD)/arenaprof: $(BUILD)/obj/main.o $(LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(AP_LDLIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c tests/unit/test.h $(LIB) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(AP_CFLAGS) -Itests/unit $< $(LIB) $(AP_LDLIBS) -o $@

$(BUILD)/obj $(BUILD)/tests $(BUILD)/bpf $(BUILD)/fixtures:
	$(Q)mkdir -p $@

unit: $(UNIT_BINS)

# Every test: unit tests, then integration tests; the runner prints one summary line.
check: all unit $(FIXTURES)
	$(Q)BUILD=$(BUILD) tests/run-tests

bench: all
	$(Q)BUILD=$(BUILD) bench/run-bench

# make fuzz FUZZ_SECONDS=60: libFuzzer on the model reader, seeded with the bundled models.
FUZZ_SECONDS ?= 30
fuzz:
	$(Q)BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run-fuzz

demo: all
	$(Q)BUILD=$(BUILD) scripts/demo

install: all
	install -D -m 0755 $(BUILD)/arenaprof $(DESTDIR)$(PREFIX)/bin/arenaprof
	install -D -m 0644 man/arenaprof.1 $(DESTDIR)$(PREFIX)/share/man/man1/arenaprof.1
	install -D -m 0644 man/arenaprof-trace.5 $(DESTDIR)$(PREFIX)/share/man/man5/arenaprof-trace.5

clean:
	rm -rf $(BUILD)
