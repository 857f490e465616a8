"""A textbook's apparatus, derived at site-build time from what the chapters already write.

The chapters are plain notebooks (bold "**Statement (…).**" paragraphs, a numbered list under
``## Exercises``, ``<details>`` solutions, "**Figure N.M** —" captions, "chapter 12" in the prose). The
site turns these into MyST: numbered theorem-like blocks (sphinx-proof), exercise and solution blocks
(sphinx-exercise; a solution's prose, code and output hidden together until opened), anchors on figure
captions, links for "chapter NN" and "Figure NN.M", and citations of the works a chapter relies on
(sphinxcontrib-bibtex). Nothing here edits a chapter: it rewrites the staged copy only.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Callable
from pathlib import Path

# --------------------------------------------------------------------------------------------
# Citations: which works a chapter relies on
# --------------------------------------------------------------------------------------------

#: The paper each part reproduces, by the first digit of the chapter number.
PAPER_OF_PART = {
    "0": ("karkada2025qwem", "laurent2024collapse"),
    "1": ("karkada2025qwem",),
    "2": ("karkada2025qwem",),
    "3": ("karkada2025qwem",),
    "4": ("laurent2024collapse",),
    # beyond the papers: built on QWEM's closed form and its Appendix D.2
    "5": ("karkada2025qwem",),
}
#: The authors' repositories, cited where a chapter compares with the authors' code or notebooks.
CODE_OF_PAPER = {"karkada2025qwem": "karkada2025code", "laurent2024collapse": "bresson2024code"}
#: Other works, cited by a chapter whose text (Markdown or code) mentions them.
CITED_BY: list[tuple[str, str]] = [
    (r"\bword2vec\b|\bSGNS\b|skip-gram", "mikolov2013distributed"),
    (r"Google analog|analogy|analogies", "mikolov2013efficient"),
    (r"Levy|shifted PMI", "levy2014neural"),
    (r"Marchenko|Pastur", "marchenko1967distribution"),
    (r"\bBBP\b|Baik", "baik2005phase"),
    (r"\btext8\b", "mahoney2011text8"),
    (r"\bMEN\b", "bruni2014multimodal"),
    (r"WS353|WS-353|WordSim", "finkelstein2002placing"),
    (r"\bSaxe\b", "saxe2014exact"),
    (r"Gillis", "gillis2011low"),
    (r"Eckart", "eckart1936approximation"),
    (r"LayerNorm", "ba2016layer"),
    (r"[Tt]ransformer", "vaswani2017attention"),
    (r"\bgensim\b", "rehurek2010gensim"),
]


def citations_for(number: str, text: str) -> list[str]:
    """Bibliography keys a chapter cites: its paper(s), the authors' code where used, the works it mentions."""
    keys = list(PAPER_OF_PART.get(number[0], ()))
    for paper in list(keys):
        if re.search(r"authors'|authors’|authors' (code|notebook|repository)", text):
            keys.append(CODE_OF_PAPER[paper])
    for pattern, key in CITED_BY:
        if key not in keys and re.search(pattern, text):
            keys.append(key)
    return keys


# --------------------------------------------------------------------------------------------
# Rewriting Markdown outside code, maths and links
# --------------------------------------------------------------------------------------------

#: What a rewrite must never touch: fenced blocks, display and inline maths, code spans, links and
#: images, HTML tags, MyST roles and targets, headings, and a caption's own bold "**Figure N.M**".
PROTECTED = re.compile(
    r"```.*?```|:::.*?:::|\$\$.*?\$\$|\$[^$\n]+\$|`[^`\n]+`|!?\[[^\]]*\]\([^)]*\)|<[^>\n]+>|"
    r"\{[\w:-]+\}`[^`]*`|^\([\w-]+\)=$|^#+ [^\n]*$|\*\*Figure \d\d\.\d+\*\*|\*\*Statement[^*\n]*\*\*",
    re.S | re.M,
)


