"""`arbiter credentials`: the tokens of a standing arbiter (`arbiter serve`).

    arbiter credentials add-bot north        # issue a token for bot north (a running server reads it at once)
    arbiter credentials token north          # print it, for: python -m sdk --bot ... --name north --token ...
    arbiter credentials token admin          # the admin token (arbiter play --server ... --admin-token ...)
    arbiter credentials show                 # who has a token (names only, never tokens)
    arbiter credentials revoke north         # take north's token away (its open streams are closed at once)
    arbiter credentials revoke author:carol  # an author's; `revoke spectator` / `revoke admin` issue new ones
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from arbiter.server import auth
from arbiter.cli._common import CredentialsOpt, UsageError, _run, app, err, fail, out, warn_exposed

credentials_app = typer.Typer(help="The tokens of a standing arbiter: bots, authors, admin, spectators.", no_args_is_help=True)
app.add_typer(credentials_app, name="credentials")


@credentials_app.command("add-bot")
def add_bot(name: Annotated[str, typer.Argument(help="The bot's name: the identity its token stands for.")],
            credentials: CredentialsOpt = Path(auth.DEFAULT_FILE)) -> None:
    """Issue a token for bot NAME (kept if it has one) and print it."""
    creds = _issue(credentials, (name,))
    out.print(creds.bots[name], highlight=False)


@credentials_app.command("add-author")
def add_author(name: Annotated[str, typer.Argument(help="The author: who may submit, list and remove their own bots.")],
               credentials: CredentialsOpt = Path(auth.DEFAULT_FILE)) -> None:
    """Issue a Bots-service token for author NAME (kept if it has one) and print it."""
    creds = _issue(credentials, (), (name,))
    out.print(creds.authors[name], highlight=False)


@credentials_app.command("token")
def token(who: Annotated[str, typer.Argument(help="admin, spectator, a bot name, or author:NAME.")],
          credentials: CredentialsOpt = Path(auth.DEFAULT_FILE)) -> None:
    """Print one token."""
    creds = _run(_existing, credentials)
    if who == "admin":
        out.print(creds.admin, highlight=False)
    elif who == "spectator":
        out.print(creds.spectator, highlight=False)
    elif who.startswith("author:") and who[7:] in creds.authors:
        out.print(creds.authors[who[7:]], highlight=False)
    elif who in creds.bots:
        out.print(creds.bots[who], highlight=False)
    else:  # the command that issues it: an author's token is not a bot's
        issue = "add-author" if who.startswith("author:") else "add-bot"
        _run(fail, f"no token for {who[:80]!r} in {credentials} (arbiter credentials {issue} NAME --credentials {credentials})")


@credentials_app.command("revoke")
def revoke(who: Annotated[str, typer.Argument(help="a bot name, author:NAME, or admin / spectator (replaced by a new token).")],
           credentials: CredentialsOpt = Path(auth.DEFAULT_FILE)) -> None:
    """Revoke a token; a running server sees it at once.

    A bot's open streams are closed and its seats follow the disconnect policy; an author's token is refused from the next call; the admin and spectator tokens are replaced (the new one is printed)."""
    _run(_existing, credentials)
    if who in ("admin", "spectator"):
        creds = _run(auth.revoke, credentials, rotate=(who,))
        out.print(getattr(creds, who), highlight=False)
        return
    if who.startswith("author:"):
        _run(auth.revoke, credentials, authors=(who[7:],))
    else:
        _run(auth.revoke, credentials, bots=(who,))
    out.print(f"revoked {who[:80]}", highlight=False)


@credentials_app.command("show")
def show(credentials: CredentialsOpt = Path(auth.DEFAULT_FILE)) -> None:
    """Who has a token in the file (names only).

    A credentials file open to other users is made its owner's alone (0600), with a warning, as every command that reads it does; a file that is not a credentials file is refused and keeps its mode."""
    creds = _run(_existing, credentials)
    out.print(f"{credentials}: admin, spectator", highlight=False)
    out.print("bots: " + (", ".join(sorted(creds.bots)) or "none"), highlight=False)
    out.print("authors: " + (", ".join(sorted(creds.authors)) or "none"), highlight=False)


def _issue(path: Path, bots: tuple[str, ...] = (), authors: tuple[str, ...] = ()) -> auth.Credentials:
    """``auth.ensure`` for add-bot and add-author, saying on stderr what the token printed
    does not: the file was open to others (``warn_exposed``), or it was made here, new. A
    server reads only the file it was started with: `add-bot` run from another folder made
    a second file in silence, and the token it printed was refused by the running server."""
    warn_exposed(_run(auth.tighten, path))
    made = not path.exists()
    creds = _run(auth.ensure, path, bots, authors)
    if made:
        err.print(f"[yellow]note:[/] made {escape(str(path))}, new, with new admin and spectator tokens: a running server "
                  f"reads only the credentials file it was started with (this one: arbiter serve --credentials "
                  f"{escape(str(path))})", highlight=False, soft_wrap=True)
    return creds


def _existing(path: Path) -> auth.Credentials:
    if not path.exists():
        raise UsageError(f"no credentials file {path}: `arbiter serve` makes it (or pass --credentials)")
    warn_exposed(auth.tighten(path))
    return auth.read(path)

