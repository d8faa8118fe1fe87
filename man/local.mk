# man/local.mk
dist_man_MANS += man/dc-wrap.1 man/dc-run.1
dist_man_MANS += man/dc-collect.8
dist_man_MANS += man/dc-sign.1 man/dc-signd.8 man/dc-signed.5
dist_man_MANS += man/dc-write.1 man/dc-trace.5
dist_man_MANS += man/dc-explore.1 man/dc-gen.1 man/dc-config.5 man/dc-probes.5
dist_man_MANS += man/dc-stream.5
dist_man_MANS += man/dc-aggregate.1
