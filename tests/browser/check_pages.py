"""The results site in a real headless Chromium (Playwright for Python, the system's browser).

Run by the test `results_site_pages_render_in_chromium` against a `serve --demo` with a
verified listing and a community run:

    python check_pages.py FACTS_JSON

FACTS_JSON names the base URL, the ids, and the browser. Every page must load with status
200, no console error, no failed request; every link on it to this site must resolve; the
report page's decode matrix and prefill table must match the report's JSON cell for cell (as
must the community run's); the community run must show on its model and hardware pages and
on the community leaderboard, marked community, and never on the verified one; the language
follows Accept-Language and ?lang=; a hostile launch command is shown as text. Prints one line
per check; exits 1 with the reasons on any failure.
"""

import base64
import json
import sys
import time
from datetime import datetime
from urllib.parse import quote, urljoin, urlparse

from playwright.sync_api import sync_playwright

FACTS = json.loads(open(sys.argv[1]).read())
BASE = FACTS["base"].rstrip("/")
WORDS = {
    "en": {
        "requests_queued": "Requests queued",
        "over_capacity": "Over capacity",
        "invalid": "Invalid",
        "client_bound": "Client bound",
        "valid": "Valid",
    },
    "zh-Hant": {
        "requests_queued": "請求排隊",
        "over_capacity": "超出容量",
        "invalid": "無效",
        "client_bound": "受用戶端限制",
        "valid": "有效",
    },
}
FAILURES = []
# The reference page's navigation, in its order (the capacity planner after the calculator).
NAV = [
    "getting-started", "leaderboard", "calculator", "planner", "models", "orgs", "reports",
    "runs", "hardware", "benchmarks", "marketplace", "rent", "pro", "api",
]


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILURES.append(what)


def figure(value, decimals):
    """As the pages print numbers: grouped thousands, fixed decimals."""
    return f"{value:,.{decimals}f}"


def norm(t):
    """A time as the same instant, however it is written."""
    return datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()


def has_figures(status):
    return status not in ("over_capacity", "invalid")


class Site:
    def __init__(self, browser, headers=None):
        self.context = browser.new_context(extra_http_headers=headers or {})
        self.page = self.context.new_page()
        self.problems = []
        self.page.on(
            "console",
            lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"),
        )
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        # A request the browser itself cut short (`net::ERR_ABORTED`: the next navigation
        # began while the icon was loading) is no fault of the page; a missing asset answers
        # 4xx (below), an unreachable one fails otherwise.
        self.page.on(
            "requestfailed",
            lambda r: "net::ERR_ABORTED" not in (r.failure or "")
            and self.problems.append(f"request failed: {r.url} {r.failure}"),
        )
        self.page.on(
            "response",
            lambda r: r.status >= 400
            and r.request.resource_type != "document"
            and self.problems.append(f"{r.status} for {r.url}"),
        )
        self.checked_links = {}

    def open(self, path, status=200):
        self.problems.clear()
        response = self.page.goto(BASE + path)
        check(
            response is not None and response.status == status,
            f"{path}: status {response.status if response else None}",
        )
        headers = response.headers
        check(headers.get("content-type", "").startswith("text/html"), f"{path}: HTML")
        check(
            "script-src" not in headers.get("content-security-policy", "x")
            and "default-src 'none'" in headers.get("content-security-policy", "")
            and headers.get("x-content-type-options") == "nosniff",
            f"{path}: no scripts allowed, no sniffing",
        )
        html = self.page.content()
        leaked = [e for e in FACTS["engines"] if e in html]
        check(not leaked, f"{path}: names no engine address {leaked}")
        check(self.page.title().strip() != "", f"{path}: has a title")
        nav = self.page.eval_on_selector_all("nav a[data-nav]", "els => els.map(e => e.dataset.nav)")
        check(nav == NAV, f"{path}: the navigation in the reference order {nav}")
        self.page.wait_for_load_state("load")
        if status != 200:
            # Chromium reports the document's own error status on the console.
            self.problems[:] = [p for p in self.problems if "Failed to load resource" not in p]
        check(not self.problems, f"{path}: no console errors or failed requests {self.problems}")
        self.links_resolve(path, skip_own=status != 200)
        return response

    def links_resolve(self, path, skip_own=False):
        """Every link to this site answers below 400 (an error page's links to itself in the
        other language answer as it does)."""
        hrefs = self.page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
        bad = []
        for href in hrefs:
            url = urljoin(BASE + path, href).split("#")[0]
            if urlparse(url).netloc != urlparse(BASE).netloc:
                continue  # datasheets and model cards: not ours to check here
            if skip_own and urlparse(url).path == urlparse(BASE + path).path:
                continue
            if url not in self.checked_links:
                self.checked_links[url] = self.context.request.get(url).status
            if self.checked_links[url] >= 400:
                bad.append((url, self.checked_links[url]))
        check(not bad, f"{path}: every link to this site resolves {bad}")

    def json(self, path):
        response = self.context.request.get(BASE + path)
        check(response.status == 200, f"{path}: JSON status {response.status}")
        return response.json()


