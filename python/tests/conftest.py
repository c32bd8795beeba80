"""pytest set-up for gmm's Python tests: 8 simulated CPU devices for the
shard_map tests (XLA reads the flag when JAX starts, so it is set before
any test imports jax), and the package from the build tree."""

import os

os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
).strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")