def rewrite_plain(md: str, fn: Callable[[str], str]) -> str:
    """Apply ``fn`` to the parts of ``md`` that are plain text."""
    out, last = [], 0
    for m in PROTECTED.finditer(md):
        out.append(fn(md[last : m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(fn(md[last:]))
    return "".join(out)


CHAPTER_MENTION = re.compile(
    r"\b([Cc]hapters?)(\s+)(\d\d)((?:(?:,\s*|\s+and\s+|\s+or\s+|\s*[–-]\s*|\s+to\s+)\d\d\b)*)"
)
FIGURE_MENTION = re.compile(r"\b(Figures?)\s+(\d\d)\.(\d+)\b")


RESULT_NAME = re.compile(r"\b(Theorem|Lemma|Proposition|Corollary|Result) (\d+(?:\.\d+)?)\b")
#: Which paper a chapter's "Theorem 1" means, by the chapter number's first digit (chapter 00 cites both).
PAPER_KEY = {"1": "qwem", "2": "qwem", "3": "qwem", "4": "fc"}


def statement_names(md: str, stem: str, start: int = 0) -> list[tuple[str, str]]:
    """(name, label) of the statements a Markdown cell opens, e.g. ("Lemma 3.1", "stmt-12-1"), numbered
    from ``start`` as :func:`statement_blocks` labels them."""
    out = []
    for k, m in enumerate(STATEMENT.finditer(md), start + 1):
        title = m.group(1) or ""
        name = RESULT_NAME.search(title)
        if name and not re.search(
            r"Section|Figure|Appendix", title
        ):  # a block that states one result
            out.append((name.group(0), f"stmt-{stem[:2]}-{k}"))
    return out


def link_mentions(
    md: str,
    stems: dict[str, str],
    here: str,
    fig_labels: set[str],
    results: dict[tuple[str, str], str] | None = None,
    eq_labels: set[str] | None = None,
) -> str:
    """ "chapter 12" -> a link to chapter 12's page; "Figure 12.3" -> a reference to its caption;
    "Lemma 3.1" -> a reference to the block that states it (``results``: (paper, name) -> label);
    "(12.1)" -> a reference to the display equation tagged ``\\tag{12.1}`` (``eq_labels``)."""

    def chapters(text: str) -> str:
        def one(num: str) -> str:
            if num == here or num not in stems:
                return num
            return f"[{num}]({stems[num]}.ipynb)"

        def sub(m: re.Match) -> str:
            word, space, first, rest = m.groups()
            if not rest and first in stems and first != here:
                return f"[{word}{space}{first}]({stems[first]}.ipynb)"
            tail = re.sub(r"\d\d", lambda n: one(n.group(0)), rest)
            return f"{word}{space}{one(first)}{tail}"

        return CHAPTER_MENTION.sub(sub, text)

    def figures(text: str) -> str:
        def sub(m: re.Match) -> str:
            label = f"fig-{m.group(2)}-{m.group(3)}"
            if label not in fig_labels:
                return m.group(0)
            return f"{{ref}}`{m.group(1)} {m.group(2)}.{m.group(3)} <{label}>`"

        return FIGURE_MENTION.sub(sub, text)

    def named(text: str) -> str:
        paper = PAPER_KEY.get(here[0])
        if not results or not paper:
            return text

        def sub(m: re.Match) -> str:
            label = results.get((paper, m.group(0)))
            return f"{{prf:ref}}`{m.group(0)} <{label}>`" if label else m.group(0)

        return RESULT_NAME.sub(sub, text)

    def equations(text: str) -> str:
        def sub(m: re.Match) -> str:
            label = f"eq-{m.group(1)}-{m.group(2)}"
            return f"{{eq}}`{label}`" if eq_labels and label in eq_labels else m.group(0)

        return EQ_MENTION.sub(sub, text)

    md = rewrite_plain(rewrite_plain(rewrite_plain(md, chapters), figures), named)
    return rewrite_plain(md, equations) if eq_labels else md


# --------------------------------------------------------------------------------------------
# Numbered display equations
# --------------------------------------------------------------------------------------------

#: A chapter numbers its key display equations by hand, as it numbers its figures: ``\tag{12.1}`` at
#: the end of the ``$$ … $$`` block. JupyterLab's MathJax shows the tag as it is; the site turns it into
#: a MyST label (``$$ … $$ (eq-12-1)``), so that Sphinx numbers the equation ("(12.1)", the chapter's
#: numbering: conf.py's _number_by_chapter) and "(12.1)" in any chapter's prose becomes a reference.
#: Tags that are not of the form NN.k (the papers' own numbers, ``\tag{7}``) are left to MathJax.
EQ_TAG = re.compile(r"\\tag\{(\d\d)\.(\d+)\}")
EQ_MENTION = re.compile(r"\((\d\d)\.(\d+)\)")
DISPLAY_BLOCK = re.compile(r"^([ \t]*)\$\$((?:(?!\$\$).)+?)\$\$[ \t]*$", re.S | re.M)


def equation_tags(md: str) -> list[str]:
    """The labels (``eq-12-1``, …) of the display equations a Markdown cell tags, in order."""
    return [
        f"eq-{t.group(1)}-{t.group(2)}"
        for b in DISPLAY_BLOCK.finditer(md)
        for t in EQ_TAG.finditer(b.group(2))
    ]


def equation_labels(md: str, number: str, seen: list[str]) -> str:
    """``$$ … \\tag{12.1}$$`` -> ``$$ … $$ (eq-12-1)``: a MyST-labelled equation, numbered by Sphinx.

    The hand-written numbers must be the ones Sphinx gives (the k-th tagged equation of chapter NN is
    NN.k), since JupyterLab shows the tag and the site its own number: a tag out of order, of another
    chapter, or two tags in one block raise ``ValueError``. ``seen`` collects the chapter's labels so far.
    """

    def sub(m: re.Match) -> str:
        indent, body = m.groups()
        tags = list(EQ_TAG.finditer(body))
        if not tags:
            return m.group(0)
        if len(tags) > 1:
            raise ValueError(f"chapter {number}: two \\tag in one display block: {body[:60]!r}")
        ch, k = tags[0].groups()
        label = f"eq-{ch}-{k}"
        want = f"eq-{number}-{len(seen) + 1}"
        if label != want:
            raise ValueError(
                f"chapter {number}: equation tagged ({ch}.{k}) where the site numbers it "
                f"({number}.{len(seen) + 1}): tag the chapter's equations {number}.1, {number}.2, … in order"
            )
        seen.append(label)
        body = EQ_TAG.sub("", body).rstrip()
        # A labelled equation must be a block of its own: a blank line on either side (a display that
        # interrupts a paragraph would otherwise show its label as text).
        return f"\n{indent}$${body}$$ ({label})\n"

    return DISPLAY_BLOCK.sub(sub, md)


# --------------------------------------------------------------------------------------------
# Figures, statements, exercises, solutions
# --------------------------------------------------------------------------------------------

CAPTION = re.compile(r"^\s*\*\*Figure (\d\d)\.(\d+)\*\*")


def caption_label(md: str) -> str | None:
    m = CAPTION.match(md)
    return f"fig-{m.group(1)}-{m.group(2)}" if m else None


def anchor_caption(md: str) -> str:
    """A caption cell "**Figure N.M** — …" gets the target ``(fig-N-M)=`` (numbered, linkable)."""
    label = caption_label(md)
    return f"({label})=\n{md.lstrip()}" if label else md


STATEMENT = re.compile(r"^\*\*Statement(?: \(([^\n]*?)\))?\.\*\*[ \t]*", re.M)
KIND_WORDS = [
    ("Theorem", "theorem"),
    ("Lemma", "lemma"),
    ("Proposition", "proposition"),
    ("Corollary", "corollary"),
    ("Definition", "definition"),
    ("Assumption", "assumption"),
    ("reconstructed", "theorem"),
    ("Result", "conjecture"),
]


def statement_kind(title: str) -> str:
    for word, kind in KIND_WORDS:
        if word in title:
            return kind
    return "observation"  # an empirical claim of a paper (a figure, a table)


def statement_blocks(md: str, stem: str, found: list[dict]) -> str:
    """ "**Statement (Karkada et al. 2025, Theorem 1).** …" -> a sphinx-proof block, up to the next
    paragraph that opens with bold text ("**Intuition.**"), a heading or the end of the cell."""
    out, pos = [], 0
    for m in STATEMENT.finditer(md):
        if m.start() < pos:
            continue
        end_m = re.compile(r"\n\s*\n(?=\*\*|#|\(|:::|<)").search(md, m.end())
        end = end_m.start() if end_m else len(md)
        title = (m.group(1) or "").strip()
        kind = statement_kind(title)
        label = f"stmt-{stem[:2]}-{len([f for f in found if f['stem'] == stem]) + 1}"
        found.append({"stem": stem, "label": label, "kind": kind, "title": title})
        body = md[m.end() : end].strip()
        out.append(md[pos : m.start()])
        out.append(f":::{{prf:{kind}}} {title}\n:label: {label}\n\n{body}\n:::")
        pos = end
    out.append(md[pos:])
    return "".join(out)


EXERCISES_HEAD = re.compile(r"^## Exercises[ \t]*$", re.M)
ITEM = re.compile(r"^(\d+)\.[ \t]+", re.M)


def exercise_blocks(md: str, stem: str) -> tuple[str, list[str]]:
    """The numbered list under "## Exercises" -> one sphinx-exercise block per item (labels returned)."""
    head = EXERCISES_HEAD.search(md)
    if not head:
        return md, []
    rest = md[head.end() :]
    stop = re.search(r"^#{1,2} ", rest, re.M)
    section, after = (rest[: stop.start()], rest[stop.start() :]) if stop else (rest, "")
    items = list(ITEM.finditer(section))
    if not items:
        return md, []
    labels, blocks = [], [section[: items[0].start()]]
    for i, m in enumerate(items):
        end = items[i + 1].start() if i + 1 < len(items) else len(section)
        text = section[m.end() : end]
        lines = text.splitlines()
        # Continuation lines are indented under the item; the list ends at the first unindented line.
        body, tail = [lines[0]], []
        for j, line in enumerate(lines[1:], 1):
            if line.strip() and not line.startswith((" ", "\t")):
                tail = lines[j:]
                break
            body.append(line)
        label = f"ex-{stem[:2]}-{m.group(1)}"
        labels.append(label)
        body_text = "\n".join(
            ln[3:] if ln.startswith("   ") else ln.lstrip() for ln in body
        ).strip()
        blocks.append(f":::{{exercise}}\n:label: {label}\n\n{body_text}\n:::\n\n")
        if tail:
            blocks.append("\n".join(tail) + "\n")
    return md[: head.end()] + "\n\n" + "".join(blocks).lstrip("\n") + after, labels


SOLUTION = re.compile(
    r"<details>\s*<summary>\s*Solution\s*(\d+)?[^<]*</summary>(.*?)(?:</details>\s*)?$", re.S | re.I
)


def solution_start(md: str, stem: str, exercise_labels: set[str]) -> str | None:
    """A ``<details>`` solution cell -> the opening of a gated sphinx-exercise solution (None if its
    exercise is not found: the cell is then left as it is)."""
    m = SOLUTION.search(md)
    if not m or not m.group(1):
        return None
    label = f"ex-{stem[:2]}-{m.group(1)}"
    if label not in exercise_labels:
        return None
    before = md[: m.start()].strip()
    body = m.group(2).strip()
    head = f"{before}\n\n" if before else ""
    return (
        f"{head}:::{{solution-start}} {label}\n:label: sol-{stem[:2]}-{m.group(1)}\n:class: dropdown\n:::\n\n"
        f"{body}\n"
    )


SOLUTION_END = ":::{solution-end}\n:::\n"


# --------------------------------------------------------------------------------------------
# Reading time and execution status
# --------------------------------------------------------------------------------------------

WORDS_PER_MINUTE = 150  # technical prose with mathematics: slower than the usual 200-250
CODE_LINES_PER_MINUTE = 10  # reading code, not writing it


def _text(cell: dict) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def reading_minutes(nb: dict) -> int:
    """Minutes to read a chapter: its prose (Markdown cells and computed prose) and its code."""
    words = 0
    code_lines = 0
    for c in nb["cells"]:
        if c["cell_type"] == "markdown":
            words += len(re.findall(r"[A-Za-z]+", re.sub(r"\$[^$]*\$", " x ", _text(c))))
        elif c["cell_type"] == "code":
            code_lines += sum(1 for ln in _text(c).splitlines() if ln.strip())
            for o in c.get("outputs", []):
                md = o.get("data", {}).get("text/markdown")
                if md:
                    words += len(re.findall(r"[A-Za-z]+", "".join(md)))
    return max(1, round(words / WORDS_PER_MINUTE + code_lines / CODE_LINES_PER_MINUTE))


def _stamp(s: str) -> _dt.datetime:
    return _dt.datetime.fromisoformat(s.replace("Z", "+00:00"))


def execution_status(nb: dict, records: list[dict], version: str) -> dict:
    """When and how a committed notebook was executed, from its cells' timing metadata and its claims."""
    starts, ends = [], []
    for c in nb["cells"]:
        ex = c.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in ex:
            starts.append(_stamp(ex["iopub.execute_input"]))
        if "shell.execute_reply" in ex:
            ends.append(_stamp(ex["shell.execute_reply"]))
    presets = sorted({r["preset"] for r in records})
    devices = sorted({r["device"] for r in records})
    kinds = {}
    for k in ("finding", "consistency", "record"):
        rows = [r for r in records if r["kind"] == k]
        kinds[k] = (sum(bool(r["passed"]) for r in rows), len(rows))
    return {
        "date": min(starts).strftime("%Y-%m-%d %H:%M UTC") if starts else "unknown",
        "wall_s": (max(ends) - min(starts)).total_seconds() if starts and ends else None,
        "preset": ", ".join(presets) or "unknown",
        "device": ", ".join(devices) or "unknown",
        "version": version,
        "claims": kinds,
        "passed": sum(p for p, _ in kinds.values()),
        "total": sum(n for _, n in kinds.values()),
    }


def fmt_wall(s: float | None) -> str:
    if s is None:
        return "unknown"
    return f"{s:.0f} s" if s < 90 else f"{s / 60:.1f} min"


def status_row(st: dict) -> str:
    k = st["claims"]
    return (
        f"{st['preset']} | {st['date']} | {fmt_wall(st['wall_s'])} | {st['device']} | {st['version']} | "
        f"{st['passed']}/{st['total']} ({k['finding'][0]}/{k['finding'][1]} findings)"
    )


def load_records(root: Path, stem: str) -> list[dict]:
    p = root / "reproduction" / "records" / f"{stem}.json"
    return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else []


# --------------------------------------------------------------------------------------------
# Plain-text maths (claim statements, docstrings) -> TeX
# --------------------------------------------------------------------------------------------
#
# The claim statements and the library's docstrings write maths in plain text for ``print`` and
# ``help()``: Unicode symbols (λ, ‖, Σ, ᵀ, ²) and TeX's sub- and superscripts (``λ_k``, ``G_ij``,
# ``Q_[d]``, ``Λ_[d]^{1/2}``, ``e^{λt}``). Unicode reads well as it is; the scripts do not. The site
# typesets every word that carries a script (MathJax reads the Unicode symbols in it as they are) and
# leaves the rest, and identifiers (``enwiki2015_17m``, ``optimal_embeddings``) alone.

_SUPERSCRIPT = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁽⁾ⁿ", "0123456789+-()n")) | {"ᵀ": r"\top "}
#: Function names written upright: TeX's own (True) or through \operatorname (False).
_TEX_FUNCTIONS = {n: True for n in "log exp ln tanh max min det sin cos sup inf arg".split()} | {
    n: False for n in "artanh diag tr rank argmin argmax sign".split()
}
_SUB_RUN = re.compile(r"[a-zα-ω0-9+\-−′]+")
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+")


def _balanced(s: str, pairs: str = "(){}[]") -> bool:
    depth = {pairs[i]: 0 for i in range(0, len(pairs), 2)}
    close = {pairs[i + 1]: pairs[i] for i in range(0, len(pairs), 2)}
    for ch in s:
        if ch in depth:
            depth[ch] += 1
        elif ch in close:
            depth[close[ch]] -= 1
            if depth[close[ch]] < 0:
                return False
    return all(v == 0 for v in depth.values())


def _group(s: str, i: int, open_: str, close: str) -> int:
    """Index just past the group that opens at ``s[i] == open_`` (-1 when it never closes)."""
    depth = 0
    for j in range(i, len(s)):
        depth += s[j] == open_
        depth -= s[j] == close
        if depth == 0:
            return j + 1
    return -1


def word_tex(word: str) -> str | None:
    """TeX for one whitespace-free word of plain-text maths, or None when it is not maths (no script,
    an identifier, a path or code, unbalanced brackets)."""
    if "_" not in word and "^" not in word:
        return None
    if (
        word.startswith(("_", "^"))
        or re.search(r"[`\\$\"'~@]|://|__|[A-Za-z0-9]\.[A-Za-z_]|:\S", word)
        or not _balanced(word, "{}")
    ):
        return None  # code, a path, a dotted name (qwem.fig2.x_y, qwem_lib.qwem.theory), a template
    if _IDENTIFIER.fullmatch(word):
        first, *rest = word.split("_")
        if len(first) >= 3 or any(len(p) >= 4 for p in rest):
            return None
    tex = _word_tex(word)
    # Two scripts of one kind on one base (a_b_c, x²^2) are a TeX error: such a word is not maths.
    return tex if tex is not None and _scripts_ok(tex) else None


def _scripts_ok(tex: str) -> bool:
    """No base carries two subscripts or two superscripts (TeX's "double subscript" error)."""
    i, seen = 0, ""
    while i < len(tex):
        ch = tex[i]
        if ch in "_^":
            if ch in seen:
                return False
            seen += ch
            i += 1
            if i < len(tex) and tex[i] == "{":
                i = _group(tex, i, "{", "}")
                if i < 0:
                    return False
            elif i < len(tex) and tex[i] == "\\":
                m = re.match(r"\\[A-Za-z]+|\\.", tex[i:])
                i += len(m.group(0)) if m else 1
            else:
                i += 1
            continue
        seen = ""
        if ch == "{":
            i = _group(tex, i, "{", "}")
            if i < 0:
                return False
        elif ch == "\\":
            m = re.match(r"\\[A-Za-z]+\s*|\\.", tex[i:])
            i += len(m.group(0)) if m else 1
            if m and m.group(0).startswith(("\\mathrm", "\\operatorname")):
                i = _group(tex, i, "{", "}") if i < len(tex) and tex[i] == "{" else i
        else:
            i += 1
    return True


def _word_tex(word: str) -> str | None:
    out, i = [], 0
    while i < len(word):
        ch = word[i]
        if ch in "_^":
            nxt = word[i + 1 : i + 2]
            if nxt == "{" or nxt == "[":
                end = _group(word, i + 1, nxt, "}" if nxt == "{" else "]")
                if end < 0:
                    return None
                inner = word[i + 2 : end - 1] if nxt == "{" else word[i + 1 : end]
                sub = word_tex(inner) if ("_" in inner or "^" in inner) else None
                out.append(f"{ch}{{{_tex_chars(sub if sub is not None else inner)}}}")
                i = end
                continue
            m = _SUB_RUN.match(word, i + 1)
            if m:
                run = m.group(0)
                if len(run) > 1 and word[m.end() : m.end() + 1] == "_":
                    run = run[:-1]  # p_ip_j: the run's last letter is the next base (p_i p_j)
                body = rf"\mathrm{{{run}}}" if len(run) >= 3 and run.isalpha() else _tex_chars(run)
                out.append(f"{ch}{{{body}}}")
                i += 1 + len(run)
                continue
            if nxt and (nxt.isalpha() or nxt == "*"):  # W^T, x_N, M_*
                out.append(f"{ch}{{{_tex_chars(nxt)}}}")
                i += 2
                continue
            return None
        if ch in _SUPERSCRIPT:
            j = i
            while j < len(word) and word[j] in _SUPERSCRIPT:
                j += 1
            out.append("^{" + "".join(_SUPERSCRIPT[c] for c in word[i:j]).strip() + "}")
            i = j
            continue
        run = re.match(r"[A-Za-z]{2,}", word[i:])
        if run and (i == 0 or not word[i - 1].isalpha()):
            name = run.group(0)
            if name in _TEX_FUNCTIONS:
                out.append(rf"\{name} " if _TEX_FUNCTIONS[name] else rf"\operatorname{{{name}}}")
            elif len(name) >= 3:
                out.append(rf"\mathrm{{{name}}}")
            else:
                out.append(name)
            i += len(name)
            continue
        if ch == "*" and out and (word[i - 1].isalnum() or word[i - 1] in ")‖|"):
            out[-1] = (
                f"{{{out[-1]}^{{\\star}}}}"  # M*_ij² -> {M^⋆}_{ij}^{2}: one script of each kind
            )
            i += 1
            continue
        out.append(_tex_chars(ch))
        i += 1
    return "".join(out)


def _tex_chars(s: str) -> str:
    return re.sub(r"([%&#])", r"\\\1", s).replace("−", "-") if s else s


def _split_punct(word: str) -> tuple[str, str, str]:
    """Leading and trailing punctuation that belongs to the sentence, not to the maths."""
    lead, tail = "", ""
    while word and word[0] in "([" and not _balanced(word):
        lead, word = lead + word[0], word[1:]
    while word and (word[-1] in ",.;:!?" or (word[-1] in ")]" and not _balanced(word))):
        tail, word = word[-1] + tail, word[:-1]
    return lead, word, tail


def _map_words(text: str, math: Callable[[str], str], plain: Callable[[str], str]) -> str:
    out = []
    for tok in re.split(r"(\s+)", text):
        if not tok or tok.isspace():
            out.append(tok)
            continue
        lead, core, tail = _split_punct(tok)
        tex = word_tex(core)
        out.append(plain(tok) if tex is None else plain(lead) + math(tex) + plain(tail))
    return "".join(out)


def md_escape(text: str) -> str:
    """Plain text safe inside Markdown (no emphasis, link, HTML, maths or table syntax)."""
    return re.sub(r"([\\`*_\[\]<>|$#])", r"\\\1", str(text))


def md_math(text: str, table: bool = False) -> str:
    """Plain text with maths as Markdown: ``$…$`` kept as written, script-bearing words typeset, the rest
    escaped. In a table cell (``table``), ``|`` inside maths is written ``\\vert`` (the table would cut it)."""

    def math(tex: str) -> str:
        if table:
            tex = tex.replace(r"\|", r"\Vert ").replace("|", r"\vert ")
        return f"${tex}$"

    out, last = [], 0
    for m in re.finditer(r"(?<!\\)\$([^$\n]+?)\$", str(text)):
        out.append(_map_words(text[last : m.start()], math, md_escape))
        out.append(math(m.group(1)))
        last = m.end()
    out.append(_map_words(str(text)[last:], math, md_escape))
    return "".join(out)


def rst_math_lines(lines: list[str]) -> list[str]:
    """A reStructuredText docstring with its script-bearing words as ``:math:`` roles; literal blocks,
    doctests, directives, code and existing roles untouched."""
    out, literal_indent = [], None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if literal_indent is not None:
            if line.strip() and indent <= literal_indent:
                literal_indent = None
            else:
                out.append(line)
                continue
        stripped = line.strip()
        if stripped.endswith("::"):
            literal_indent = indent
        if stripped.startswith((">>>", "..", "::")) or not stripped:
            out.append(line)
            continue
        # a field's marker (":param t_out:", ":type t_out:", napoleon's output) names a parameter: kept as is
        field_marker = re.match(r"\s*:\w+(?: [^:`]+)?: ?", line)
        head = field_marker.group(0) if field_marker else ""
        parts = re.split(r"(``.+?``|:[\w:+-]+:`[^`]*`|`[^`]*`_?)", line[len(head) :])
        out.append(
            head
            + "".join(
                p if k % 2 else _map_words(p, lambda t: f":math:`{t}`", lambda s: s)
                for k, p in enumerate(parts)
            )
        )
    return out