def predicate(report):
    payload = base64.b64decode(report["envelope"]["payload"])
    return json.loads(payload)["predicate"]


def matrix_matches(site, path, report, lang="en"):
    """The page's decode matrix and prefill table against the report, cell for cell."""
    page = site.page
    decode = report["decode"]
    check(
        page.locator("#matrix td[data-status]").count() == len(decode),
        f"{path}: {len(decode)} matrix cells",
    )
    mismatches = []
    for cell in decode:
        selector = (
            f'#matrix td[data-context="{cell["context_tokens"]}"]'
            f'[data-concurrency="{cell["concurrency"]}"]'
        )
        td = page.locator(selector)
        where = f'{cell["context_tokens"]} x {cell["concurrency"]}'
        if td.count() != 1:
            mismatches.append(f"{where}: {td.count()} cells")
            continue
        status = cell["status"]
        if td.get_attribute("data-status") != status:
            mismatches.append(f"{where}: status {td.get_attribute('data-status')} != {status}")
        if status != "valid":
            shown = td.locator(".status").inner_text() if td.locator(".status").count() else ""
            if shown != WORDS[lang][status]:
                mismatches.append(f"{where}: words {shown!r}")
        total = td.locator(".total")
        if has_figures(status) and cell.get("total_tok_s") is not None:
            want = figure(cell["total_tok_s"], 1)
            got = total.inner_text() if total.count() else None
            if got != want:
                mismatches.append(f"{where}: total {got!r} != {want!r}")
            if cell.get("ttft_ms_median") is not None:
                want = f'{figure(cell["ttft_ms_median"], 0)} ms TTFT'
                got = td.locator(".ttft").inner_text() if td.locator(".ttft").count() else None
                if got != want:
                    mismatches.append(f"{where}: TTFT {got!r} != {want!r}")
        elif total.count():
            mismatches.append(f"{where}: a figure on a cell that has none")
    for entry in report["prefill"]:
        row = page.locator(f'#prefill tr[data-context="{entry["context_tokens"]}"]')
        where = f'prefill {entry["context_tokens"]}'
        if row.count() != 1 or row.get_attribute("data-status") != entry["status"]:
            mismatches.append(f"{where}: missing or wrong status")
            continue
        if entry["status"] == "valid":
            text = row.inner_text()
            for want in (
                figure(entry["prompt_tok_s"], 1),
                f'{figure(entry["ttft_ms"], 0)} ms TTFT',
            ):
                if want not in text:
                    mismatches.append(f"{where}: {want!r} not in {text!r}")
    check(not mismatches, f"{path}: matrix and prefill match the JSON {mismatches[:5]}")
    statuses = page.eval_on_selector_all(
        "#measurements tbody tr", "rows => rows.map(r => r.dataset.status)"
    )
    want = [e["status"] for e in report["prefill"]] + [c["status"] for c in decode]
    check(statuses == want, f"{path}: every measurement in the table, in order")


