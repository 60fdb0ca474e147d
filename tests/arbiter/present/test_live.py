"""The live part of a page (``arbiter.present.web.page_fragment``): what the event stream
hashes and carries (``live_event``) and the page's script swaps in."""

from __future__ import annotations

import json
import subprocess

import pytest

from arbiter.present.web import LIVE_END, LIVE_SCRIPT, _mark_live, fragment_hash, live_event, live_text, page_fragment
from tests.e2e.nodejs import need_node


def test_the_fragment_is_the_inner_html_of_the_live_div_with_its_nested_divs():
    page = ('<html><body><h1>t</h1><div id="live" data-x="1"><div class="a"><div>x</div></div>'
            '<p>&lt;div&gt; in text is no tag</p><div>y</div></div><div id="after">z</div></body></html>')
    assert page_fragment(page) == '<div class="a"><div>x</div></div><p>&lt;div&gt; in text is no tag</p><div>y</div>'
    assert page_fragment("<html><p id=\"live\">a count, not a live part</p></html>") is None


def test_the_hash_follows_the_content_not_the_responses_nonce():
    a = '<p>3 matches</p><script nonce="0123abcd">x()</script>'
    b = '<p>3 matches</p><script nonce="9876fedc">x()</script>'
    assert fragment_hash(a, "0123abcd") == fragment_hash(b, "9876fedc")
    assert fragment_hash(a, "0123abcd") != fragment_hash(a.replace("3", "4"), "0123abcd")


def test_the_script_swaps_the_fragment_and_stops_at_the_end_mark():
    assert "EventSource" in LIVE_SCRIPT and '"events"' in LIVE_SCRIPT
    assert f"[{LIVE_END}]" in LIVE_SCRIPT and "location.reload" not in LIVE_SCRIPT


def test_an_event_carries_the_live_part_line_by_line_with_its_hash_as_its_id():
    fragment = '<p nonce="abc123">one</p>\r\n\r\n<pre>  two\rthree\n</pre>\n'
    text = live_text(fragment, "abc123")
    assert text == '<p nonce="">one</p>\n\n<pre>  two\nthree\n</pre>\n'  # no nonce, no CR
    assert fragment_hash(fragment, "abc123") == fragment_hash(text)
    assert live_event(fragment, "abc123") == (f"id: {fragment_hash(text)}\n" 'data: <p nonce="">one</p>\n' "data: \n"
                                              "data: <pre>  two\n" "data: three\n" "data: </pre>\n" "data: \n\n")
    # the page's own hash (data-hash) is the stream's for the same part, whatever its line breaks
    page = f'<html><div id="live">{fragment}</div></html>'
    assert f'data-hash="{fragment_hash(text)}"' in _mark_live(page, "abc123")


#: ``LIVE_SCRIPT`` in Node against a real EventSource (Node's, the WHATWG parser) reading a
#: real HTTP response: the bytes of a live page's event stream, made by the server's own
#: ``live_event``. Reads the script on stdin; plays each scenario of argv[1] (the hash the
#: page starts with, the stream's text) on a page of its own; prints, for each, the URL the
#: stream was asked for, the fetches made, each swap (the page's hash and the HTML set) and
#: whether the stream was closed (by ``end``).
_NODE_PAGE = r"""
const http = require("http");
const scenarios = JSON.parse(process.argv[1]);
let script = "";
process.stdin.on("data", (d) => { script += d; });
process.stdin.on("end", async () => {
  if (typeof EventSource === "undefined") { console.log(JSON.stringify("no EventSource")); return; }
  const Real = EventSource;
  const out = [];
  for (const [start, body] of scenarios) {
    let asked = null;
    const server = http.createServer((req, res) => {
      asked = req.url;
      res.writeHead(200, {"Content-Type": "text/event-stream"});
      res.write(body);  // and held open, as the server holds a stream till the page is final
    });
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    const base = "http://127.0.0.1:" + server.address().port + "/play/web-1";
    const attrs = {"data-hash": start}, swaps = [];
    let html = "", closed = false, fetches = 0, done;
    const finished = new Promise((r) => { done = r; });
    const live = {get innerHTML() { return html; }, set innerHTML(v) { html = v; },
      getAttribute: (k) => attrs[k] ?? null, hasAttribute: (k) => k in attrs, querySelector: () => null,
      setAttribute: (k, v) => { attrs[k] = v; swaps.push([v, html]); if (swaps.length === 2) { done(); } },
      querySelectorAll: () => [], dispatchEvent: () => true};
    global.document = {getElementById: (id) => (id === "live" ? live : null)};
    global.CustomEvent = class { constructor(t) { this.type = t; } };
    class Source extends Real { close() { closed = true; super.close(); done(); } }
    global.EventSource = Source;
    global.window = {location: {href: base + "#top"}, scrollX: 0, scrollY: 0, scrollTo() {}, EventSource: Source};
    global.fetch = () => { fetches += 1; return new Promise(() => {}); };
    new Function(script)();
    await Promise.race([finished, new Promise((r) => setTimeout(r, 5000))]);
    await new Promise((r) => setImmediate(r));
    out.push({asked, fetches, swaps, closed});
    server.closeAllConnections(); server.close();
  }
  console.log(JSON.stringify(out));
  process.exit(0);
});
"""


@pytest.mark.e2e  # a Node process
def test_the_page_swaps_in_the_part_each_event_brings_and_fetches_nothing():
    one = '<p>one</p>\r\n\r\n<pre>  two\rthree\n</pre>\n'  # CR LF, CR, empty lines, leading spaces
    two = ': no comment\nevent: no field\n\n data: none either\nid: x'  # lines that read as SSE fields
    final = f'<p>final</p><span {LIVE_END}></span>'
    h1, h2, h3 = fragment_hash(one), fragment_hash(two), fragment_hash(final)
    scenarios = [
        # two changes: each swapped in as it came, the second swap the last (no end yet)
        ["h0", "retry: 2000\n\n" + live_event(one) + ": still here\n\n" + live_event(two)],
        # a part the page has already swaps nothing; the last part, then end: the stream closed
        [h1, live_event(one) + live_event(final) + f"event: end\ndata: {h3}\n\n"],
    ]
    done = subprocess.run([need_node(), "--experimental-eventsource", "--no-warnings", "-e", _NODE_PAGE,
                           json.dumps(scenarios)], input=LIVE_SCRIPT, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout)
    if got == "no EventSource":
        pytest.skip("this Node has no EventSource (Node 20.10 or later with --experimental-eventsource has)")
    assert got == [
        {"asked": "/play/web-1?events=1&since=h0", "fetches": 0, "closed": False,
         "swaps": [[h1, live_text(one)], [h2, live_text(two)]]},
        {"asked": f"/play/web-1?events=1&since={h1}", "fetches": 0, "closed": True, "swaps": [[h3, final]]},
    ]
