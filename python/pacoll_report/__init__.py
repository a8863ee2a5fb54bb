"""pacoll-report: tables and plots from pacoll-bench JSON files."""

__version__ = "0.2.0"

from .load import ReportError, load_file, group_runs  # noqa: E402,F401

__all__ = ["ReportError", "load_file", "group_runs", "__version__"]