def hrefs(page, selector):
    return page.eval_on_selector_all(selector, "els => els.map(e => e.getAttribute('href'))")


def main():
    report_id, run_id = FACTS["report_id"], FACTS["run_id"]
    gpu, model, listing_id = FACTS["gpu"], FACTS["model"], FACTS["listing_id"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=FACTS["chromium"], args=["--no-sandbox"])
        site = Site(browser, {"Accept-Language": "en-GB,en;q=0.9"})
        page = site.page

        # The leaderboard: verified by default, community behind the switch, never mixed.
        site.open("/")
        board = hrefs(page, "#leaderboard a")
        check(f"/reports/{report_id}" in board, "/: the demo report leads the verified board")
        check(not any("/runs/" in h for h in board), "/: no community run on the verified board")
        site.open("/?source=community")
        board = hrefs(page, "#leaderboard a")
        check(f"/runs/{run_id}" in board, "/?source=community: the run is on the board")
        check(not any("/reports/" in h for h in board), "/?source=community: no verified report")

        # The report page against its JSON.
        path = f"/reports/{report_id}"
        site.open(path)
        report = site.json(f"/v1/reports/{report_id}")
        measured = predicate(report)
        matrix_matches(site, path, measured)
        check(
            page.locator("#key-id").inner_text() == report["key_id"],
            f"{path}: the signing key's id",
        )
        check(
            page.locator("#leaf-index").inner_text() == str(report["log"]["leaf_index"]),
            f"{path}: the log's leaf index",
        )
        size = page.locator("#tree-size").inner_text()
        proof = site.json(f"/v1/reports/{report_id}/proof?tree_size={size}")
        shown = page.eval_on_selector_all("ol.hashes code", "els => els.map(e => e.textContent)")
        check(
            shown == proof["inclusion_proof"]
            and page.locator("pre.note").text_content() == proof["checkpoint"],
            f"{path}: the inclusion proof and signed checkpoint of its JSON (tree size {size})",
        )
        check(f'{figure(measured["engine"]["max_model_len"], 0)} tokens' in page.inner_text("main"),
              f"{path}: the engine block")
        check(page.locator('link[rel="alternate"]').get_attribute("href") == f"/v1/reports/{report_id}",
              f"{path}: links its JSON")

        # The community run: marked, matching its JSON, its hostile notes shown as text.
        path = f"/runs/{run_id}"
        site.open(path)
        run = site.json(f"/v1/runs/{run_id}")
        check(page.locator(".badge.community").count() >= 1, f"{path}: marked community")
        check(page.locator(".badge.verified").count() == 0, f"{path}: never marked verified")
        matrix_matches(site, path, run["report"])
        check(
            page.locator("#launch-command").inner_text() == run["launch_command"],
            f"{path}: the launch command, as text",
        )
        check(
            page.locator("#hardware-notes").inner_text() == run["hardware_notes"],
            f"{path}: the hardware notes, as text",
        )
        check(
            page.locator("main img, main script, main b").count() == 0,
            f"{path}: no element it sent",
        )

        # Model and hardware pages: the verified listing's cells and the community run's.
        for path in (f"/models/{model}", f"/hardware/{gpu}"):
            site.open(path)
            verified = hrefs(page, '#results tr[data-source="verified"] a.badge')
            community = hrefs(page, '#results tr[data-source="community"] a.badge')
            check(f"/reports/{report_id}" in verified, f"{path}: the verified report's cells")
            check(f"/runs/{run_id}" in community, f"{path}: the community run, marked community")
            check(all("/runs/" in h for h in community) and all("/reports/" in h for h in verified),
                  f"{path}: sources never mixed")

        # The listing: its badge and a book button to the API.
        path = f"/listings/{listing_id}"
        site.open(path)
        check(page.locator("#badge").get_attribute("data-state") == "verified", f"{path}: badge")
        check(page.locator("#book").get_attribute("href").startswith("/docs/"), f"{path}: book")

        # The rent strip: the free GPUs ahead as the availability API has them, and the
        # commands that book this listing.
        for selector in ("#rent-cli", "#rent-curl"):
            check(listing_id in page.inner_text(selector), f"{path}: {selector} books this listing")
        spans = page.eval_on_selector_all(
            "#availability rect.span",
            "rs => rs.map(r => [r.dataset.from, r.dataset.to, Number(r.dataset.free)])",
        )
        check(bool(spans), f"{path}: the availability strip {spans[:3]}")
        got = []
        if spans:
            free = site.json(
                f"/v1/listings/{listing_id}/availability?from={quote(spans[0][0])}&to={quote(spans[-1][1])}"
            )
            got = [[s["from"], s["to"], s["free_gpus"]] for s in free["segments"]]
            same = len(got) == len(spans) and all(
                norm(a[0]) == norm(b[0]) and norm(a[1]) == norm(b[1]) and a[2] == b[2]
                for a, b in zip(spans, got)
            )
            check(same, f"{path}: the strip is the availability API's {spans[:2]} {got[:2]}")
        start = page.get_attribute("#first-free", "data-start")
        check(start is not None and start in page.inner_text("#rent-cli"), f"{path}: the first free hour booked")
        if start and spans:
            hour = norm(start)
            free = lambda a, b: all(s[2] >= 1 for s in got if norm(s[0]) < b and norm(s[1]) > a)
            earlier = range(int(time.time() // 3600 + 1) * 3600, int(hour), 3600)
            check(hour >= time.time() - 60 and free(hour, hour + 3600)
                  and not any(free(h, h + 3600) for h in earlier),
                  f"{path}: {start} is the first whole hour with a GPU free")

        # The index pages: every row links to its page, and each lists what its API lists.
        site.open("/models")
        check(f"/models/{model}" in hrefs(page, "#list a"), "/models: the catalog's models linked")
        site.open("/hardware")
        check(f"/hardware/{gpu}" in hrefs(page, "#list a"), "/hardware: the catalog's GPUs linked")
        for path, api in (
            (f"/reports?model={model}&gpu={gpu}", f"/v1/reports?model={model}&gpu={gpu}"),
            ("/reports?kind=verification", "/v1/reports?kind=verification"),
            ("/reports?limit=1", "/v1/reports?limit=1"),
            (f"/runs?gpu={gpu}&model={model}", f"/v1/runs?gpu={gpu}&model={model}"),
            ("/orgs", "/v1/organizations"),
            (f"/marketplace?gpu_model={quote(FACTS['gpu_model'])}&sort=price",
             f"/v1/listings?gpu_model={quote(FACTS['gpu_model'])}&sort=price"),
            ("/marketplace?sort=tok_s", "/v1/listings?sort=tok_s"),
        ):
            site.open(path)
            shown = page.eval_on_selector_all("#list tbody tr", "rows => rows.map(r => r.dataset.id)")
            listed = [item["id"] for item in site.json(api)["items"]]
            check(shown == listed and listed, f"{path}: lists what {api} lists {shown} {listed}")
        # Its next page is the API's next page.
        site.open("/reports?limit=1")
        first = site.json("/v1/reports?limit=1")
        page.click("#next")
        page.wait_for_load_state("load")
        shown = page.eval_on_selector_all("#list tbody tr", "rows => rows.map(r => r.dataset.id)")
        second = site.json(f"/v1/reports?limit=1&cursor={first['next_cursor']}")
        check(shown == [i["id"] for i in second["items"]] and shown != [first["items"][0]["id"]],
              f"/reports?limit=1: its next page is the API's {shown}")
        site.open("/reports?kind=nonsense", status=422)
        check("kind" in page.inner_text(".problems"), "/reports?kind=nonsense: names the field")
        site.open("/marketplace?min_vram_gb=lots", status=400)
        check("min_vram_gb" in page.inner_text(".problems"), "/marketplace: names the bad field")
        # The marketplace as a person uses it: the form, sorted by measured speed.
        site.open("/marketplace")
        page.select_option('#filters select[name="sort"]', "tok_s")
        page.click('#filters button[type="submit"]')
        page.wait_for_load_state("load")
        shown = page.eval_on_selector_all("#list tbody tr", "rows => rows.map(r => r.dataset.id)")
        check(shown == [i["id"] for i in site.json("/v1/listings?sort=tok_s")["items"]],
              "/marketplace: the form's search is the API's")
        # The market's history: the table and the chart are the history API's, bucket for
        # bucket (the test wrote three closed days of it).
        site.open("/market/history")
        history = site.json("/v1/market/history")["items"]
        rows = page.eval_on_selector_all(
            "#history tbody tr",
            "rows => rows.map(r => [r.dataset.start, Object.fromEntries([...r.querySelectorAll('td[data-field]')]"
            ".map(c => [c.dataset.field, JSON.parse(c.dataset.value)]))])",
        )
        want = [
            [i["start"], {
                "listings": i["listings"], "gpus_listed": i["gpus_listed"],
                "gpu_hours_booked": i["gpu_hours_booked"],
                "p10": i["price_per_gpu_hour"]["p10"], "median": i["price_per_gpu_hour"]["median"],
                "p90": i["price_per_gpu_hour"]["p90"],
                "clearing_bid_per_gpu_hour": i["clearing_bid_per_gpu_hour"],
                "price_per_mtok_median": i["price_per_mtok_median"],
            }]
            for i in history
        ]
        check(len(history) >= 3 and len(rows) == len(want)
              and all(norm(a[0]) == norm(b[0]) and a[1] == b[1] for a, b in zip(rows, want)),
              f"/market/history: the table is the API's {rows[:1]} {want[:1]}")
        points = page.eval_on_selector_all(
            "#history-chart circle.point",
            "cs => cs.map(c => [c.dataset.start, Number(c.dataset.p10), Number(c.dataset.median), Number(c.dataset.p90)])",
        )
        check(len(points) == len(history) and all(
            norm(p[0]) == norm(i["start"]) and p[1:] == [i["price_per_gpu_hour"][k] for k in ("p10", "median", "p90")]
            for p, i in zip(points, history)), f"/market/history: the chart's points are the API's {points[:1]}")
        bids = page.eval_on_selector_all(
            "#history-chart rect.clearing", "rs => rs.map(r => Number(r.dataset.clearingBid))")
        check(bids == [i["clearing_bid_per_gpu_hour"] for i in history if i["clearing_bid_per_gpu_hour"] is not None]
              and bids, f"/market/history: the chart's clearing bids are the API's {bids}")
        # The organisation's signed report: its listings, its signature, nothing private.
        path = f"/orgs/{FACTS['org_id']}"
        site.open(path)
        org = site.json(f"/v1/orgs/{FACTS['org_id']}/report")
        fleet = page.eval_on_selector_all("#fleet tbody tr", "rows => rows.map(r => r.dataset.id)")
        check(fleet == [l["listing_id"] for l in org["report"]["listings"]], f"{path}: the report's listings")
        check(listing_id in fleet, f"{path}: the demo listing")
        check(page.locator("#key-id").inner_text() == org["envelope"]["signatures"][0]["keyid"],
              f"{path}: the signing key")
        check(page.locator("#leaf-index").inner_text() == str(org["log"]["leaf_index"]), f"{path}: the leaf")
        # Nothing of the organisation's private report, there or in the list of reports.
        private = FACTS["private_report_id"]
        check(private not in page.content(), f"{path}: no private report")
        site.open("/reports")
        check(private not in page.content() and report_id in page.content(), "/reports: no private report")
        site.open(f"/reports/{private}", status=404)
        # The plans: the limits the billing API reports for a free and for a Pro organisation.
        site.open("/pro")
        for plan in ("free", "pro"):
            cells = page.eval_on_selector_all(
                f'#plans td[data-plan="{plan}"][data-field]',
                "cs => Object.fromEntries(cs.map(c => [c.dataset.field, JSON.parse(c.dataset.value)]))",
            )
            billing = FACTS[f"billing_{plan}"]
            check(billing["plan"] == plan and cells == billing["limits"],
                  f"/pro: the {plan} plan's limits are its organisation's {cells} {billing['limits']}")
        # The book's chapters in the site's frame.
        for path, words in (
            ("/getting-started", "serve --demo"),
            ("/benchmarks", "decode cell"),
            ("/rent", "POST /v1/bookings"),
        ):
            site.open(path)
            check(words in page.inner_text("#chapter"), f"{path}: the book's text")
            check(page.locator("#untranslated").count() == 0, f"{path}: no notice in English")

        # The calculator as a person uses it: the form, then the JSON it renders.
        site.open("/calculator")
        page.select_option('select[name="gpu"]', gpu)
        page.select_option('select[name="model"]', model)
        page.fill('input[name="context"]', "0")
        page.fill('input[name="concurrency"]', "1")
        page.click('#calculator button[type="submit"]')
        page.wait_for_load_state("load")
        query = f"gpu={gpu}&model={model}&context=0&concurrency=1"
        estimate = site.json(f"/v1/calculator/decode?{query}")
        check(
            page.locator("#per-stream").inner_text()
            == figure(estimate["predicted"]["per_stream_tok_s"], 1)
            and page.locator("#total").inner_text() == figure(estimate["predicted"]["total_tok_s"], 1),
            "/calculator: the prediction of its JSON",
        )
        check(f"/reports/{report_id}" in hrefs(page, '#results tr[data-source="verified"] a.badge'),
              "/calculator: the measured cell beside it")
        site.open(f"/calculator?{query}")
        site.open(f"/calculator?gpu=no-such-gpu&model={model}", status=422)
        check("gpu" in page.inner_text(".problems"), "/calculator: names the unknown field")
        # The capacity planner as a person uses it: the form, then its JSON row for row; the
        # demo's pair measured, the other GPUs predicted.
        site.open("/planner")
        page.select_option('select[name="model"]', model)
        page.fill('input[name="context"]', "1024")
        page.fill('input[name="users"]', "8")
        page.fill('input[name="ttft_p99_ms"]', "3000")
        page.fill('input[name="itl_p99_ms"]', "100")
        page.click('#planner button[type="submit"]')
        page.wait_for_load_state("load")
        planned = f"model={model}&context=1024&users=8&ttft_p99_ms=3000&itl_p99_ms=100"
        plan = site.json(f"/v1/planner?{planned}")
        shown = page.eval_on_selector_all(
            "#plan tbody tr",
            "rows => rows.map(r => [r.dataset.gpu, r.dataset.source, r.querySelector('.users').innerText])",
        )
        expected = [[r["gpu"]["id"], r["source"], f"{r['users']:,}"] for r in plan["items"]]
        check(shown == expected, "/planner: every row of its JSON")
        check([gpu, "measured"] in [row[:2] for row in shown], "/planner: the demo's pair measured")
        check(sum(row[1] == "predicted" for row in shown) >= 40, "/planner: the other GPUs predicted")
        site.open("/planner?model=no-such-model&context=1&users=1&ttft_p99_ms=1&itl_p99_ms=1", status=422)
        check("model" in page.inner_text(".problems"), "/planner: names the unknown field")
        # The demo machine's two reports side by side: per context, one path per report
        # through the points of the JSON's frontier, and the stutter limit's line.
        pair = f"{report_id},{FACTS['second_report_id']}"
        compared = site.json(f"/v1/compare?reports={pair}")
        site.open(f"/compare?reports={pair}&itl_p99_ms=100")
        drawn = page.eval_on_selector_all(
            "figure.frontier",
            "figs => figs.map(f => [f.dataset.context,"
            " Array.from(f.querySelectorAll('path.series')).map(p => p.dataset.points)])",
        )
        points = lambda text: [[float(v) for v in p.split(",")] for p in text.split()]
        check(
            [[int(c), [points(p) for p in paths]] for c, paths in drawn]
            == [[f["context_tokens"], f["reports"]] for f in compared["frontiers"]],
            "/compare: one path per report and context, through its JSON's points",
        )
        check(all(len(paths) == 2 for _, paths in drawn) and drawn, "/compare: both reports drawn")
        check(page.locator("figure.frontier line.slo").count() == len(drawn), "/compare: the stutter limit's line")
        site.open(f"/compare?reports={report_id}", status=404)
        site.open("/reports/not-a-uuid", status=404)
        site.open("/runs/00000000-0000-0000-0000-000000000000", status=404)
        site.open("/models/no-such-model", status=404)

        # Traditional Chinese by Accept-Language, English by ?lang= over it; links keep a
        # language chosen by ?lang=.
        zh = Site(browser, {"Accept-Language": "zh-TW,zh;q=0.9,en;q=0.5"})
        for path in (
            "/",
            "/?source=community",
            f"/reports/{report_id}",
            f"/runs/{run_id}",
            f"/models/{model}",
            f"/hardware/{gpu}",
            f"/listings/{listing_id}",
            f"/calculator?{query}",
            f"/planner?{planned}",
            f"/compare?reports={pair}",
            "/getting-started",
            "/benchmarks",
            "/rent",
            "/models",
            "/hardware",
            "/reports",
            "/runs",
            "/orgs",
            f"/orgs/{FACTS['org_id']}",
            "/marketplace?sort=price",
            "/pro",
        ):
            zh.open(path)
            check(zh.page.get_attribute("html", "lang") == "zh-Hant", f"{path}: zh-Hant by header")
            check("排行榜" in zh.page.inner_text("nav") and "入門指南" in zh.page.inner_text("nav"),
                  f"{path}: Chinese labels")
        for path in ("/getting-started", "/benchmarks", "/rent"):
            zh.open(path)
            check(zh.page.locator("#untranslated").count() == 1
                  and zh.page.get_attribute("#chapter", "lang") == "en",
                  f"{path}: says its text is not translated yet")
        path = f"/reports/{report_id}"
        zh.open(path)
        matrix_matches(zh, path, measured, lang="zh-Hant")
        zh.open(path + "?lang=en")
        check(zh.page.get_attribute("html", "lang") == "en", f"{path}?lang=en: English over the header")
        own = [h for h in hrefs(zh.page, "nav a:not([hreflang])") if h.startswith("/") and not h.startswith("/docs/")]
        check(
            own and all("lang=en" in h.split("#")[0] for h in own),
            f"{path}?lang=en: every link keeps it, before any #fragment {own}",
        )
        # The calculator's form keeps a language chosen by ?lang= over the header's.
        zh.open("/calculator?lang=en")
        zh.page.select_option('select[name="gpu"]', gpu)
        zh.page.select_option('select[name="model"]', model)
        zh.page.click('#calculator button[type="submit"]')
        zh.page.wait_for_load_state("load")
        check(zh.page.get_attribute("html", "lang") == "en", "/calculator?lang=en: the form keeps English")
        site.open("/calculator?lang=zh-Hant")
        check("解碼計算器" in page.inner_text("h1"), "/calculator?lang=zh-Hant: Chinese")
        browser.close()
    if FAILURES:
        print(f"{len(FAILURES)} checks failed", file=sys.stderr)
        for failure in FAILURES:
            print(f"  {failure}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
