# dist/local.mk - what sites install to run datacrumbs from their
# scheduler: the per-job service (datacrumbs-job, datacrumbs@.service),
# SLURM and Flux prolog/epilog scripts, user wrappers.  See dist/README.md.
dist_subst = sed -e 's|@sbindir[@]|$(sbindir)|g' -e 's|@bindir[@]|$(bindir)|g' \
	-e 's|@sysconfdir[@]|$(sysconfdir)|g' -e 's|@libdir[@]|$(libdir)|g'
dist_generated = dist/datacrumbs-job dist/systemd/datacrumbs@.service \
	dist/slurm/prolog.sh dist/slurm/epilog.sh dist/slurm/dc-sbatch \
	dist/slurm/dc-srun dist/flux/prolog.sh dist/flux/epilog.sh
$(dist_generated): Makefile
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(dist_subst) $(srcdir)/$@.in >$@.tmp && \
	if head -c 2 $@.tmp | grep -q '#!'; then chmod +x $@.tmp; fi && mv $@.tmp $@
dist/datacrumbs-job: $(srcdir)/dist/datacrumbs-job.in
dist/systemd/datacrumbs@.service: $(srcdir)/dist/systemd/datacrumbs@.service.in
dist/slurm/prolog.sh: $(srcdir)/dist/slurm/prolog.sh.in
dist/slurm/epilog.sh: $(srcdir)/dist/slurm/epilog.sh.in
dist/slurm/dc-sbatch: $(srcdir)/dist/slurm/dc-sbatch.in
dist/slurm/dc-srun: $(srcdir)/dist/slurm/dc-srun.in
dist/flux/prolog.sh: $(srcdir)/dist/flux/prolog.sh.in
dist/flux/epilog.sh: $(srcdir)/dist/flux/epilog.sh.in
all-local: $(dist_generated)
CLEANFILES += $(dist_generated)
EXTRA_DIST += dist/README.md $(dist_generated:=.in) dist/job.conf.example \
	dist/flux/job-manager.toml

sbin_SCRIPTS = dist/datacrumbs-job
bin_SCRIPTS = dist/slurm/dc-sbatch dist/slurm/dc-srun
systemdsystemunit_DATA += dist/systemd/datacrumbs@.service
slurmdir = $(pkgdatadir)/slurm
slurm_SCRIPTS = dist/slurm/prolog.sh dist/slurm/epilog.sh
fluxdir = $(pkgdatadir)/flux
flux_SCRIPTS = dist/flux/prolog.sh dist/flux/epilog.sh
dist_flux_DATA = dist/flux/job-manager.toml
dist_pkgdata_DATA += dist/job.conf.example
