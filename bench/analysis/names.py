"""Names are data: a case, instance or option value is shown as it is, never read as markup.

Names come from suite files and file names, so they may hold anything: ``[/bold]`` (rich
markup), ``[l](x)`` (a Markdown link), ``<b>`` (HTML), ``$x$`` (matplotlib's mathtext),
``a_b`` (LaTeX), a newline, an escape sequence. Each writer passes a name through its
function here, the one place that knows its format's specials. Control characters (and
the lone surrogates of a file name that is not UTF-8) are first shown as Python writes
them (``visible``), so a name can break no line, table row, terminal or encoder.
File names from names (``file_stem``) are injective: two different names never share a
file, because a name that is not already a plain lower-case stem gets a hash of itself.
"""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata

from rich.text import Text

#: a name kept as its own file stem: lower-case (one file on case-folding file systems too),
#: no separators, never hidden
_PLAIN_STEM = re.compile(r"[a-z0-9][a-z0-9._+-]{0,79}")
HASH_CHARS = 12  # hex digits of sha256 in a stem: 48 bits


def visible(name: object) -> str:
    """The name with every control character and lone surrogate written as an escape
    (``\\n``, ``\\x1b``, ``\\udcff``): printable, one line, encodable as UTF-8."""
    text = str(name)
    if text.isprintable() and text.isascii():
        return text
    out = []
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cs") or ch in "\u2028\u2029\x85":
            out.append(repr(ch)[1:-1])
        else:
            out.append(ch)
    return "".join(out)


def rich_text(name: object, style: str = "") -> Text:
    """For a rich table cell or line: a ``Text`` is never parsed as markup."""
    return Text(visible(name), style=style)


#: ASCII punctuation that means something inline in CommonMark / GFM tables (``(`` only
#: after a ``]``, ``!`` only before a ``[``, ``>`` only after a ``<`` or at a line's start:
#: those are escaped, so these are not)
_MD_INLINE = set("\\`*_[]<&|~")


def md_text(name: object, line_start: bool = True) -> str:
    """Inline Markdown (a table cell, a caption, list text) that renders as the name:
    every special backslash-escaped and, where it may begin a line (``line_start``; never
    in a table cell), indentation and a block marker disarmed."""
    text = visible(name)
    out = "".join(
        "\\" + ch if ch in _MD_INLINE and not _intraword_underscore(text, i) else ch
        for i, ch in enumerate(text)
    )
    if not line_start:
        return out
    # at a line's (or list item's) start: indentation (a code block), then a list,
    # heading, quote or rule marker
    spaces = len(out) - len(out.lstrip(" "))
    out = "&#32;" * spaces + out[spaces:]
    match = re.match(r"(\s*)(\d{1,9}(?=[.)])|[-+=#>])", out)
    if match:
        lead, marker = match.group(1), match.group(2)
        if marker.isdigit():
            rest = out[len(lead) + len(marker) :]
            out = lead + marker + "\\" + rest
        else:
            out = lead + "\\" + out[len(lead) :]
    return out


def _intraword_underscore(text: str, i: int) -> bool:
    """``knights_tour``: an ``_`` between letters or digits never opens or closes emphasis in
    CommonMark, so it is left as written (tables stay readable as plain text)."""
    return (
        text[i] == "_" and 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()
    )


def md_code(name: object) -> str:
    """The name as a Markdown code span: a fence longer than any run of backticks in it,
    padded where it starts or ends with a backtick or a space (CommonMark strips one)."""
    text = visible(name)
    if not text.strip(" "):
        return md_text(text, line_start=False)
    fence = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    return f"{fence}{pad}{text}{pad}{fence}"


#: characters LaTeX reads as commands, and their text forms (any font encoding)
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "[": "{[}",  # after a row's `\\`, `[` would be read as its optional length
    "]": "{]}",
    "*": "{*}",  # after a row's `\\`, `*` would be read as its star
    "`": r"\textasciigrave{}",  # else a curly quote
    "'": r"\textquotesingle{}",
    '"': r"\textquotedbl{}",
}
#: pairs that TeX fonts join into one glyph (``--``, ``,,``): kept apart by ``{}``
_LIGATURE = set("-,")


def latex_text(name: object) -> str:
    """The name as LaTeX text: specials escaped, ligatures kept apart, one line."""
    text = visible(name)
    out = []
    for i, ch in enumerate(text):
        out.append(_LATEX_SPECIAL.get(ch, ch))
        if ch in _LIGATURE and i + 1 < len(text) and text[i + 1] in _LIGATURE:
            out.append("{}")
    return "".join(out)


def html_text(name: object) -> str:
    """The name as HTML text or an attribute value (quotes escaped too)."""
    return html.escape(visible(name), quote=True)


def chart_text(name: object) -> str:
    """The name as a matplotlib text or legend label: ``$`` never starts mathtext, and a
    leading ``_`` (which hides a legend entry) is kept visible by a zero-width space."""
    text = visible(name).replace("$", r"\$")
    return "\u200b" + text if text.startswith("_") else text


def file_stem(name: object, limit: int = 60, readable: str | None = None) -> str:
    """A file-name stem from a name, different for different names: the name itself when it
    is already a plain lower-case stem, else a readable slug (of ``readable`` when given, a
    shorter form of the name) and a hash of the whole name (``a b.txt`` -> ``a_b.txt~3f2a...``;
    ``a_b.txt`` stays itself)."""
    from bench.analysis.labels import slug

    text = str(name)
    if _PLAIN_STEM.fullmatch(text) and len(text) <= limit:
        return text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_CHARS]
    shown = slug(text if readable is None else readable, limit)
    readable = shown.lower().lstrip(".") or "x"  # never a hidden file
    return f"{readable}~{digest}"
