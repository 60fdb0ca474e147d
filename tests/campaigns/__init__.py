"""The reliability campaigns' helpers (scripts/fuzz_campaign.py, scripts/chaos_campaign.py).

Not part of the test suite: nothing here is named test_*. ``mutate`` builds hostile bot
messages from the generated stubs; ``procs`` reads processes from /proc; ``failpoints``
runs the arbiter's CLI with seeded stop points for the chaos campaign.
"""
