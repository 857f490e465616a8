"""The reader's tables, generated: the README's chapter table, the course plan's sessions and the developers'
guide's tables of run times and paper-scale records.

    python tools/reader_tables.py            # rewrite the generated blocks of README.md, INSTRUCTORS.md and
                                             # CONTRIBUTING.md
    python tools/reader_tables.py --check    # exit 1 if either block is not what this would write

Each chapter's title comes from its own heading (``qwem_lib.book.contents``), its reading time from the
committed notebook (``website/apparatus.py``'s ``reading_minutes``, the formula the website prints), its
cold run time and data from ``reproduction/timings.json`` (measured). The one-line summaries are the
README's own words: the table keeps the summary column it finds and regenerates the rest. The course
plan (:data:`COURSE`) names each session's core and optional chapters and its exercises; the minutes,
CPU time and data of each session are summed here, so the plan cannot disagree with the table.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "website"))

from qwem_lib.book import contents  # noqa: E402

TIMINGS = ROOT / "reproduction" / "timings.json"
README = ROOT / "README.md"
INSTRUCTORS = ROOT / "INSTRUCTORS.md"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"
PAPER_RECORDS = ROOT / "reproduction" / "records-paper"
BEGIN, END = "<!-- {name}:begin -->", "<!-- {name}:end -->"


@dataclass(frozen=True)
class Session:
    """One week of the course: a meeting of about 90 minutes, the core chapters read before it."""

    week: int
    theme: str
    core: tuple[str, ...]
    optional: tuple[str, ...]
    exercises: tuple[
        str, ...
    ]  # "10.3": chapter.number (its kind and difficulty come from the chapter)
    goals: str


#: The course plan: six weeks; every chapter not in a core list is optional somewhere.
COURSE: tuple[Session, ...] = (
    Session(
        1,
        "word2vec as matrix factorisation",
        ("00", "10", "11"),
        ("14",),
        ("10.3", "11.1"),
        "state word2vec's loss; derive the quadratic model and its target $M^\\star$; prove Theorem 1 "
        "and tell the PSD truncation from Eckart–Young's; weighted factorisation and its closed form",
    ),
    Session(
        2,
        "learning one eigenvector at a time",
        ("12", "13"),
        ("52",),
        ("12.2", "13.2"),
        "solve the aligned gradient flow; the time scale $\\tau_k$; silent alignment from a small random "
        "start",
    ),
    Session(
        3,
        "real text",
        ("20", "21"),
        ("22",),
        ("20.3", "21.2"),
        "build $M^\\star$ from a corpus and read its spectrum; evaluate embeddings on analogies and "
        "similarity; what a smaller corpus changes",
    ),
    Session(
        4,
        "training on text",
        ("23", "24"),
        ("25", "26", "27", "28", "50"),
        ("23.1", "24.2"),
        "stepwise learning under SGD; what trained models learn, against a rotation null; what the "
        "ablation and tied SGNS add, and where tied SGNS is heading; the paper's Figure 2 at its own size, "
        "without minibatch noise",
    ),
    Session(
        5,
        "linear structure and analogies",
        ("30", "31", "32"),
        ("51", "53"),
        ("30.1", "32.1"),
        "task vectors as a spiked random matrix; signal, noise and accuracy; when each analogy is "
        "learned",
    ),
    Session(
        6,
        "feature collapse",
        ("40", "41"),
        ("42", "43", "44", "45", "46"),
        ("40.1", "41.4"),
        "the data model and its two networks; the long tail and why LayerNorm matters; the "
        "collapse theorems and how far collapse carries",
    ),
)


# -- the numbers -----------------------------------------------------------------------------------
def load_timings(path: Path = TIMINGS) -> dict:
    """``reproduction/timings.json``, checked: every chapter listed, relations and data sets known."""
    t = json.loads(path.read_text(encoding="utf-8"))
    known = {c.number for c in contents.chapters()}
    missing = sorted(known - set(t["chapters"]))
    if missing:
        raise ValueError(f"{path}: no timing for chapters {missing}")
    for n, row in t["chapters"].items():
        rel = row.get("relation", "=")
        if "group" in row:
            if n not in t["groups"][row["group"]]["chapters"]:
                raise ValueError(f"{path}: chapter {n} not listed in its group {row['group']!r}")
        elif row.get("cold_min") is not None and rel not in ("=", "~", "<", ">="):
            raise ValueError(f"{path}: chapter {n} has relation {rel!r}")
        unknown = [d for d in row["data"] if d not in t["data"]]
        if unknown:
            raise ValueError(f"{path}: chapter {n} needs unknown data {unknown}")
    return t


def record_run(
    t: dict, number: str, minutes: float, *, cold: bool, datasets: set[str], when: str, machine: str
) -> bool:
    """Enter one chapter's run by ``make book`` into timings ``t``; True when the entry changed.

    A run from an empty cache (``tools/build_book.py --cold``) measures the cold time: it replaces what was
    there (relation ``=``). A run that found a filled cache gives only a lower bound (``>=``): it replaces an
    entry that has no time or a smaller lower bound, never a measured or estimated one. The data the run
    read (the datasets ``qwem_lib.data.fetch`` was asked for) replaces the chapter's data list whenever the
    run is cold (a warm run may skip loading a corpus whose statistics are cached). Chapters measured as a
    group are left as they are.
    """
    row = t["chapters"][number]
    if "group" in row:
        return False
    old = dict(row)
    if cold:
        by_set = {v["dataset"]: k for k, v in t["data"].items()}
        row["data"] = sorted(
            {by_set[d] for d in datasets if d in by_set}, key=lambda k: float(k[:-1])
        )
        row.update(cold_min=round(minutes, 1), relation="=", measured=f"{when}, {machine}, cold")
        row.pop("note", None)
    elif row.get("cold_min") is None or (row.get("relation") == ">=" and minutes > row["cold_min"]):
        row.update(
            cold_min=round(minutes, 1), relation=">=", measured=f"{when}, {machine}, warm cache"
        )
        row.pop("note", None)
    return row != old


def save_timings(t: dict, path: Path = TIMINGS) -> None:
    """Write ``reproduction/timings.json`` back (one chapter per line, as committed)."""
    head = {k: v for k, v in t.items() if k not in ("data", "groups", "chapters")}
    parts = [json.dumps(head, ensure_ascii=False, indent=1)[:-2]]
    for key in ("data", "groups", "chapters"):
        rows = ",\n".join(
            f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in t[key].items()
        )
        parts.append(f" {json.dumps(key)}: {{\n{rows}\n }}")
    path.write_text(",\n".join(parts) + "\n}\n", encoding="utf-8")


#: The book preset's promise: a chapter runs cold in about this many minutes on a 2-core laptop.
BUDGET_MIN = 15


def over_budget(t: dict) -> list[str]:
    """The chapters whose cold run time (or its lower bound) is over :data:`BUDGET_MIN`."""
    return [
        n
        for n, row in t["chapters"].items()
        if "group" not in row and row.get("cold_min") is not None and row["cold_min"] > BUDGET_MIN
    ]


def reading_minutes() -> dict[str, int]:
    """Each committed chapter's reading time, by the website's formula."""
    import apparatus  # website/apparatus.py

    out = {}
    for c in contents.chapters():
        nb = json.loads((ROOT / "notebooks" / f"{c.stem}.ipynb").read_text(encoding="utf-8"))
        out[c.number] = apparatus.reading_minutes(nb)
    return out


def _num(x: float) -> str:
    return f"{x:.0f}" if x >= 10 or x == int(x) else f"{x:.1f}"


def cold_text(t: dict, number: str) -> str:
    """One chapter's cold run time as the table prints it."""
    row = t["chapters"][number]
    if "group" in row:
        g = t["groups"][row["group"]]
        first, last = g["chapters"][0], g["chapters"][-1]
        return f"~{_num(g['cold_min'])} for {first}–{last}"
    if row.get("cold_min") is None:
        return "not measured"
    sym = {"=": "", "~": "~", "<": "< ", ">=": "≥ "}[row.get("relation", "=")]
    return sym + _num(row["cold_min"])


