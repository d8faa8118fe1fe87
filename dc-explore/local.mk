# dc-explore/local.mk
