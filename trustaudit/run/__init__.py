"""The run layer: the run directory, resume, caches and the executors that schedule the pure stages.

`trustaudit.stages` holds what is computed (frames in, frames out); this package holds where and
when: `ingest` commits parts into a run directory, `local` and `ray` are the executors.
"""
