# dc-aggregate/local.mk
