"""Fault injection for the emulator, with a ground-truth manifest kept outside the stream.

Each kind is switchable with its own rate. Dealer and procedure faults are decided while the
table plays; device faults (duplicates, reordering, drops, clock skew) are applied to the
finished event stream, as a faulty network or device would. Every injected fault is written
to ``faults.jsonl`` with the rule code the replay must report, so end-to-end tests can check
that every fault is found and nothing else is.
"""

from __future__ import annotations

import enum
import json
import random
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path


class FaultKind(enum.Enum):
    PAYOUT = "payout"  # 1: payout over or under
    VIGORISH = "vigorish"  # 2: missed, wrong percentage or wrong rounding
    THIRD_CARD = "third_card"  # 3: wrong third-card draw by either hand
    LATE_WAGER = "late_wager"  # 4: wager placed or changed after "No More Bets"
    DEFERRED_VIG = "deferred_vig"  # 5: deferred vigorish not collected or documented in time
    FORMS = "forms"  # 6: Complimentary Vigorish Form problems
    ANNOUNCEMENT = "announcement"  # 7: announced result disagrees with the cards
    SHOE = "shoe"  # 8: card count, burn count, cutting card too close to the end
    IRREGULARITY = "irregularity"  # 9: irregularity handled against the pre-selected procedure,
    # or a Chemin de Fer Banker's misdeal against 4.12(a)-(d), (i)
    DEVICE = "device"  # 10: duplicates, out-of-order delivery, dropped events, clock skew
    CARDS_CLOSE_BETS = "cards_close_bets"  # 11: a wager after the first card, "No More Bets"
    # recorded after the cards or never
    BANK = "bank"  # 12: Chemin de Fer: Banker settled on the uncovered bank, or the Player's
    # Hand's choice made by someone other than the Dominant Player
    PIT = "pit"  # 13: a Punto Banco table files and keeps to another settlement procedure
    # than the other Punto Banco tables of its pit (3.10(c)1)
    FALSE_SHUFFLE = "false_shuffle"  # 14: a slug of 20-30 cards of the table's last shoe left
    # unshuffled in the next, a confederate betting the outcomes it deals (found across shoes
    # by the pattern stage, pipeline.patterns.slugs)
    INFORMED_BETTING = "informed_betting"  # 15: a patron whose stakes follow the next outcome
    COLLUSION = "collusion"  # 16: a dealer who overpays one patron, slightly and rarely
    BANCO_PRIORITY = "banco_priority"  # 17: Chemin de Fer: the bank given past the call
    # 4.7(b)-(c) owes it, to another caller or to partial wagers
    LAST_HAND_NOT_VOIDED = "last_hand_not_voided"  # 18: Chemin de Fer: a card of the shoe's
    # last hand found face up in the shoe, and the hand dealt on and settled instead of voided
    RETURNED_STAKE = "returned_stake"  # 19: a losing wager recorded VOID, its stake returned
    PATIENT_INFORMED = "patient_informed"  # 20: a patron back at the same table every day who
    # knows the winner of a fifth of the rounds (found by the evidence of days together)
    EDGE_SORTER = "edge_sorter"  # 21: a patron back every day who reads the next card's back
    # (7, 8 or 9 or not) and bets Player on it
    CARDS_HANDED = "cards_handed"  # 22: at a table that hands the cards to the players
    # (3.7(d), 7.7(c)3), a hand handed to a player without the highest wager on it
    BANCO_SETTLEMENT = "banco_settlement"  # 23: Chemin de Fer: a wager put up beyond what the
    # pit accepted against the bank, settled on more than accepted (the amount put up) or less
    LATE_ACCEPTANCE = "late_acceptance"  # 24: Chemin de Fer: a partial wager against the
    # Banker accepted after "No More Bets"
    OVERSTATED_FORM = "overstated_form"  # 25: a Form documenting more than its seat deferred
    CROSS_PIT_SLUG = "cross_pit_slug"  # 26: a slug of 20-30 cards a table of another pit dealt,
    # carried by a confederate into a new shoe, the confederate betting the outcomes it deals
    # (found across the property's pits by the pattern stage, pipeline.patterns.slugs)
    OFFER_ORDER = "offer_order"  # 27: Chemin de Fer, at a table whose pit records declined
    # offers: the cut, the bank or a part of a bank covered whole by partial wagers taken by a
    # seat out of the offer order (a seat passed over without a decline), or the Banker who
    # passed the bank voluntarily bidding for it in the first round after nobody accepted it
    FLIPPED_RESULT = "flipped_result"  # 28: a round settled as if the other side had won:
    # winning wagers collected, losing ones paid, vigorish charged as that result would owe it
    WEAK_PAIR = "weak_pair"  # 29: a dealer who now and then overpays one patron, or returns the
    # patron's losing stake, back at the dealer's table every day (found by the pair's errors
    # of several days together, pipeline.patterns.pairs)


