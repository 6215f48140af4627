# The kernel options arenaprof needs, for a distro that asks for them with
# DISTRO_FEATURES:append = " arenaprof": adding the layer alone changes no kernel.
require ${@bb.utils.contains('DISTRO_FEATURES', 'arenaprof', 'linux-yocto-arenaprof.inc', '', d)}
