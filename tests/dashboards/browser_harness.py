"""What every Chromium test of the dashboards does: how it is marked, how it signs in and
serves a ledger, how it acts on a page as a person does (click, type, choose, follow a link,
go Back), and the checks each user's journey makes at every step (:class:`Journey`).

The browser and the served ledger themselves are fixtures (``conftest.py`` beside this
module); this module holds the plain functions, which test modules import.

Needs Debian's Chromium: ``apt-get install -y --no-install-recommends chromium``.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from _chromium import CHROMIUM, Browser, free_port
from _header_proxy import header_proxy
from dashboard_data import ledger_copy, trust_localhost

from dashboards.server import running_dashboard
from pipeline.stream.settings import KafkaSettings


def browser_tests(group: str | None) -> list[pytest.MarkDecorator]:
    """The marks of a test module that drives Chromium (its ``pytestmark``). ``group``: the
    xdist group of a module whose tests share its browser and served ledger (module-scoped
    fixtures, ``conftest.py``), so that ``--dist loadgroup`` keeps them on one worker; None
    for a module whose tests each serve a ledger of their own, which may run on either
    worker. (One group for every browser test put several minutes of the suite on one
    worker.)"""
    in_group = [] if group is None else [pytest.mark.xdist_group(group)]
    return [
        pytest.mark.slow,
        *in_group,
        pytest.mark.skipif(
            not CHROMIUM.exists(),
            reason=f"{CHROMIUM} not found: apt-get install -y --no-install-recommends chromium",
        ),
    ]


PAGE_TIMEOUT = 90.0
"""Seconds a page may take to run and paint on a machine shared with other test runs."""
SETTLES_WITHIN = 5.0
"""Seconds an action's rerun may take to clear what was selected."""
SERVER_ERRORS = ("Traceback (most recent call last)", "Page not found")
"""Text no page may show: an uncaught exception's traceback, Streamlit's unknown page."""


@contextlib.contextmanager
def signed_in(
    browser: Browser,
    user: str,
    directory: Path,
    feed: KafkaSettings | None = None,
    db: Path | None = None,
) -> Iterator[tuple[str, Path]]:
    """A ledger (``db``, else a private copy of the emulated day in ``directory``) served on a
    free port (following the exceptions topic of ``feed``, if given), the browser signed in
    as ``user`` by the proxy's header from localhost, which this test's installation is set
    to trust: the base URL and the ledger."""
    ledger = db if db is not None else ledger_copy(directory, tables=3, hours=2.0)
    trust_localhost()  # the server reads this test's installation
    with (
        (directory / "streamlit.log").open("w") as log,
        running_dashboard(ledger, free_port(), log=log, feed=feed) as served,
        header_proxy(served) as (base, proxy),
    ):
        proxy.headers["X-Forwarded-User"] = user
        yield base, ledger


def open_page(browser: Browser, url: str, *needles: str) -> str:
    browser.navigate(url)
    text: str = browser.wait_for(*needles, timeout=PAGE_TIMEOUT)
    return text


def type_into(browser: Browser, label: str, value: str, within: str = "body") -> None:
    """Type ``value`` into the text box labelled ``label`` (the first inside the element
    matching ``within``), as React hears a person type."""
    done = browser.evaluate(
        f"""(() => {{
        const scope = document.querySelector({json.dumps(within)});
        const box = scope && scope.querySelector('textarea[aria-label={json.dumps(label)}], '
            + 'input[aria-label={json.dumps(label)}]');
        if (!box) {{ return false; }}
        const proto = box.tagName === 'TEXTAREA' ? HTMLTextAreaElement : HTMLInputElement;
        const setter = Object.getOwnPropertyDescriptor(proto.prototype, 'value').set;
        setter.call(box, {json.dumps(value)});
        box.dispatchEvent(new Event('input', {{bubbles: true}}));
        box.dispatchEvent(new Event('change', {{bubbles: true}}));
        return true; }})()"""
    )
    assert done, f"no text box labelled {label!r}"


def click(browser: Browser, selector: str, text: str) -> None:
    """Click the element matching ``selector`` whose visible text is ``text``."""
    done = browser.evaluate(
        f"""(() => {{
        const e = [...document.querySelectorAll({json.dumps(selector)})]
            .find(x => x.innerText.trim() === {json.dumps(text)});
        if (e) {{ e.click(); }} return !!e; }})()"""
    )
    assert done, f"nothing to click: {selector} {text!r}"


def centre_of(browser: Browser, finder: str) -> dict[str, float] | None:
    """The viewport centre of the element the JavaScript expression ``finder`` yields,
    scrolled into view first; None while there is none."""
    point: dict[str, float] | None = browser.evaluate(
        f"""(() => {{ const e = {finder}; if (!e) {{ return null; }}
        e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect();
        return {{x: r.left + r.width / 2, y: r.top + r.height / 2}}; }})()"""
    )
    return point


