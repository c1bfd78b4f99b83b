"""MindSpore's logging-configuration queries (issue 14): `get_level` and `get_log_config`.

MindSpore configures its log through the GLOG_* environment variables; Spore reads the same ones
with MindSpore's defaults, so a script that inspects them sees what MindSpore would report.
"""

from __future__ import annotations

import os

__all__ = ["get_level", "get_log_config"]

_LEVELS = ("0", "1", "2", "3", "4")  # DEBUG, INFO, WARNING, ERROR, EXCEPTION


def get_level() -> str:
    """The log level as MindSpore spells it: '0' DEBUG .. '4' EXCEPTION (GLOG_v; default '2', WARNING)."""
    level = os.environ.get("GLOG_v", "2")
    if level not in _LEVELS:
        raise ValueError(f"get_level: GLOG_v must be one of {', '.join(_LEVELS)}, got {level!r}")
    return level


def get_log_config() -> dict[str, str]:
    """The GLOG_* settings in effect: level, whether to log to stderr, and (when logging to files)
    the directory, file size and count, with MindSpore's defaults."""
    config = {"GLOG_v": get_level(), "GLOG_logtostderr": os.environ.get("GLOG_logtostderr", "1")}
    if config["GLOG_logtostderr"] == "0":
        config["GLOG_log_dir"] = os.environ.get("GLOG_log_dir", "")
        config["logger_maxBytes"] = os.environ.get("logger_maxBytes", "52428800")
        config["logger_backupCount"] = os.environ.get("logger_backupCount", "30")
    config["GLOG_stderrthreshold"] = os.environ.get("GLOG_stderrthreshold", "2")
    return config
