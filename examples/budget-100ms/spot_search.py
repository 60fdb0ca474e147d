"""The bundled ``search`` bot at Spot, at a fixed budget of about 100 ms of CPU a decision.

At Spot ``search`` (``bots/search.py``, plans ``bots/spot_search.py``) spends 400 rollouts
over 100 sampled worlds on each decision late in the hand (``spot_search.budget``): about
210 ms of CPU a decision on average over a hand on the 2-core reference machine. This
file keeps that schedule and scales the budget to fit "100 ms a decision" without a clock
(a shared machine's load would distort one): ROLLOUTS over WORLDS, measured with
``time.process_time`` (docs/strength.md, "At 100 ms a decision"). Its play is ``search``'s
own at the smaller budget; a run replays exactly whatever the load.
"""

from bots.search import SearchBot

ROLLOUTS, WORLDS = 180, 45


class SpotSearch100ms(SearchBot):
    name = "search-100ms"
    games = ("spot",)

    def on_match_start(self, info) -> None:
        super().on_match_start(info)
        self.sims, self.n_worlds = ROLLOUTS, WORLDS
