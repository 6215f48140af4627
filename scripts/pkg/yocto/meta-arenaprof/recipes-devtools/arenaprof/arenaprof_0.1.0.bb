# nooelint: oelint.var.mandatoryvar.HOMEPAGE - no public homepage yet (scripts/pkg/README.md)
# arenaprof, pinned to one commit of its repository (scripts/pkg/README.md, "Yocto"). The
# build is the same make invocation the cross build uses (README, "Build for a board"):
# the target's compiler and pkg-config from the sysroot, the BPF object from the checked-in
# vmlinux.h of the target arch with clang-native and bpftool-native.
SUMMARY = "Memory profiler for edge-AI inference processes"
DESCRIPTION = "Traces the page faults of an inference process with CO-RE eBPF and ties \
               every first touch to an arena offset, a tensor and an operator of its .tflite model."
SECTION = "devel"
LICENSE = "Apache-2.0"
LIC_FILES_CHKSUM = "file://LICENSE;md5=d8927f3331d2b3e321b7dd1925166d25"

DEPENDS = "bpftool-native clang-native elfutils libbpf libpng ncurses zlib"

# Where the source is fetched from: by default the git repository this layer sits in (this
# file is six levels below its top). A mirror or a published
# repository: ARENAPROF_GIT_URL = "host/path.git" and ARENAPROF_GIT_PROTOCOL = "https" (or
# ARENAPROF_GIT_URL = "/srv/mirror/arenaprof.git" with the file protocol) in local.conf.
ARENAPROF_GIT_URL ??= "${@os.path.normpath(d.getVar('FILE_DIRNAME') + '/../../../../../..')}"
ARENAPROF_GIT_PROTOCOL ??= "file"
PV = "0.1.0+git"
SRC_URI = "git://${ARENAPROF_GIT_URL};protocol=${ARENAPROF_GIT_PROTOCOL};branch=main;destsuffix=git"
# A commit of main: the 0.1.0 source this recipe was tested with. A release sets it to its
# tag's commit (git rev-parse vX.Y.Z^{commit}), adds ";tag=vX.Y.Z" to SRC_URI where
# bitbake's git fetcher knows it, renames this file arenaprof_X.Y.Z.bb and drops "+git".
SRCREV = "b17d114d2fe38e3c28629acfc341a50124bf679c"
S = "${UNPACKDIR}/git"

inherit pkgconfig

# The BPF object is built against bpf/ARCH/vmlinux.h, which the repository has for x86_64
# and aarch64 only: on any other TARGET_ARCH (32-bit ARM, i686, ...) the recipe is
# skipped at parse time with the reason, and bitbake prints it if arenaprof is asked for.
AP_ARCHS = "x86_64:x86 aarch64:arm64"
def arenaprof_arch(d):
    archs = dict(p.split(':') for p in d.getVar('AP_ARCHS').split())
    return archs.get(d.getVar('TARGET_ARCH'), '')

python () {
    if not arenaprof_arch(d):
        raise bb.parse.SkipRecipe("arenaprof: TARGET_ARCH %s is not supported: its BPF "
                                  "object needs a bpf/ARCH/vmlinux.h, which exists for "
                                  "x86_64 and aarch64 only" % d.getVar('TARGET_ARCH'))
}

AP_ARCH = "${@arenaprof_arch(d)}"

EXTRA_OEMAKE = "ARCH=${AP_ARCH} CROSS_COMPILE=${TARGET_PREFIX} CC='${CC}' \
                PKG_CONFIG=pkg-config BUILD=${B}/build CLANG=clang BPFTOOL=bpftool V=1"

do_compile() {
    oe_runmake all
}

do_install() {
    oe_runmake install DESTDIR=${D} PREFIX=${prefix}
}

FILES:${PN} += "${datadir}/bash-completion ${datadir}/zsh ${datadir}/fish"