DEFAULT_RATES: Mapping[FaultKind, float] = {
    FaultKind.PAYOUT: 0.004,
    FaultKind.VIGORISH: 0.01,
    FaultKind.THIRD_CARD: 0.002,
    FaultKind.LATE_WAGER: 0.003,
    FaultKind.DEFERRED_VIG: 0.05,
    FaultKind.FORMS: 0.08,
    FaultKind.ANNOUNCEMENT: 0.002,
    FaultKind.SHOE: 0.05,
    FaultKind.IRREGULARITY: 0.3,
    FaultKind.DEVICE: 0.0005,
    FaultKind.CARDS_CLOSE_BETS: 0.003,
    FaultKind.BANK: 0.02,
    FaultKind.BANCO_PRIORITY: 0.05,  # per Chemin de Fer round with a call for the whole bank
    FaultKind.PIT: 0.5,  # per table-day of the one table of a pit that can depart from it
    FaultKind.FALSE_SHUFFLE: 0.05,
    FaultKind.RETURNED_STAKE: 0.001,  # per losing wager settled
    FaultKind.BANCO_SETTLEMENT: 0.02,  # per Chemin de Fer round with a wager against the Banker
    FaultKind.LATE_ACCEPTANCE: 0.02,  # per Chemin de Fer bank covered in part by two partials
    FaultKind.OVERSTATED_FORM: 0.15,  # per Form documenting a deferral
    # per Chemin de Fer shoe cut, bank passed or bank covered whole by partial wagers, with
    # seats to pass over
    FaultKind.OFFER_ORDER: 0.05,
    FaultKind.LAST_HAND_NOT_VOIDED: 0.2,  # per last hand a card can be found face up in
    FaultKind.CARDS_HANDED: 0.005,  # per hand handed to a player, with another seat wagering
    FaultKind.FLIPPED_RESULT: 0.002,  # per round won by a side, without another fault in it
    # per table: its dealer colludes, decided once per seed and table, so the same dealer
    # colludes every day; one gaming day holds enough of the pair's overpayments for the
    # pattern stage (6-table demo days of 6 and 24 hours, seeds 1-3: every pair found)
    FaultKind.COLLUSION: 0.2,
}
"""Per-opportunity rates: per round, per settlement, per shoe, per form or per event, as the
kind's opportunity arises. High enough that a few hours of a few tables show every kind."""

PATTERN_RATES: Mapping[FaultKind, float] = {
    FaultKind.INFORMED_BETTING: 0.02,
    # per table, decided once per seed and table like collusion: the same patron every day
    FaultKind.PATIENT_INFORMED: 0.3,
    FaultKind.EDGE_SORTER: 0.3,
    # per shoe of a table another pit's table can carry a slug from (TablePlan.carried_from):
    # such a table emulates that one again to know its cards, which costs a table's emulation
    FaultKind.CROSS_PIT_SLUG: 0.1,
    # per table, decided once per seed and table like the patient cheats: the same dealer and
    # patron every day
    FaultKind.WEAK_PAIR: 0.3,
}
"""Faults chosen by name (``--faults informed_betting``), not by ``all``, per opportunity: a
patron sitting down is informed. ``all`` means "everything one gaming day's audit finds", and
the informed-betting test does not find every informed patron of a full floor's day: it is
corrected for every patron's test of the day (Bonferroni), so the more patrons a day has the
stronger the evidence it needs (the 6-table, 24-hour demo day: 13 of 14 found; the one
missed at p = 8e-4 against a bar of 7e-5 on a 6-table, 4-hour day). The patient cheats are
found by the evidence of several days together, never on their first day, and a weak
dealer-patron pair mostly so (its errors are too few for one day's test). A slug carried
across pits is left out of ``all`` for its cost (see its rate)."""


PATTERN_KINDS: frozenset[FaultKind] = frozenset(
    {
        FaultKind.FALSE_SHUFFLE,
        FaultKind.INFORMED_BETTING,
        FaultKind.COLLUSION,
        FaultKind.PATIENT_INFORMED,
        FaultKind.EDGE_SORTER,
        FaultKind.CROSS_PIT_SLUG,
        FaultKind.WEAK_PAIR,
    }
)
"""Kinds only the pattern stage finds (:mod:`pipeline.patterns`), across shoes and days: a
replay of one table's events alone does not report them."""


