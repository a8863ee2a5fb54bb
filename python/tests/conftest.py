"""Tests run against the source tree (no installation needed)."""
import importlib.machinery
import importlib.util
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)
DATA = os.path.join(HERE, "data")
SIM_RUN = os.path.join(os.path.dirname(PYDIR), "sim", "run")
if PYDIR not in sys.path:
    sys.path.insert(0, PYDIR)


def load_sim_run():
    """sim/run (a script without .py) as a module."""
    loader = importlib.machinery.SourceFileLoader("sim_run", SIM_RUN)
    spec = importlib.util.spec_from_loader("sim_run", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


@pytest.fixture
def data():
    return lambda name: os.path.join(DATA, name)


@pytest.fixture
def load_json():
    def f(name):
        with open(os.path.join(DATA, name)) as fh:
            return json.load(fh)
    return f


def parse_tables(md):
    """{section heading: (header cells, [row cells])} for every markdown table."""
    out, heading, lines = {}, None, md.splitlines()
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("## "):
            heading = ln[3:]
        elif ln.startswith("| ") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            head = [c.strip() for c in ln.strip("|").split("|")]
            rows, i = [], i + 2
            while i < len(lines) and lines[i].startswith("| "):
                rows.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
                i += 1
            out[heading] = (head, rows)
            continue
        i += 1
    return out
