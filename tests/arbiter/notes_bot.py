"""A test bot: the heuristic, noting at every decision what it holds (a private thing), and
at its first decision far more than a note may carry."""

from bots.heuristic import HeuristicBot


class NotingBot(HeuristicBot):
    name = "noting"

    def on_match_start(self, info):
        super().on_match_start(info)
        self.n = 0

    def choose(self, view, legal_actions):
        self.n += 1
        if self.n == 1:
            self.note("x" * 3000)
        self.note(f"decision {self.n}: I hold {' '.join(map(str, getattr(view, 'hand', ())))}")
        return super().choose(view, legal_actions)
