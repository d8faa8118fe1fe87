# dc-wrap/local.mk
