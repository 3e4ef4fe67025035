"""Analysis of stored runs: statistics, per-instance tables, charts, reports, comparisons.

Everything here works on pandas DataFrames of ``RunRecord`` columns and never imports a
solver (checked by a test), so reports and comparisons run on any machine with the
results alone.
"""
