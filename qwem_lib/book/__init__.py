"""The book's own machinery, below every computation: presets and seeds, the claim report, the map of the
papers' statements, and the visual style.

``config``
    presets (QWEM_PRESET), device (QWEM_DEVICE), seeds, cache directory
``checks``
    argument checks whose messages name the argument, its value and what is expected
``cache``
    atomic writes and checked reads of the cache folder
``loop``
    the one training loop of the book's trainers: steps, logs on a schedule, checkpoints, a clean stop
``report``
    assert-and-record claims; aggregation into REPRODUCTION.md and claims.json
``paper_map``
    the papers' statements, their verdicts and the claims that decide them
``plotting``
    the book's single visual style and its figure helpers
``contents``
    the table of contents, read from the chapters' headings
``formatting``
    how a value is printed in the report and the map
"""

from . import cache, checks, config, contents, formatting, loop, paper_map, plotting, report  # noqa: F401
