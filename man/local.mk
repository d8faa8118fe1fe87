# man/local.mk
dist_man_MANS += man/dc-wrap.1 man/dc-run.1 man/dc-track.1
dist_man_MANS += man/dc-collect.8
dist_man_MANS += man/dc-sign.1 man/dc-signd.8 man/dc-signed.5
dist_man_MANS += man/dc-write.1 man/dc-trace.5
dist_man_MANS += man/dc-explore.1 man/dc-gen.1 man/dc-config.5 man/dc-probes.5
dist_man_MANS += man/dc-stream.5
dist_man_MANS += man/dc-aggregate.1
dist_man_MANS += man/dc-report.1
# dc-untrack(1) is dc-track(1).
install-data-hook: install-dc-untrack-man
install-dc-untrack-man:
	cd $(DESTDIR)$(man1dir) && rm -f dc-untrack.1 && ln -s dc-track.1 dc-untrack.1
uninstall-hook: uninstall-dc-untrack-man
uninstall-dc-untrack-man:
	rm -f $(DESTDIR)$(man1dir)/dc-untrack.1
.PHONY: install-dc-untrack-man uninstall-dc-untrack-man
