################################################################################
#
# arenaprof (package/arenaprof/ of a Buildroot tree, or a BR2_EXTERNAL). The build is the
# same make invocation the cross build uses (README, "Build for a board").
#
################################################################################

ARENAPROF_VERSION = main
ARENAPROF_SITE = /path/to/arenaprof
ARENAPROF_SITE_METHOD = local
ARENAPROF_LICENSE = Apache-2.0
ARENAPROF_LICENSE_FILES = LICENSE
ARENAPROF_DEPENDENCIES = libbpf elfutils zlib libpng ncurses host-bpftool host-clang \
	host-pkgconf

ARENAPROF_ARCH = $(if $(BR2_aarch64),arm64,x86)

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
