"""pyproject.toml, environment.yml, binder/environment.yml and the lock file list the same packages."""

import re

import pytest

from icml26.registry import ROOT

tomllib = pytest.importorskip("tomllib")
CONDA_TO_PIP = {"pytorch-cpu": "torch"}
NOT_PACKAGES = {"python", "pip"}


def norm(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def pyproject_names():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {norm(r) for r in project["dependencies"] + project["optional-dependencies"]["notebooks"]}


def conda_names(path):
    names = set()
    text = path.read_text().split("dependencies:", 1)[1]
    for line in text.splitlines():
        m = re.match(r"^\s*-\s+([^\s#]+)", line)
        if not m or line.strip().startswith("- -e") or m.group(1).endswith(":"):
            continue
        name = norm(m.group(1).split("=")[0])
        if name not in NOT_PACKAGES:
            names.add(CONDA_TO_PIP.get(name, name))
    return names


def lock_versions():
    pins = {}
    for line in (ROOT / "requirements" / "ci.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[norm(name)] = version.strip()
    return pins


@pytest.mark.parametrize("path,extra", [("environment.yml", set()), ("binder/environment.yml", {"voila"})])
def test_conda_files_list_the_same_packages_as_pyproject(path, extra):
    assert conda_names(ROOT / path) == pyproject_names() | extra


def test_binder_start_pins_the_threads_to_the_container_quota():
    text = (ROOT / "binder" / "start").read_text()
    assert "available_cores" in text and "OMP_NUM_THREADS" in text and 'exec "$@"' in text


def test_lock_pins_every_dependency_exactly_and_torch_to_the_cpu_release():
    pins = lock_versions()
    missing = pyproject_names() - set(pins)
    assert not missing, f"not in requirements/ci.lock: {sorted(missing)}"
    assert pins["torch"] == "2.13.0"
    assert all(re.fullmatch(r"[0-9][0-9A-Za-z.+!-]*", v) for v in pins.values()), "every line must be name==version"


def test_runtime_dependencies_have_lower_bounds_only():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for req in project["dependencies"]:
        assert ">=" in req and "<" not in req.replace(">=", "") and "==" not in req, req