def parse_faults(spec: str) -> dict[FaultKind, float]:
    """``none``, ``all``, or ``KIND[=RATE][,KIND[=RATE]...]`` such as ``payout,forms=0.5``."""
    spec = spec.strip().lower()
    if spec in ("", "none"):
        return {}
    if spec == "all":
        return dict(DEFAULT_RATES)
    known_rates = {**DEFAULT_RATES, **PATTERN_RATES}
    chosen: dict[FaultKind, float] = {}
    for item in spec.split(","):
        name, _, rate = item.partition("=")
        try:
            kind = FaultKind(name.strip())
        except ValueError:
            known = ", ".join(k.value for k in FaultKind)
            raise ValueError(f"unknown fault kind {name!r}; choose none, all or {known}") from None
        value = float(rate) if rate else known_rates[kind]
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"fault rate for {kind.value} must be within 0..1, got {value}")
        chosen[kind] = value
    return chosen


@dataclass(frozen=True)
class InjectedFault:
    """One line of the ground-truth manifest: ``rule_code`` is the code of the finding that
    finds it (matched by table, and by round, seat and serial where the line names them).

    A ``collusion`` overpayment is two faults: one line per overpaid wager with the wager's
    payout code and its round and seat (the replay finds it like any ``payout`` fault), and one
    line per day for the pair with ``NJ-PATTERN-DEALER-PATRON`` and no round (found once the
    patterns stage's window holds enough of the pair's errors; its detail names the pair).
    A ``weak_pair`` is written the same way, its pair's line naming the patron.
    """

    kind: str
    detail: str
    rule_code: str
    table_id: str
    round_id: str | None = None
    seat: int | None = None
    serial: int | None = None
    event_ids: tuple[str, ...] = field(default_factory=tuple)
    patron_id: str | None = None
    """The patron a pattern fault is about (an informed patron), whose evidence other codes
    may also name on later days (:data:`pipeline.reports.groundtruth.CORROBORATING`)."""

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


OWN_STREAMS: frozenset[FaultKind] = frozenset(
    {
        FaultKind.RETURNED_STAKE,
        FaultKind.PATIENT_INFORMED,
        FaultKind.EDGE_SORTER,
        FaultKind.CARDS_HANDED,
        FaultKind.BANCO_SETTLEMENT,
        FaultKind.LATE_ACCEPTANCE,
        FaultKind.OVERSTATED_FORM,
        FaultKind.CROSS_PIT_SLUG,
        FaultKind.OFFER_ORDER,
        FaultKind.FLIPPED_RESULT,
        FaultKind.WEAK_PAIR,
    }
)
"""Kinds added after seeds were chosen for what their days show (the tests' faulty days, the
README's walkthrough): each rolls, and makes its choices (:meth:`FaultPlan.draws`), from a
stream of its own, derived from the seed, so adding it leaves every other decision of a seed's
day as it was. Such a fault changes recorded amounts and the order of events, never how many
events the table emits: each event draws its time and id from the table's stream. The patient
cheats and the confederate of a slug carried across pits (:data:`PATTERN_KINDS`) are the
exception, with the weak pair's patron: switched on, they seat a patron of their own, which
changes their table's day from then on; so does ``offer_order`` where it gives the bank to
another seat, or to the bidding, or a part of the bank to the seats after the one it passes
over, and ``flipped_result`` where the flipped result owes
vigorish the true one does not (or the reverse): the vigorish is an event more (or less)."""


class FaultPlan:
    """Decides, deterministically from the seed, where faults go, and remembers them."""

    def __init__(self, rates: Mapping[FaultKind, float], rng: random.Random) -> None:
        self.rates = dict(rates)
        self.rng = rng
        self.injected: list[InjectedFault] = []
        seed = repr(rng.getstate()[1][:8])  # the seed's state, read without drawing from it
        self.streams = {kind: random.Random(f"{seed}:{kind.value}") for kind in OWN_STREAMS}

    def draws(self, kind: FaultKind) -> random.Random:
        """The stream ``kind`` rolls and chooses from: its own for :data:`OWN_STREAMS`."""
        return self.streams.get(kind, self.rng)

    def roll(self, kind: FaultKind) -> bool:
        rate = self.rates.get(kind, 0.0)
        return rate > 0.0 and self.draws(kind).random() < rate

    def record(self, fault: InjectedFault) -> None:
        self.injected.append(fault)


def write_manifest(path: Path, faults: Iterable[InjectedFault]) -> int:
    lines = [f.to_json() for f in faults]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)


def read_manifest(path: Path) -> list[InjectedFault]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            data = json.loads(line)
            data["event_ids"] = tuple(data["event_ids"])
            out.append(InjectedFault(**data))
    return out