def choose(browser: Browser, label: str, needle: str) -> None:
    """Choose the option containing ``needle`` in the select box or multiselect whose label
    starts with ``label``, as a person does: click the box, type, click the option; then wait
    until the box holds it (a choice reruns the page's script, and a second one typed while
    that rerun redraws the box is lost)."""
    box = f"document.querySelector('input[aria-label^={json.dumps(label)}]')"
    point = centre_of(browser, box)
    assert point is not None, f"no select box labelled {label!r}"
    browser.press(**point)
    browser.call("Input.insertText", text=needle)
    option = (
        "[...document.querySelectorAll('[role=option]')]"
        f".find(o => o.innerText.includes({json.dumps(needle)}))"
    )
    deadline = time.monotonic() + PAGE_TIMEOUT
    while (point := centre_of(browser, option)) is None:
        assert time.monotonic() < deadline, f"{label!r} never offered {needle!r}"
        time.sleep(0.1)
    browser.press(**point)
    held = (
        f"(() => {{ const b = {box}; const w = b && b.closest("
        "'[data-testid=stMultiSelect], [data-testid=stSelectbox]');"
        " return !!w && [w.innerText, ...[...w.querySelectorAll('input')].map(i => i.value)]"
        f".join(' ').includes({json.dumps(needle)}); }})()"
    )
    while not browser.evaluate(held):
        assert time.monotonic() < deadline, f"{label!r} never held {needle!r}"
        time.sleep(0.1)
    browser.wait_for()


def shown_in(browser: Browser, testid: str, label: str) -> str:
    """What the widget (``stSelectbox``, ``stMultiSelect``) labelled ``label`` shows: its
    text and the value of its input box; ``''`` only if the page's time is up before the
    widget is drawn (a page's heading can be drawn before its widgets on a loaded machine)."""
    deadline = time.monotonic() + PAGE_TIMEOUT
    while True:
        found: str | None = browser.evaluate(
            f"(() => {{ const c = [...document.querySelectorAll('[data-testid={testid}]')]"
            f".find(e => e.innerText.startsWith({json.dumps(label)})); if (!c) {{ return null; }}"
            " return [c.innerText, ...[...c.querySelectorAll('input')].map(i => i.value)]"
            ".join(' '); })()"
        )
        if found is not None:
            return found
        if time.monotonic() > deadline:
            return ""
        time.sleep(0.2)


def shown_in_when_drawn(browser: Browser, testid: str, label: str, expected: str) -> str:
    """:func:`shown_in`, once it shows ``expected`` or the page's time is up: a page's
    heading can be drawn before its sidebar's widgets on a loaded machine."""
    deadline = time.monotonic() + PAGE_TIMEOUT
    while expected not in (found := shown_in(browser, testid, label)):
        if time.monotonic() > deadline:
            break
        time.sleep(0.2)
    return found


def url_params(browser: Browser) -> dict[str, list[str]]:
    found: dict[str, list[str]] = browser.evaluate(
        "(() => { const p = new URLSearchParams(location.search); const o = {};"
        " for (const [k, v] of p) { (o[k] = o[k] || []).push(v); } return o; })()"
    )
    return found


def page_links(browser: Browser) -> list[dict[str, Any]]:
    """The page's links to other pages: label, path and query parameters."""
    found: list[dict[str, Any]] = browser.evaluate(
        "[...document.querySelectorAll('[data-testid=stPageLink-NavLink]')].map(a => {"
        " const u = new URL(a.href); const o = {};"
        " for (const [k, v] of u.searchParams) { (o[k] = o[k] || []).push(v); }"
        " return {label: a.innerText.trim(), path: u.pathname, params: o}; })"
    )
    return found


def follow(browser: Browser, label: str, *needles: str) -> str:
    """Click the page link labelled ``label``, as a person does, and wait for its page."""
    finder = (
        "[...document.querySelectorAll('[data-testid=stPageLink-NavLink]')]"
        f".find(a => a.innerText.trim() === {json.dumps(label)})"
    )
    point = centre_of(browser, finder)
    assert point is not None, f"no link {label!r}"
    browser.press(**point)
    text: str = browser.wait_for(*needles, timeout=PAGE_TIMEOUT)
    return text


def through_history(browser: Browser, steps: int, *needles: str) -> str:
    """The browser's Back (``steps`` -1) or Forward (1) button, and the page it comes to."""
    browser.evaluate(f"history.go({steps})")
    time.sleep(0.5)
    text: str = browser.wait_for(*needles, timeout=PAGE_TIMEOUT)
    return text


def downloaded(browser: Browser, button: str, directory: Path, name: str) -> Path:
    """Click the download button ``button`` and wait for its file ``name`` in ``directory``."""
    browser.call("Page.setDownloadBehavior", behavior="allow", downloadPath=str(directory))
    click(browser, "[data-testid=stDownloadButton] button", button)
    path = directory / name
    deadline = time.monotonic() + 30
    while not path.exists():
        assert time.monotonic() < deadline, f"{button!r} downloaded no {name}"
        time.sleep(0.2)
    return path


