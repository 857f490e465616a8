"""The whole book as one PDF: ``make pdf`` (after ``make site``), offline.

    python website/pdf.py                 # _site/book.pdf, from the built site _site/html
    python website/pdf.py --out DIR

Route: the built site's pages (``_site/html``: the preface, every chapter in order, the reproduction
report, the notation and the references) are opened one by one in Debian's headless Chromium from a local
server; on each, once MathJax has typeset every formula, every solution and folded cell is opened (the PDF
is the instructor edition) and the site's navigation is hidden, and the page is printed through the
DevTools protocol. pypdf joins the pages into one PDF with one bookmark per page. TeX is not needed:
Debian's texlive would be another ~1 GB and would re-typeset the notebooks' HTML outputs badly (and
Sphinx's ``singlehtml`` builder cannot write myst-nb's and sphinx-proof's nodes). CI does not build the
PDF (it takes minutes); ``website/test_pdf.py`` checks one that was built.
"""

from __future__ import annotations

import argparse
import base64
import functools
import http.server
import io
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONF_DIR = ROOT / "website"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")


#: Run in the page before printing: everything folded is opened, and the site's chrome is hidden.
PREPARE = r"""
document.querySelectorAll('details').forEach(d => d.open = true);
document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; });
const st = document.createElement('style');
st.textContent = `
  .bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .header-article, .prev-next-area,
  footer, .bd-footer, .bd-footer-content, button.toggle-button, .headerlink { display: none !important; }
  .bd-main .bd-content .bd-article-container { max-width: 100% !important; }
  .bd-container, .bd-page-width { max-width: 100% !important; }
  div.cell_output img { max-width: 100% !important; break-inside: avoid; }

  mjx-container[display="true"] { overflow: visible !important; }
  @page { size: A4; margin: 16mm 14mm; }
`;
document.head.appendChild(st);
"""


def pages_in_order(html: Path) -> list[tuple[str, str]]:
    """(title, page) for the PDF: the preface, the chapters by number, then the reference pages."""
    sys.path.insert(0, str(CONF_DIR))
    import importlib.util

    spec = importlib.util.spec_from_file_location("qwem_site_build_pdf", CONF_DIR / "build.py")
    build = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = build
    spec.loader.exec_module(build)
    pages = [("Preface", "index.html")]
    for ch in build.find_chapters(ROOT):
        nb = json.loads(ch.path.read_text(encoding="utf-8"))
        pages.append((build._title(nb, ch.stem), f"notebooks/{ch.stem}.html"))
    pages += [
        ("Reproduction report", "REPRODUCTION.html"),
        ("Notation", "notation.html"),
        ("Execution statistics", "execution.html"),
        ("References", "references.html"),
    ]
    missing = [p for _, p in pages if not (html / p).is_file()]
    if missing:
        raise SystemExit(f"pages missing from {html}: {missing[:5]}; run `make site` first")
    return pages


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002
        pass


def print_pdf(html_dir: Path, target: Path, timeout_s: int = 300) -> int:
    os.environ.setdefault("SE_OFFLINE", "true")
    from pypdf import PdfReader, PdfWriter
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    pages = pages_in_order(html_dir)
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(html_dir))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    profile = tempfile.mkdtemp(prefix="qwem-pdf-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--no-first-run", f"--user-data-dir={profile}",
        "--window-size=1000,1400", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    ):  # fmt: skip
        opts.add_argument(flag)
    driver = webdriver.Chrome(options=opts, service=Service(executable_path=CHROMEDRIVER))
    writer = PdfWriter()
    params = {
        "printBackground": True,
        "preferCSSPageSize": True,
        "displayHeaderFooter": True,
        "headerTemplate": "<span></span>",
        "footerTemplate": '<div style="font-size:8px;width:100%;text-align:center">'
        '<span class="title"></span> · <span class="pageNumber"></span></div>',
    }
    try:
        driver.set_page_load_timeout(timeout_s)
        driver.set_script_timeout(timeout_s)
        for title, rel in pages:
            driver.get(base + rel)
            WebDriverWait(driver, timeout_s).until(
                lambda d: d.execute_script("return document.readyState") == "complete"
            )
            err = driver.execute_async_script("""
                const done = arguments[arguments.length - 1];
                if (!document.querySelector('span.math, div.math')) { done(null); return; }
                const wait = () => (window.MathJax && MathJax.startup && MathJax.startup.promise)
                    ? MathJax.startup.promise.then(() => done(null)).catch(e => done(String(e)))
                    : setTimeout(wait, 200);
                wait();""")
            if err:
                raise SystemExit(f"{rel}: MathJax failed: {err}")
            driver.execute_script(PREPARE)
            WebDriverWait(driver, timeout_s).until(
                lambda d: d.execute_script("return [...document.images].every(i => i.complete)")
            )
            pdf = driver.execute_cdp_cmd("Page.printToPDF", params)
            reader = PdfReader(io.BytesIO(base64.b64decode(pdf["data"])))
            first = len(writer.pages)
            for page in reader.pages:
                writer.add_page(page)
            writer.add_outline_item(title=title, page_number=first)
            print(f"  {rel}: {len(reader.pages)} pages")
    finally:
        driver.quit()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    writer.add_metadata({"/Title": "How neural networks learn features — a textbook you can run"})
    with open(target, "wb") as f:
        writer.write(f)
    return len(writer.pages)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "_site", help="the site's build folder")
    args = ap.parse_args(argv)
    out = args.out.resolve()
    t0 = time.time()
    target = out / "book.pdf"
    n = print_pdf(out / "html", target)
    print(
        f"wrote {target}: {n} pages, {target.stat().st_size / 1e6:.1f} MB, in {time.time() - t0:.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
