"""dcreport - the analysis and HTML report behind dc-report(1)."""
