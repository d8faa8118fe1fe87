# dc-report/local.mk - dc-report, a Python script over the dcreport
# package (installed under $(pkgdatadir)/python).  It runs on the
# system's Python, which has Debian's Dask, matplotlib and pandas; set
# REPORT_INTERPRETER to use another.
REPORT_INTERPRETER = /usr/bin/python3

bin_SCRIPTS += dc-report/dc-report
dcreportdir = $(pkgdatadir)/python/dcreport
dist_dcreport_DATA = \
	dc-report/dcreport/__init__.py \
	dc-report/dcreport/analyse.py \
	dc-report/dcreport/bins.py \
	dc-report/dcreport/calltree.py \
	dc-report/dcreport/cli.py \
	dc-report/dcreport/plots.py \
	dc-report/dcreport/reader.py \
	dc-report/dcreport/render.py
EXTRA_DIST += dc-report/dc-report.in dc-report/README.md
CLEANFILES += dc-report/dc-report

dc-report/dc-report: $(srcdir)/dc-report/dc-report.in Makefile
	$(AM_V_GEN)$(MKDIR_P) dc-report && \
	sed -e 's|[@]PYTHON[@]|$(REPORT_INTERPRETER)|' \
	    -e 's|[@]PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|' \
	    -e 's|[@]abs_top_builddir[@]|$(abs_top_builddir)|' \
	    -e 's|[@]abs_top_srcdir[@]|$(abs_top_srcdir)|' \
	    -e 's|[@]pkgdatadir[@]|$(pkgdatadir)|' \
	    $(srcdir)/dc-report/dc-report.in >$@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@
