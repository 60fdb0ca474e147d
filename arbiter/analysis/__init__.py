"""Why did my bot lose? Looking back at one seat's decisions in a recorded match.

- ``reask``: rebuild any decision of a seat from the record (its view, legal actions and
  the events it was shown) and ask a bot it again, through the one bot driver;
- ``values``: value each legal action of a seat's decision from what that seat could know
  (hidden states sampled from its view with the SDK's forward model, played on by a
  reference policy), and mark the decisions that cost it most.

Beside ``rating`` in the layers: below the plans, above hosting (through which it runs
SDK code: the driver, the forward model, bots by name). It reads records, never the
store: its callers load a record through the disclosure rule.
"""
