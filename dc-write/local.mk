# dc-write/local.mk
