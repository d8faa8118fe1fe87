# dc-sign/local.mk