def grid_rows(browser: Browser, *columns: str, timeout: float = 15) -> list[dict[str, str]]:
    """The rows of the one dataframe on the page headed by exactly these ``columns``, read
    from the table Streamlit's grid keeps in the page for screen readers (the grid itself
    is drawn on a canvas). The grid fills that table once drawn, and draws only the rows in
    view: each grid is scrolled into view, as a reader scrolls down to it."""
    deadline = time.monotonic() + timeout
    while True:
        tables = browser.evaluate(
            "[...document.querySelectorAll('[data-testid=stDataFrame]')].map(g => {"
            " g.scrollIntoView({block: 'center'});"
            " return [...g.querySelectorAll('table tr')]"
            ".map(r => [...r.children].map(c => c.innerText.trim())); })"
        )
        found = [body for header, *body in filter(None, tables) if header == list(columns)]
        if len(found) == 1 or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert len(found) == 1, f"{len(found)} tables headed {columns} on the page"
    return [dict(zip(columns, row, strict=True)) for row in found[0]]


def ticked_rows(browser: Browser, within: str = "body") -> int:
    """How many rows the grids inside ``within`` show ticked (their tables for screen
    readers say so)."""
    return int(
        browser.evaluate(
            f"[...document.querySelectorAll({json.dumps(within + ' tr[aria-selected=true]')})]"
            ".length"
        )
    )


def server_errors(browser: Browser) -> list[str]:
    """What on the page is the server's failure, not the page's content: an exception
    element (Streamlit draws one for an uncaught exception), a traceback, an unknown page."""
    text = browser.text()
    found = [e for e in SERVER_ERRORS if e in text]
    shown = browser.evaluate(
        "[...document.querySelectorAll('[data-testid=stException]')].map(e => e.innerText)"
    )
    return found + [str(e)[:500] for e in shown or ()]


@dataclass
class Journey:
    """One user's way through the pages, with the checks every journey makes: no page it
    opens shows a traceback (:func:`server_errors`), nothing stays selected after an action
    (a selection that survives one slides onto other rows), and every link on the pages it
    visited opens a page that is not an error (:meth:`links_answer`, at its end)."""

    browser: Browser
    base: str
    links: dict[str, str] = field(default_factory=dict)
    """Each link met (without its fragment) and the page it was met on."""

    def open(self, path: str, *needles: str) -> str:
        """Open ``path`` (under the server's base URL) and wait until it shows ``needles``."""
        open_page(self.browser, f"{self.base}{path}", *needles)
        return self.arrived()

    def arrived(self, *needles: str) -> str:
        """The page now shown (once it shows ``needles``): checked, its links noted."""
        text: str = self.browser.wait_for(*needles, timeout=PAGE_TIMEOUT)
        where = str(self.browser.evaluate("location.href"))
        errors = server_errors(self.browser)
        assert not errors, f"{where} shows an error: {errors}"
        hrefs = self.browser.evaluate(
            "[...document.querySelectorAll('a[href]')].map(a => a.href)"
            ".filter(h => new URL(h).origin === location.origin)"
        )
        for href in hrefs or ():
            self.links.setdefault(str(href).split("#", 1)[0], where)
        return text

    def acted(self, *needles: str) -> str:
        """After an action: the page once it shows ``needles`` with nothing left selected
        (within :data:`SETTLES_WITHIN`): no grid row ticked, no bulk form offered."""
        deadline = time.monotonic() + SETTLES_WITHIN
        while ticked_rows(self.browser) and time.monotonic() < deadline:
            time.sleep(0.2)
        text = self.arrived(*needles)
        assert ticked_rows(self.browser) == 0, "rows are still ticked after the action"
        assert "Record for all" not in text, "the bulk form still holds the rows acted on"
        return text

    def links_answer(self) -> None:
        """The links met open, in this browser, a page with a heading and no error; a link
        to a page the app does not have is Streamlit's "Page not found". Of the links to one
        page with the same parameters (a patron's, a table's...), the first and the last
        are followed: two ids of each kind, each link a full page load (the id corpus's
        links are checked without a browser, tests/hostile)."""
        kinds: dict[tuple[str, tuple[str, ...]], list[str]] = {}
        for link in sorted(self.links):
            where = urlsplit(link)
            params = tuple(sorted(k for k, _ in parse_qsl(where.query)))
            kinds.setdefault((where.path, params), []).append(link)
        followed = sorted({link for same in kinds.values() for link in (same[0], same[-1])})
        dead = []
        for link, met_on in ((link, self.links[link]) for link in followed):
            self.browser.navigate(link)
            deadline = time.monotonic() + PAGE_TIMEOUT
            while not self.browser.heading() and time.monotonic() < deadline:
                time.sleep(0.1)
            heading = self.browser.heading()
            if heading:
                self.browser.wait_for(heading, timeout=PAGE_TIMEOUT)
            errors = server_errors(self.browser)
            landed = urlsplit(str(self.browser.evaluate("location.href"))).path
            if not heading or errors or landed != urlsplit(link).path:
                dead.append(f"{link} (on {met_on}): heading {heading!r}, at {landed}, {errors}")
        assert not dead, "dead links:\n" + "\n".join(dead)
