################################################################################
#
# arenaprof (a BR2_EXTERNAL: scripts/pkg/buildroot, or package/arenaprof/ of a Buildroot
# tree). The build is the same make invocation the cross build uses (README, "Build for a
# board"). scripts/pkg/README.md says how to point it at a mirror.
#
################################################################################

# A commit of main, the one meta-arenaprof's SRCREV pins (a release: its tag)
ARENAPROF_VERSION = b17d114d2fe38e3c28629acfc341a50124bf679c
# By default the git repository this package sits in (three levels below its top); a
# mirror: make ARENAPROF_SITE=/srv/mirror/arenaprof.git (or https://...), or a working
# tree as it is, unpinned: ARENAPROF_OVERRIDE_SRCDIR = /path/to/arenaprof in local.mk
ARENAPROF_SITE ?= $(abspath $(ARENAPROF_PKGDIR)/../../../..)
ARENAPROF_SITE_METHOD = git
ARENAPROF_LICENSE = Apache-2.0
ARENAPROF_LICENSE_FILES = LICENSE
ARENAPROF_DEPENDENCIES = libbpf elfutils zlib libpng ncurses host-bpftool host-clang \
	host-pkgconf

# arm64 and x86 have a bpf/ARCH/vmlinux.h; any other BR2_ARCH reaches the Makefile, which
# refuses it by name
ARENAPROF_ARCH = $(if $(BR2_aarch64),arm64,$(if $(BR2_x86_64),x86,$(BR2_ARCH)))

ARENAPROF_MAKE_OPTS = ARCH=$(ARENAPROF_ARCH) CROSS_COMPILE="$(TARGET_CROSS)" \
	CC="$(TARGET_CC)" PKG_CONFIG="$(PKG_CONFIG_HOST_BINARY)" BUILD=$(@D)/build \
	CLANG=$(HOST_DIR)/bin/clang BPFTOOL=$(HOST_DIR)/sbin/bpftool

define ARENAPROF_BUILD_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) -C $(@D) $(ARENAPROF_MAKE_OPTS) all
endef

define ARENAPROF_INSTALL_TARGET_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) -C $(@D) $(ARENAPROF_MAKE_OPTS) install-strip \
		DESTDIR=$(TARGET_DIR) PREFIX=/usr
endef

$(eval $(generic-package))
