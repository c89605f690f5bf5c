"""A small notes server written with FastMCP, for the runner benchmark
(bench/run-vs-mcp-assert.sh): each note is a Markdown file in one directory,
the first argument.

    python bench/fastmcp/notes_server.py DIR
"""

import sys
from pathlib import Path

from fastmcp import FastMCP

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()

mcp = FastMCP("notes")


def _note(name: str) -> Path:
    path = (ROOT / f"{name}.md").resolve()
    if path.parent != ROOT:
        raise ValueError(f"not a note name: {name!r}")
    return path


def _existing(name: str) -> Path:
    path = _note(name)
    if not path.is_file():
        raise ValueError(f"no note named {name!r}")
    return path


@mcp.tool
def list_notes() -> list[str]:
    """The names of every note, sorted."""
    return sorted(p.stem for p in ROOT.glob("*.md"))


@mcp.tool
def read_note(name: str) -> str:
    """The text of the note `name`."""
    return _existing(name).read_text()


@mcp.tool
def write_note(name: str, text: str) -> str:
    """Create or replace the note `name`."""
    _note(name).write_text(text)
    return f"wrote {name}"


@mcp.tool
def append_note(name: str, text: str) -> str:
    """Add a line to the note `name`; the note's whole text is returned."""
    path = _existing(name)
    with path.open("a") as f:
        f.write(text + "\n")
    return path.read_text()


@mcp.tool
def delete_note(name: str) -> str:
    """Delete the note `name`."""
    _existing(name).unlink()
    return f"deleted {name}"


@mcp.tool
def search(query: str) -> list[str]:
    """The notes whose text holds `query` (any case), sorted."""
    q = query.lower()
    return sorted(p.stem for p in ROOT.glob("*.md") if q in p.read_text().lower())


@mcp.tool
def word_count(name: str) -> int:
    """How many words the note `name` holds."""
    return len(_existing(name).read_text().split())


@mcp.prompt
def summarize(name: str) -> str:
    """Ask for a summary of the note `name`."""
    return f"Summarize this note in one sentence:\n\n{_existing(name).read_text()}"


if __name__ == "__main__":
    mcp.run(show_banner=False)