def cold_sum(t: dict, numbers: tuple[str, ...]) -> str:
    """The cold run time of several chapters together (a group counted once), with its qualifier."""
    total, rels, seen = 0.0, set(), set()
    for n in numbers:
        row = t["chapters"][n]
        if "group" in row:
            if row["group"] in seen:
                continue
            seen.add(row["group"])
            row = t["groups"][row["group"]]
        if row.get("cold_min") is None:
            rels.add(">=")
            continue
        total += row["cold_min"]
        rels.add(row.get("relation", "="))
    if not total and rels == {">="}:
        return "not measured"
    sym = (
        "≥ "
        if ">=" in rels
        else "~"
        if ("~" in rels or ("<" in rels and "=" in rels))
        else "< "
        if "<" in rels
        else ""
    )
    return sym + _num(total)


def data_text(t: dict, numbers: tuple[str, ...] | list[str]) -> str:
    """The data sets the chapters need beyond what ships, with their download size."""
    sets = sorted(
        {d for n in numbers for d in t["chapters"][n]["data"]}, key=lambda d: float(d[:-1])
    )
    if not sets:
        return "none"
    mb = sum(t["data"][d]["download_mb"] for d in sets)
    return " + ".join(sets) + f" ({mb} MB)"


# -- the README's chapter table --------------------------------------------------------------------
def readme_summaries(block: str) -> dict[str, str]:
    """The summary column of an existing chapter table: number -> summary."""
    out = {}
    for m in re.finditer(r"^\|\s*(\d\d)\s*\|[^|]*\|\s*((?:[^|\\]|\\.)*?)\s*\|", block, re.M):
        out[m.group(1)] = m.group(2)
    return out


