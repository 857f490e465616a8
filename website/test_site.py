"""The book's website, checked in a real browser: ``make site-test`` (CI's third pass).

Serves the built site (``_site/html``, or ``QWEM_SITE_DIR``) on 127.0.0.1 and drives Debian's headless
Chromium through Selenium and the matching chromedriver (both from the ``chromium`` source package, so
their versions always agree; no browser or driver is downloaded). Host-name resolution is switched off in
the browser, and every page is checked to have loaded nothing from outside the site, so a pass proves the
site works offline. For every chapter: the mathematics was typeset by MathJax (each math element holds
MathJax's output, no MathJax error, no raw ``$$`` or ``$\\cmd$`` left in the text), every image loaded
(``naturalWidth > 0``) and there are as many as the notebook has figures, no progress-bar residue, and the
page links its ``.ipynb`` (the committed file, byte for byte) and ``.py``. The sidebar and the "next"
buttons reach every chapter, and the site's search finds a chapter. Screenshots of every chapter go to
``_site/screenshots/`` for a person to look at.

Not part of ``make test`` (this file is outside pytest's ``testpaths``): it needs the site's optional
dependencies (``pip install -e .[site]``) and ``/usr/bin/chromium`` with ``/usr/bin/chromedriver``.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SITE = Path(os.environ.get("QWEM_SITE_DIR", ROOT / "_site" / "html")).resolve()
SHOTS = SITE.parent / "screenshots"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
PAGE_TIMEOUT_S = 60

_spec = importlib.util.spec_from_file_location("qwem_site_build", ROOT / "website" / "build.py")
site_build = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = site_build  # dataclasses look their module up there
_spec.loader.exec_module(site_build)
CHAPTERS = site_build.find_chapters(ROOT)


def _figures_in(nb_path: Path) -> int:
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    return sum(
        1
        for c in nb["cells"]
        for o in c.get("outputs", [])
        if any(k.startswith("image/") for k in o.get("data", {}))
    )


# ------------------------------------------------------------------------------------------------
# Fixtures: a local server and one browser for the session
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def base_url():
    if not (SITE / "index.html").is_file():
        pytest.fail(
            f"no site at {SITE}: run `make site` first (or `make site-test`, which builds it)"
        )
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


@pytest.fixture(scope="session")
def browser():
    for exe in (CHROMIUM, CHROMEDRIVER):
        if not Path(exe).is_file():
            pytest.fail(
                f"{exe} is missing: `apt-get install chromium chromium-driver` (Debian), "
                "or set CHROMIUM / CHROMEDRIVER"
            )
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium Manager look for downloads
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="qwem-site-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        "--window-size=1280,1600",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    ):  # nothing else resolves
        opts.add_argument(flag)
    driver = webdriver.Chrome(options=opts, service=Service(executable_path=CHROMEDRIVER))
    driver.set_page_load_timeout(PAGE_TIMEOUT_S)
    driver.set_script_timeout(PAGE_TIMEOUT_S)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def _open(driver, url: str) -> dict:
    """Load a page, wait until MathJax has typeset it, and return what the checks need."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    WebDriverWait(driver, PAGE_TIMEOUT_S).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )
    has_math = driver.execute_script(
        "return document.querySelectorAll('span.math, div.math').length > 0"
    )
    if has_math:
        WebDriverWait(driver, PAGE_TIMEOUT_S).until(
            lambda d: d.execute_script(
                "return !!(window.MathJax && MathJax.startup && MathJax.startup.promise)"
            )
        )
        err = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            MathJax.startup.promise.then(() => done(null)).catch(e => done(String(e)));""")
        assert err is None, f"{url}: MathJax failed: {err}"
    # Bring every image into view once (in case the theme loads them lazily), then wait for them.
    driver.execute_script(
        "document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; });"
        "window.scrollTo(0, document.body.scrollHeight); window.scrollTo(0, 0);"
    )
    WebDriverWait(driver, PAGE_TIMEOUT_S).until(
        lambda d: d.execute_script("return [...document.images].every(i => i.complete)")
    )
    return driver.execute_script(r"""
        const q = s => [...document.querySelectorAll(s)];
        const maths = q('span.math, div.math');
        const clone = document.querySelector('main, article, body').cloneNode(true);
        clone.querySelectorAll('pre, code, script, style, mjx-container, .highlight, textarea')
             .forEach(e => e.remove());
        return {
          n_math: maths.length,
          n_typeset: maths.filter(m => m.querySelector('mjx-container')).length,
          untypeset: maths.filter(m => !m.querySelector('mjx-container')).slice(0, 5).map(m => m.textContent),
          n_merror: q('mjx-merror').length,
          merrors: q('mjx-merror').slice(0, 5).map(m => m.getAttribute('data-mjx-error') || m.textContent),
          text: clone.textContent,
          images: q('img').map(i => ({src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0})),
          figures: q('main img, article img').filter(i => !i.closest('.navbar-brand, .sidebar-primary-item')).length,
          links: q('a[href]').map(a => a.getAttribute('href')),
          resources: performance.getEntriesByType('resource').map(r => r.name),
          stderr: q('.output.stderr, .cell_output .stderr').length,
        };""")


def _assert_offline(page: dict, url: str, base: str) -> None:
    outside = [r for r in page["resources"] if not r.startswith((base, "data:", "blob:"))]
    assert not outside, f"{url} loaded resources from outside the site: {outside[:5]}"


RAW_TEX = re.compile(r"\$[^$\s][^$\n]*?\\[A-Za-z]+[^$\n]*?\$")  # $…\cmd…$ left untypeset
PROGRESS = re.compile(r"\d+%\|[█▏▎▍▌▋▊▉ #]*\|")  # tqdm bar residue


# ------------------------------------------------------------------------------------------------
# Tests
# ------------------------------------------------------------------------------------------------


def test_html_references_nothing_outside():
    """No page or style sheet pulls a script, style sheet, font or image from the network."""
    bad = []
    for page in SITE.rglob("*.html"):
        html = page.read_text(encoding="utf-8", errors="replace")
        for m in re.finditer(
            r"<(script|link|img|iframe)\b[^>]*\b(src|href)=[\"']((?:https?:)?//[^\"']+)", html
        ):
            if m.group(1) == "link" and not re.search(
                r"rel=[\"']?(stylesheet|preload|icon)", m.group(0)
            ):
                continue
            bad.append(f"{page.relative_to(SITE)}: {m.group(3)}")
    for css in SITE.rglob("*.css"):
        for m in re.finditer(
            r"(?:url\(|@import\s+)[\"']?((?:https?:)?//[^\"')]+)", css.read_text(errors="replace")
        ):
            bad.append(f"{css.relative_to(SITE)}: {m.group(1)}")
    assert not bad, "external resources:\n" + "\n".join(bad[:20])


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_chapter_page(chapter, browser, base_url):
    url = urllib.parse.urljoin(base_url, f"notebooks/{chapter.stem}.html")
    page = _open(browser, url)
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SHOTS / f"{chapter.stem}.png"))
    if browser.execute_script(
        "const i = document.querySelector('main img, article img');"
        "if (i) { i.scrollIntoView(); return true; } return false;"
    ):
        browser.save_screenshot(str(SHOTS / f"{chapter.stem}-figure.png"))
        browser.execute_script("window.scrollTo(0, 0);")

    _assert_offline(page, url, base_url)
    # Mathematics: every math element typeset by MathJax, without errors, no raw TeX left in the text.
    assert page["n_math"] > 0, f"{url}: no mathematics at all (chapters derive results)"
    assert page["n_typeset"] == page["n_math"], f"{url}: untypeset math, e.g. {page['untypeset']}"
    assert page["n_merror"] == 0, f"{url}: MathJax errors: {page['merrors']}"
    assert "$$" not in page["text"], f"{url}: raw $$ in the text"
    raw = RAW_TEX.findall(page["text"])
    assert not raw, f"{url}: raw inline TeX in the text: {raw[:3]}"
    # Figures: every image loaded, and every figure of the notebook is on the page.
    broken = [i["src"] for i in page["images"] if not i["ok"]]
    assert not broken, f"{url}: images that did not load: {broken}"
    assert page["figures"] >= _figures_in(chapter.path), (
        f"{url}: fewer images than the notebook's figures"
    )
    # No progress-bar residue.
    assert page["stderr"] == 0 and not PROGRESS.search(page["text"]), f"{url}: progress-bar residue"
    # Links to the chapter's sources; the .ipynb is the committed one, byte for byte.
    for suffix in (".ipynb", ".py"):
        hrefs = [h for h in page["links"] if h.endswith(chapter.stem + suffix)]
        assert hrefs, f"{url}: no link to {chapter.stem}{suffix}"
        with urllib.request.urlopen(urllib.parse.urljoin(url, hrefs[0])) as resp:
            body = resp.read()
        assert body == chapter.path.with_suffix(suffix).read_bytes(), (
            f"{hrefs[0]} is not the committed file"
        )
    # The library it uses is linked to the API reference.
    if chapter.modules or "qwem_lib" in chapter.path.with_suffix(".py").read_text(encoding="utf-8"):
        assert any("api/qwem_lib" in h for h in page["links"]), (
            f"{url}: no link to the API reference"
        )


def test_navigation_reaches_every_chapter(browser, base_url):
    """From the index: the sidebar lists every chapter, and the "next" buttons walk through all in order."""
    from selenium.webdriver.common.by import By

    browser.get(base_url + "index.html")
    sidebar = {
        urllib.parse.urljoin(browser.current_url, a.get_attribute("href")).split("#")[0]
        for a in browser.find_elements(By.CSS_SELECTOR, "nav.bd-docs-nav a[href]")
    }
    want = [urllib.parse.urljoin(base_url, f"notebooks/{c.stem}.html") for c in CHAPTERS]
    missing = [u for u in want if u not in sidebar]
    assert not missing, f"chapters not in the sidebar: {missing}"

    walked, url = [], base_url + "index.html"
    for _ in range(len(want) + 200):
        browser.get(url)
        nxt = browser.find_elements(By.CSS_SELECTOR, "a.right-next")
        if not nxt:
            break
        url = urllib.parse.urljoin(browser.current_url, nxt[0].get_attribute("href")).split("#")[0]
        walked.append(url)
    order = [u for u in walked if u in want]
    assert order == want, f"'next' does not walk the chapters in order: {order}"


def test_index_and_reference_pages(browser, base_url):
    """The index (README and the chapter map), REPRODUCTION, the data sheet and every API page load."""
    index = _open(browser, base_url + "index.html")
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SHOTS / "index.png"))
    _assert_offline(index, base_url + "index.html", base_url)
    for part in sorted({c.number[0] for c in CHAPTERS}):
        assert f"Part {part}" in index["text"], f"the chapter map has no part {part}"
    pages = ["REPRODUCTION.html", "data/README.html", "api/index.html"]
    pages += [f"api/{m}.html" for m in site_build.library_modules()]
    for rel in pages:
        page = _open(browser, base_url + rel)
        assert page["n_merror"] == 0 and page["n_typeset"] == page["n_math"], (
            f"{rel}: math not typeset"
        )
        assert "$$" not in page["text"], f"{rel}: raw $$"
        assert all(i["ok"] for i in page["images"]), f"{rel}: an image did not load"
    api = _open(browser, base_url + "api/index.html")
    for m in site_build.library_modules():
        assert any(h.endswith(f"{m}.html") for h in api["links"]), f"API index does not link {m}"


def test_search_finds_a_chapter(browser, base_url):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(base_url + "search.html?q=eigenvalue")
    try:
        WebDriverWait(browser, PAGE_TIMEOUT_S).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, "#search-results ul.search li")
        )
    except Exception:
        SHOTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SHOTS / "search-failed.png"))
        html = browser.execute_script("return document.querySelector('main, body').outerHTML")
        logs = browser.get_log("browser")
        pytest.fail(f"search showed no results; page: {html[:3000]}\nconsole: {logs}")
    hits = [
        a.get_attribute("href")
        for a in browser.find_elements(By.CSS_SELECTOR, "#search-results li a")
    ]
    assert any("/notebooks/" in h for h in hits), (
        f"search for 'eigenvalue' found no chapter: {hits[:5]}"
    )


def test_docstrings_that_are_not_rst_are_shown_verbatim():
    """conf.py's fallback: plain-text docstrings become literal blocks, valid reStructuredText stays."""
    spec = importlib.util.spec_from_file_location("qwem_site_conf", ROOT / "website" / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)

    class App:
        env = None

    plain = ["Largest |x| such that", "    the bound holds,", "continued here."]
    conf._plain_docstrings(App, "function", "f", None, {}, plain)
    assert plain[:2] == ["::", ""] and plain[2] == "    Largest |x| such that"
    titled = ["Notation", "--------", "", "Text."]
    conf._plain_docstrings(App, "module", "m", None, {}, titled)
    assert titled[0] == "::"
    rst = ["Return ``x`` squared; see :func:`numpy.square`.", "", ":param x: a number"]
    kept = list(rst)
    conf._plain_docstrings(App, "function", "f", None, {}, rst)
    assert rst == kept
