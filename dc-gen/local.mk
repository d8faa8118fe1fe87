# dc-gen/local.mk