def chapter_table(summaries: dict[str, str], t: dict, minutes: dict[str, int]) -> str:
    rows = [
        "| | chapter | what it shows | reading (min) | cold run (min) | data |",
        "|---|---|---|---|---|---|",
    ]
    for c in contents.chapters():
        rows.append(
            f"| {c.number} | [{c.title}](notebooks/{c.stem}.ipynb) | {summaries.get(c.number, '')} | "
            f"{minutes[c.number]} | {cold_text(t, c.number)} | {data_text(t, [c.number])} |"
        )
    total_read = sum(minutes.values())
    over = over_budget(t)
    rows += [
        "",
        (
            f"Over the `book` preset's {BUDGET_MIN}-minute budget a chapter (cold): "
            + ", ".join(f"{n} ({cold_text(t, n)} min)" for n in over)
            + ". They break the promise of a chapter in one sitting on a laptop; each caches its long runs, "
            "so a second run takes minutes."
            if over
            else f"Every measured chapter runs within the `book` preset's {BUDGET_MIN}-minute budget."
        ),
        "",
        f"Reading, the whole book: about {total_read / 60:.0f} hours (prose at 150 words and code at 10 "
        f"lines a minute). Cold run: `book` preset from an empty cache on {t['machine']}; measured "
        f"{t['measured']}, or as a chapter's entry in "
        "[reproduction/timings.json](reproduction/timings.json) says (`make book` records each run). Data: downloaded "
        "and built on first use; 17M is `enwiki2015_17m`, 70M `enwiki2015_70m`.",
    ]
    return "\n".join(rows)


# -- the course plan ---------------------------------------------------------------------------
#: The kinds of exercise: pen and paper, change the code and run it, an open question answered by experiment.
KINDS = ("derive", "compute", "explore")
LABEL = re.compile(r"^# (\d+)\. \*\((\w+), (★{1,3})\)\* ", re.M)


def exercise_labels(stem: str) -> list[tuple[str, int]]:
    """Each exercise's kind and difficulty (1–3 stars), in order, from its label in the chapter: an
    exercise under the ``## Exercises`` heading opens with ``N. *(kind, ★★)*``. Raises ValueError for an
    exercise without a label, with an unknown kind, or out of order."""
    text = (ROOT / "notebooks" / f"{stem}.py").read_text(encoding="utf-8")
    m = re.search(r"^# ## Exercises\s*$(.*?)^# ## Solutions", text, re.M | re.S)
    if not m:
        return []
    numbered = re.findall(r"^# (\d+)\. ", m.group(1), re.M)
    labels = LABEL.findall(m.group(1))
    if [n for n, _, _ in labels] != numbered or numbered != [
        str(i) for i in range(1, len(numbered) + 1)
    ]:
        raise ValueError(f"{stem}: every exercise opens with 'N. *(kind, ★…)*', numbered from 1")
    bad = [kind for _, kind, _ in labels if kind not in KINDS]
    if bad:
        raise ValueError(f"{stem}: unknown exercise kinds {bad}; known: {KINDS}")
    return [(kind, len(stars)) for _, kind, stars in labels]


def exercise_count(stem: str) -> int:
    """How many exercises a chapter lists under its ``## Exercises`` heading."""
    return len(exercise_labels(stem))


