# pydevd's extension namespace (see pydevd_plugins/extensions/README.md in pydevd): this preamble only.
import pkgutil

__path__ = pkgutil.extend_path(__path__, __name__)
