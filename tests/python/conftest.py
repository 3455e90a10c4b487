"""Shared by the Python module's tests: the fovea CLI of the same build, and the samples.

ctest runs them as `python3 -m pytest tests/python` with PYTHONPATH=build/python and FOVEA_CLI
set to the build's fovea (tests/CMakeLists.txt)."""
import json
import os
import subprocess

import pytest

import fovea


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("FOVEA_CLI")
    if not path:
        pytest.skip("FOVEA_CLI is not set (ctest sets it to the build's fovea)")
    return path


@pytest.fixture(scope="session")
def samples():
    folder = fovea.samples_dir()
    assert folder, "the shipped samples were not found from the module's location"
    return folder


@pytest.fixture(scope="session")
def model():
    return fovea.load()


def cli_json(cli, *args):
    """What `fovea ARGS --json` prints, parsed."""
    out = subprocess.run([cli, *args, "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)
