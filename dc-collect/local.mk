# dc-collect/local.mk
