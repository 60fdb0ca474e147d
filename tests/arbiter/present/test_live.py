"""The live part of a page (``arbiter.present.web.page_fragment``): what the event stream
hashes and the ``?fragment=1`` answer carries."""

from __future__ import annotations

import json
import subprocess

import pytest

from arbiter.present.web import LIVE_END, LIVE_SCRIPT, fragment_hash, page_fragment
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
    assert "EventSource" in LIVE_SCRIPT and '"fragment"' in LIVE_SCRIPT and '"events"' in LIVE_SCRIPT
    assert f"[{LIVE_END}]" in LIVE_SCRIPT and "location.reload" not in LIVE_SCRIPT



#: ``LIVE_SCRIPT`` in Node: the page's #live, its EventSource and its fetch made by hand, so
#: that the test decides when each event comes and each fetch answers. Reads the script on
#: stdin; plays each scenario of argv[1] on a page of its own, each a list of steps
#: (``["event", hash]``; ``["answer", hash]``: the oldest fetch under way answers that
#: fragment); prints, for each, the fetches made and the hash and fragment the page has.
_NODE_PAGE = r"""
const scenarios = JSON.parse(process.argv[1]);
let script = "";
process.stdin.on("data", (d) => { script += d; });
process.stdin.on("end", async () => {
  const out = [];
  for (const steps of scenarios) {
    const attrs = {"data-hash": "h0"};
    const live = {innerHTML: "h0", getAttribute: (k) => attrs[k] ?? null, setAttribute: (k, v) => { attrs[k] = v; },
      hasAttribute: (k) => k in attrs, querySelector: () => null, querySelectorAll: () => [], dispatchEvent: () => true};
    global.document = {getElementById: (id) => (id === "live" ? live : null)};
    global.CustomEvent = class { constructor(t) { this.type = t; } };
    let source = null, fetches = 0;
    const pending = [];
    global.window = {location: {href: "http://arena.test/play/web-1"}, scrollX: 0, scrollY: 0, scrollTo() {},
      EventSource: class { constructor() { source = this; this.listeners = {}; }
        addEventListener(t, f) { this.listeners[t] = f; } close() {} }};
    global.EventSource = window.EventSource;
    global.fetch = () => { fetches += 1; return new Promise((resolve) => pending.push(resolve)); };
    new Function(script)();
    const settle = () => new Promise((r) => setImmediate(r));
    for (const [what, hash] of steps) {
      if (what === "event") { source.onmessage({data: hash}); }
      else { pending.shift()({ok: true, headers: {get: () => hash}, text: async () => hash}); }
      for (let i = 0; i < 5; i++) { await settle(); }
    }
    out.push({fetches, current: attrs["data-hash"], shown: live.innerHTML});
  }
  console.log(JSON.stringify(out));
});
"""


@pytest.mark.e2e  # a Node process
def test_an_event_during_a_fetch_is_fetched_again_only_if_that_fetch_did_not_bring_it():
    scenarios = [
        # the fetch for h1 answers h2 (the match moved again meanwhile), and h2's event came
        # while it was under way: the page has h2, nothing more to fetch (it fetched h2 again)
        [["event", "h1"], ["event", "h2"], ["answer", "h2"]],
        # the fetch answers h1: h2 is still to come, and is fetched
        [["event", "h1"], ["event", "h2"], ["answer", "h1"], ["answer", "h2"]],
        # an event for the fragment the page has fetches nothing
        [["event", "h0"]],
    ]
    done = subprocess.run([need_node(), "-e", _NODE_PAGE, json.dumps(scenarios)], input=LIVE_SCRIPT,
                          capture_output=True, text=True, timeout=30, check=True)
    assert json.loads(done.stdout) == [{"fetches": 1, "current": "h2", "shown": "h2"},
                                       {"fetches": 2, "current": "h2", "shown": "h2"},
                                       {"fetches": 0, "current": "h0", "shown": "h0"}]