def course_table(t: dict, minutes: dict[str, int]) -> str:
    stems = {c.number: c.stem for c in contents.chapters()}
    covered = [n for s in COURSE for n in s.core + s.optional]
    missing = sorted(set(stems) - set(covered))
    twice = sorted({n for n in covered if covered.count(n) > 1})
    if missing or twice:
        raise ValueError(f"course plan: chapters missing {missing}, listed twice {twice}")
    rows = [
        "| week | theme | core chapters | reading (min) | cold run (min) | data | optional chapters "
        "| reading (min) | cold run (min) | exercises |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in COURSE:
        shown = []
        for ex in s.exercises:
            ch, num = ex.split(".")
            if ch not in s.core or not 1 <= int(num) <= exercise_count(stems[ch]):
                raise ValueError(f"week {s.week}: exercise {ex} is not one of its core chapters'")
            kind, stars = exercise_labels(stems[ch])[int(num) - 1]
            shown.append(f"{ex} ({kind}, {'★' * stars})")
        rows.append(
            f"| {s.week} | {s.theme} | {', '.join(s.core)} | {sum(minutes[n] for n in s.core)} | "
            f"{cold_sum(t, s.core)} | {data_text(t, s.core)} | {', '.join(s.optional)} | "
            f"{sum(minutes[n] for n in s.optional)} | {cold_sum(t, s.optional)} | "
            + ", ".join(shown)
            + " |"
        )
    rows += ["", "Learning goals:", ""]
    rows += [f"* **Week {s.week} · {s.theme}.** {s.goals[0].upper()}{s.goals[1:]}." for s in COURSE]
    return "\n".join(rows)


# -- writing the blocks --------------------------------------------------------------------------
# -- the developers' guide: run times and paper-scale records ----------------------------------------
def timing_table(t: dict) -> str:
    """Every chapter's cold run time at the book preset as ``reproduction/timings.json`` holds it, with
    how it was measured and the data it reads beyond what ships."""
    rows = [
        "| chapter | minutes, empty cache | how it was measured | data beyond what ships |",
        "|---|---|---|---|",
    ]
    for ch in contents.chapters():
        row = t["chapters"].get(ch.number)
        if row is None:
            continue
        g = t["groups"].get(row.get("group", ""), {})
        how = row.get("note") or g.get("note") or ""
        if row.get("measured"):
            how = f"measured {row['measured']}" + (f"; {how}" if how else "")
        rows.append(
            f"| {ch.number} · {ch.title} | {cold_text(t, ch.number)} | {how or '—'} | "
            f"{data_text(t, [ch.number])} |"
        )
    return "\n".join(rows)


def paper_records_table(directory: Path = PAPER_RECORDS) -> str:
    """The committed paper-scale records: chapter, wall time, machine, date, claims and whether each
    record was executed from the chapter's current source (drift 0: evidence at the paper's size)."""
    from qwem_lib.book.paper_map import paper_record_drift

    rows = [
        "| chapter | wall time | machine | date | claims (all held) | current source |",
        "|---|---|---|---|---|---|",
    ]
    for f in sorted(directory.glob("*.json")):
        r = json.loads(f.read_text(encoding="utf-8"))
        differ, cells = paper_record_drift(f.stem)
        claims = r.get("claims", [])
        held = "yes" if all(c.get("passed") for c in claims) else "no"
        current = "yes" if differ == 0 else f"no: {differ} of {cells} code cells changed since"
        rows.append(
            f"| {f.stem} | {float(r['wall_s']) / 60:.0f} min | {r['machine']} | {str(r['date'])[:10]} | "
            f"{len(claims)} ({held}) | {current} |"
        )
    return "\n".join(rows)


def _block(text: str, name: str) -> tuple[int, int]:
    b, e = BEGIN.format(name=name), END.format(name=name)
    i, j = text.find(b), text.find(e)
    if i < 0 or j < i:
        raise ValueError(f"no {b} … {e} block")
    return i + len(b), j


def render(path: Path, name: str, make) -> tuple[str, str]:
    """(current text, text with the block ``name`` regenerated by ``make(old_block)``)."""
    text = path.read_text(encoding="utf-8")
    i, j = _block(text, name)
    return text, text[:i] + "\n" + make(text[i:j]).strip() + "\n" + text[j:]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a generated block is stale")
    args = ap.parse_args(argv)
    t = load_timings()
    minutes = reading_minutes()
    jobs = [
        (README, "chapters", lambda old: chapter_table(readme_summaries(old), t, minutes)),
        (INSTRUCTORS, "sessions", lambda old: course_table(t, minutes)),
        (CONTRIBUTING, "timings", lambda old: timing_table(t)),
        (CONTRIBUTING, "paper-records", lambda old: paper_records_table()),
    ]
    stale = []
    for path, name, make in jobs:
        old, new = render(path, name, make)
        if old != new:
            stale.append(path.name)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    if args.check and stale:
        print(f"stale: {', '.join(stale)}; run python tools/reader_tables.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
