"""The Python examples of the README and python/README.md run as written
(each page's blocks in order, in one namespace, as a reader pastes them),
and print a screenful, not pages."""

import contextlib
import io
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def examples(page):
    return re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(), re.S)


@pytest.mark.parametrize("page", ["README.md", "python/README.md"])
def test_the_examples_run_and_print_little(page):
    # The examples use the extras (`pip install "./python[env]"`).
    pytest.importorskip("pettingzoo")
    pytest.importorskip("gymnasium")
    blocks = examples(page)
    assert blocks, f"{page} has no Python example"
    namespace = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        for code in blocks:
            exec(compile(code, page, "exec"), namespace)
    out = printed.getvalue()
    assert out.strip(), f"{page}'s examples print nothing"
    assert len(out) < 4000, f"{page}'s examples print {len(out)} characters:\n{out[:2000]}"
