# Yocto recipe for arenaprof (a layer's recipes-devtools/arenaprof/). The build is the
# same make invocation the cross build uses (README, "Build for a board"): the target's
# compiler and pkg-config from the SDK, the BPF object from the checked-in vmlinux.h of
# the target arch with the host's clang and bpftool. Needs meta-clang (clang-native).
SUMMARY = "Memory profiler for edge-AI inference processes"
DESCRIPTION = "Traces the page faults of an inference process with CO-RE eBPF and ties \
every first touch to an arena offset, a tensor and an operator of its .tflite model."
LICENSE = "Apache-2.0"
LIC_FILES_CHKSUM = "file://LICENSE;md5=d8927f3331d2b3e321b7dd1925166d25"

SRC_URI = "git://localhost/arenaprof.git;protocol=file;branch=main"
SRCREV = "${AUTOREV}"
S = "${WORKDIR}/git"

DEPENDS = "libbpf elfutils zlib libpng ncurses clang-native bpftool-native"
inherit pkgconfig

# arm64 boards: ARCH=arm64; x86-64 ones: ARCH=x86 (the two vmlinux.h in bpf/)
AP_ARCH = "${@bb.utils.contains('TARGET_ARCH', 'aarch64', 'arm64', 'x86', d)}"

EXTRA_OEMAKE = "ARCH=${AP_ARCH} CROSS_COMPILE=${TARGET_PREFIX} CC='${CC}' \
		PKG_CONFIG=pkg-config BUILD=${B}/build CLANG=clang BPFTOOL=bpftool V=1"

do_compile() {
	oe_runmake all
}

do_install() {
	oe_runmake install DESTDIR=${D} PREFIX=${prefix}
}

FILES:${PN} += "${datadir}/bash-completion ${datadir}/zsh ${datadir}/fish"
