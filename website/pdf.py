"""The whole book as one PDF: ``make pdf`` (after ``make site``'s staging), offline.

    python website/pdf.py                 # _site/book.pdf
    python website/pdf.py --out DIR

Route: Sphinx's ``singlehtml`` builder renders the staged sources (``_site/src``, the same pages as the
site) into one HTML page; Debian's headless Chromium opens it from a local server, waits until MathJax has
typeset every formula, opens every solution and folded cell (the PDF is the instructor edition), and prints
it through the DevTools protocol with a document outline (one bookmark per heading). TeX is not needed:
Debian's texlive would be another ~1 GB and would re-typeset the notebooks' HTML outputs badly. CI does
not build the PDF (it takes several minutes); ``website/test_pdf.py`` checks one that was built.
"""

from __future__ import annotations

import argparse
import base64
import functools
import http.server
import os
import shutil
import subprocess
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
  h1 { break-before: page; }
  mjx-container[display="true"] { overflow: visible !important; }
  @page { size: A4; margin: 16mm 14mm; }
`;
document.head.appendChild(st);
"""


def build_singlehtml(out: Path) -> Path:
    src = out / "src"
    if not (src / "index.md").is_file():
        raise SystemExit(f"no staged sources in {src}: run `make site` first")
    html = out / "singlehtml"
    cmd = [
        sys.executable, "-m", "sphinx", "-q", "-b", "singlehtml", "-c", str(CONF_DIR),
        "-d", str(out / "doctrees-single"), str(src), str(html),
    ]  # fmt: skip
    rc = subprocess.call(cmd, cwd=ROOT)
    if rc:
        raise SystemExit(f"sphinx singlehtml failed ({rc})")
    return html


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002
        pass


def print_pdf(html_dir: Path, target: Path, timeout_s: int = 900) -> None:
    os.environ.setdefault("SE_OFFLINE", "true")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(html_dir))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
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
    try:
        driver.set_page_load_timeout(timeout_s)
        driver.set_script_timeout(timeout_s)
        driver.get(f"http://127.0.0.1:{server.server_address[1]}/index.html")
        WebDriverWait(driver, timeout_s).until(
            lambda d: d.execute_script("return document.readyState") == "complete"
        )
        t0 = time.time()
        err = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const wait = () => (window.MathJax && MathJax.startup && MathJax.startup.promise)
                ? MathJax.startup.promise.then(() => done(null)).catch(e => done(String(e)))
                : setTimeout(wait, 200);
            wait();""")
        if err:
            raise SystemExit(f"MathJax failed: {err}")
        driver.execute_script(PREPARE)
        WebDriverWait(driver, timeout_s).until(
            lambda d: d.execute_script("return [...document.images].every(i => i.complete)")
        )
        print(f"typeset in {time.time() - t0:.0f} s; printing")
        params = {
            "printBackground": True,
            "preferCSSPageSize": True,
            "generateDocumentOutline": True,
            "displayHeaderFooter": True,
            "headerTemplate": "<span></span>",
            "footerTemplate": '<div style="font-size:8px;width:100%;text-align:center">'
            '<span class="pageNumber"></span> / <span class="totalPages"></span></div>',
        }
        try:
            pdf = driver.execute_cdp_cmd("Page.printToPDF", params)
        except Exception:  # an older Chromium without the outline option
            params.pop("generateDocumentOutline")
            pdf = driver.execute_cdp_cmd("Page.printToPDF", params)
        target.write_bytes(base64.b64decode(pdf["data"]))
    finally:
        driver.quit()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "_site", help="the site's build folder")
    args = ap.parse_args(argv)
    out = args.out.resolve()
    t0 = time.time()
    html = build_singlehtml(out)
    target = out / "book.pdf"
    print_pdf(html, target)
    print(f"wrote {target} ({target.stat().st_size / 1e6:.1f} MB) in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
