# The part of Buildroot's package infrastructure scripts/pkg/buildroot/arenaprof/arenaprof.mk
# uses, for tests/integration/test_pkg_recipes.sh: the package file is included as
# Buildroot includes it, and its commands run as Buildroot's stamp rules run them, with
# $(@D) the package's build directory. The caller gives the BR2_ options, the toolchain
# variables (TARGET_CROSS, TARGET_CC, PKG_CONFIG_HOST_BINARY, HOST_DIR, TARGET_DIR) and
# ARENAPROF_PKGDIR and SRC (the build directory) on the command line.
TARGET_MAKE_ENV :=
generic-package :=
include $(ARENAPROF_PKGDIR)arenaprof.mk

print-%:
	@echo '$($*)'

$(SRC)/.stamp_built:
	$(ARENAPROF_BUILD_CMDS)

$(SRC)/.stamp_target_installed:
	$(ARENAPROF_INSTALL_TARGET_CMDS)
