"""The live part of a page (``arbiter.present.web.page_fragment``): what the event stream
hashes and the ``?fragment=1`` answer carries."""

from __future__ import annotations

from arbiter.present.web import LIVE_END, LIVE_SCRIPT, fragment_hash, page_fragment


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
