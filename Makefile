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
AP_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude $(CFLAGS)
AP_LDLIBS := -lm

LIB_SRCS := $(filter-out src/main.c,$(wildcard src/*.c))
LIB_OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
LIB := $(BUILD)/libarenaprof.a
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

.PHONY: all check unit bench fuzz demo install clean
all: $(BUILD)/arenaprof

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

$(BUILD)/obj $(BUILD)/tests:
	$(Q)mkdir -p $@

unit: $(UNIT_BINS)

# Every test: unit tests, then integration tests; the runner prints one summary line.
check: all unit
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

clean:
	rm -rf $(BUILD)
