"""pytest set-up for gmm's Python tests: 8 simulated CPU devices for the
shard_map tests (XLA reads the flag when JAX starts, so it is set before
any test imports jax), and the package gmm that sys.path finds: the build
tree's (PYTHONPATH=build/python, the test command) or an installed wheel's
(scripts/test-pip.sh). The header names which one; GMM_TEST_PACKAGE_DIR,
when set, is the directory the package must be imported from.
test_export.py runs the tools of GMM_BUILD_DIR (by default the build tree
that holds the package)."""

import os

import pytest

os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
).strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")


def _package_dir():
    import gmm  # the package alone: gmm/__init__.py imports nothing

    return os.path.dirname(os.path.realpath(gmm.__file__))


def pytest_configure(config):
    expected = os.environ.get("GMM_TEST_PACKAGE_DIR")
    if expected and _package_dir() != os.path.realpath(expected):
        raise pytest.UsageError(
            f"gmm is imported from {_package_dir()}, not from "
            f"GMM_TEST_PACKAGE_DIR={expected}"
        )


def pytest_report_header(config):
    try:
        return f"gmm package: {_package_dir()}"
    except ImportError as error:
        return f"gmm package: not importable ({error})"
