include $(BR2_EXTERNAL_ARENAPROF_PATH)/arenaprof/arenaprof.mk
