"""Why did my bot lose? Looking back at one seat's decisions in a recorded match.

- ``reask``: rebuild any decision of a seat from the record (its view, legal actions and
  the events it was shown) and ask a bot it again, through the one bot driver;
- ``values``: value each legal action of a seat's decision from what that seat could know
  (hidden states sampled from its view with the SDK's forward model, played on by a
  reference policy), and mark the decisions that cost it most;
- ``stored``: a seat's analysis of a stored match computed once and kept in the store
  (``arbiter.store.analyses``), for the inspector page and the CLI; a bot's costliest
  decisions across its analysed matches.

Beside ``rating`` in the layers: below the plans, above hosting (through which it runs
SDK code: the driver, the forward model, bots by name). ``reask`` and ``values`` read
records, never the store: their callers load a record through the disclosure rule;
``stored`` reads it through the one reader (``Store.read_match``) and its disclosure.
"""
