"""Never answers: its first decision blocks forever."""

import threading

from sdk import Bot


class HangBot(Bot):
    name = "hang"
    games = ("spades",)

    def choose(self, view, legal_actions):
        threading.Event().wait()
