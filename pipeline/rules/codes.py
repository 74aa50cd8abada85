"""The rule-code table: every checkable requirement of N.J.A.C. 19:47-3, 4 and 7 this product
enforces, with a stable code. Exceptions, reports and tests cite these codes.

A code reads GAME-SECTION-SUBJECT: ``PB`` Punto Banco (subchapter 3), ``CF`` Chemin de Fer
(4), ``MB`` Minibaccarat (7), ``NJ`` the rules of subchapter 8 for all games and the
integrity of the data itself. Where Minibaccarat repeats a Punto Banco rule word for word,
its rounds cite the Punto Banco code together with the 7.x section (see
:data:`MINIBACCARAT_MIRRORS` and :func:`rule_in`): the code stays the identifier exceptions are
filtered on, and the section cited is the game's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from pipeline.rules.games import Game


class RuleCode(NamedTuple):
    code: str
    section: str
    statement: str
    mirrors: str | None = None
    """The Punto Banco section that ``section`` repeats, when a game cites a Punto Banco code
    under its own subchapter (:func:`rule_in`); ``None`` for the code's own section."""

    @property
    def citation(self) -> str:
        """``N.J.A.C. 19:47-3.3(c)4``, or ``N.J.A.C. 19:47-7.3(c)4 (mirrors 3.3(c)4)``."""
        cited = f"N.J.A.C. 19:47-{self.section}"
        return f"{cited} (mirrors {self.mirrors})" if self.mirrors else cited


# fmt: off
_TABLE: tuple[tuple[str, str, str], ...] = (
    # --- Punto Banco, subchapter 3
    ("PB-3.1a-DECKS", "3.1(a)",
     "At least six decks and two cutting cards."),
    ("PB-3.1b-VALUE", "3.1(b)",
     "2-9 count face value, ten-value cards zero, an ace one."),
    ("PB-3.1c-POINT-COUNT", "3.1(c)",
     "A hand's point count is its total's right digit, 0-9."),
    ("PB-3.2a1-BANKER", "3.2(a)1",
     "A Banker wager wins on a higher Banker count, loses on a lower one, and is void on a "
     "tie."),
    ("PB-3.3a-PLAYER", "3.2(a)2, 3.3(a)",
     "A Player wager is void on a tie and wins 1 to 1."),
    ("PB-3.3b-TIE", "3.2(a)3, 3.3(b)",
     "A tie bet wins on equal counts at odds of at least 8 to 1."),
    ("PB-3.3f-TOTAL-CARDS", "3.2(a)4, 3.3(f)",
     "Total-card wagers on 4, 5 or 6 cards pay 3 to 2, 2 to 1 and 2 to 1."),
    ("PB-3.3g-BONUS", "3.2(a)5, 3.3(g)",
     "The optional bonus wager pays a natural winner 1 to 1 and a non-natural win by 4-9 "
     "points by the chosen paytable; a natural tie is void."),
    ("PB-3.2b-WAGER-OFFERED", "3.2(b)",
     "No wager other than those the table offers."),
    ("PB-3.2d-NO-MORE-BETS", "3.2(d)",
     "No wager is made, increased or withdrawn after \"No More Bets\"."),
    ("PB-3.7b-NO-MORE-BETS-CALLED", "3.7(b)",
     "At the commencement of each round the dealer announces \"No More Bets\" before \"Cards\": "
     "at a table whose pit terminal records the announcement (records_no_more_bets), a round "
     "dealt without it on record was dealt without it."),
    ("PB-3.7b-CARDS-CLOSE-BETS", "3.2(d), 3.7(b)",
     "\"No More Bets\" comes before \"Cards\": no wager is made, increased or withdrawn once the "
     "first card of the round is dealt, whether or not the pit recorded \"No More Bets\"."),
    ("PB-3.3c-VIG", "3.3(c)",
     "A winning Banker wager pays vigorish of 4 or 5 percent of the amount won."),
    ("PB-3.3c1-VIG-ROUNDING", "3.3(c)1",
     "Rounded vigorish is 25c (5 %) or 20c (4 %) or the next highest multiple."),
    ("PB-3.3c2-VIG-DEFERRED", "3.3(c)2",
     "Deferred vigorish is marked by a marker button with the amount and stays until "
     "collected or documented."),
    ("PB-3.3c3-COMP-FORM", "3.3(c)3i",
     "Uncollected vigorish is documented on a Complimentary Vigorish Form with amount, "
     "gaming date, pit, table, patron and signatures of dealer, pit boss and pit clerk, and "
     "the patron's signature or why it is missing."),
    ("PB-3.3c3-FORM-DEFERRED", "3.3(c)2, (c)3",
     "A Form documents vigorish deferred at a seat (the marker button on that player's "
     "number) and not collected: a Form with no seat, or for a seat that owed nothing, "
     "documents nothing and is no complimentary."),
    ("PB-3.3c3i-FORM-TABLE", "3.3(c)3i",
     "The Form's gaming date, pit and table location are those of the table and day where the "
     "vigorish was deferred."),
    ("PB-3.3c3ii-FORM-SEQUENCE", "3.3(c)3ii",
     "Every Form series received is accounted for and used in sequential order."),
    ("PB-3.3c3iv-FORM-MATCH", "3.3(c)3iii-iv",
     "The original in the drop box matches the duplicate forwarded to accounting."),
    ("PB-3.3c3vi-FORM-VOID", "3.3(c)3vi",
     "Void Forms are marked VOID and signed by the pit boss and pit clerk."),
    ("PB-3.3c3vii-COMPLIMENTARY", "3.3(c)3, (c)3vii",
     "Documented uncollected vigorish is recorded as a complimentary in table game win."),
    ("PB-3.3c4-DEFERRED-DEADLINE", "3.3(c)2, (c)4",
     "Deferred vigorish is collected or documented when the shoe is completed or the patron "
     "leaves, whichever is first."),
    ("PB-3.3d-VIG-ONE-RATE", "3.3(d)",
     "One vigorish percentage applies to all players at a table."),
    ("PB-3.3e-ONE-OPTION", "3.3(e)",
     "At most one of the no-vigorish options (e)1 and (e)2."),
    ("PB-3.3e1-BANKER-SIX", "3.3(e)1",
     "No vigorish; a winning Banker 6 pays 1 to 2."),
    ("PB-3.3e2-TOTAL-CARD-COVER", "3.3(e)2",
     "No vigorish when the seat's total-card wagers are at least its Banker wager."),
    ("PB-3.3h-DRAGON-PUSH", "3.2(a)6i, 3.3(h)",
     "No vigorish; a winning three-card Banker 7 is a push."),
    ("PB-3.3i-DRAGON-7", "3.2(a)6ii, 3.3(i)",
     "The dragon 7 wager pays at least 40 to 1."),
    ("PB-3.2a6iii-DRAGON-EXCLUSIVE", "3.2(a)6iii",
     "No dragon 7 wager together with total-card or bonus wagers."),
    ("PB-3.5a-SHUFFLE-FILED", "3.5(a)",
     "Each shoe is shuffled by the option the casino filed for the table."),
    ("PB-3.5a1-SLUG", "3.5(a)1",
     "The cards are shuffled so that they are randomly intermixed: no run of cards is dealt "
     "in the order an earlier shoe dealt it (an unshuffled slug)."),
    ("PB-3.5b-SHUFFLE-PIT", "3.5(b)",
     "The shuffling option chosen under 3.5(a) is implemented at all tables within a pit: "
     "the shoes of a pit's tables are recorded as shuffled by one option."),
    ("PB-3.5c-CUT-OFFERED", "3.5(c)",
     "The stack is offered to be cut to the participants, from the highest-numbered seat "
     "clockwise, until one accepts; if none does, the dealer cuts: a cut recorded from a seat "
     "where no participant sat was made by nobody the stack could be offered to."),
    ("PB-3.5d-CUT", "3.5(d)",
     "The cutting card goes at least 10 cards from either end."),
    ("PB-3.5e-CUT-CARD-14", "3.5(e)",
     "The second cutting card is at least 14 cards from the back."),
    ("PB-3.5e-CUT-CARD-SEEN", "3.5(e), 3.8(e)",
     "The cutting card appears where it was placed in the shoe: it is recorded neither before "
     "that card nor after a hand was dealt from beyond it."),
    ("PB-3.5e-BURN", "3.5(e)",
     "The first card and as many more as its burn count (tens and faces ten, ace one) are "
     "burned."),
    ("PB-3.6b-CURATOR", "3.6(b), 3.11(b)",
     "The shoe is offered from seat 1 and passed counterclockwise."),
    ("PB-3.7c-DEAL-ORDER", "3.7(c)",
     "Cards 1 and 3 go to the Player's Hand, 2 and 4 to the Banker's."),
    ("PB-3.7d-PROCEDURE", "3.7(c)-(d)",
     "A hand's cards are handed to a player only at a table whose filed dealing procedure is "
     "3.7(d); under 3.7(c) the dealer turns them face up in front of himself."),
    ("PB-3.7d-HIGHEST-WAGER", "3.7(d)1-2, (d)5-6",
     "Under 3.7(d) each hand's two cards are handed to the player with the highest wager on "
     "that hand; of equal wagers, to the one closest to the dealer counterclockwise; with no "
     "wager on the hand, only to a player wagering on the other hand."),
    ("PB-3.7d3-THIRD-CARD", "3.7(d)3-5",
     "A third card is handed to the player who was handed and returned that hand's two "
     "cards."),
    ("PB-3.8c-THIRD-ORDER", "3.8(c)",
     "A third card goes first to the Player's Hand, then the Banker's."),
    ("PB-3.8d-ONE-MORE", "3.8(d)",
     "No more than one additional card per hand."),
    ("PB-3.8e-LAST-HAND", "3.8(e)",
     "When the cutting card appears the hand is completed, \"last hand\" is announced, and one "
     "more hand is played."),
    ("PB-3.9a-NATURAL", "3.9(a)",
     "A two-card 8 or 9 in either hand ends the deal."),
    ("PB-3.9b-TABLE1", "3.9(b)",
     "Table 1: the Player's Hand draws on 0-5 and stays on 6-9."),
    ("PB-3.9c-TABLE2", "3.9(c)-(g)",
     "Table 2: the Banker's Hand draws or stays by its count and the value of the Player's "
     "third card."),
    ("PB-3.10a-ANNOUNCE", "3.10(a)",
     "The announced counts, winner and total cards match the cards."),
    ("PB-3.10b-SETTLEMENT", "3.10(b)",
     "Losing wagers are collected first; winners are paid and vigorish marked or collected "
     "by the pit's procedure (b)1-4."),
    ("PB-3.10b5-NO-VIG-MARKED", "3.10(b)5",
     "In a no-vigorish variation no vigorish is collected or marked."),
    ("PB-3.10c1-PIT-PROCEDURE", "3.10(c)1",
     "The same settlement procedure (b)1-4 is used at all Punto Banco tables within a pit: "
     "no table's recorded settlement order keeps to a procedure another table's breaks."),
    ("PB-3.11a1-CURATOR-PASS", "3.11(a)1",
     "The curator passes the shoe when the Banker's Hand loses."),
    ("PB-3.12a-UNAUTHORIZED-THIRD", "3.12(a)",
     "An unauthorized Player third card becomes the Banker's third card if the Banker must "
     "draw, else the next hand's first card."),
    ("PB-3.12b-DRAWN-IN-ERROR", "3.12(b)",
     "An undisclosed card drawn in error is the next hand's first card."),
    ("PB-3.12c-DISCLOSED", "3.12(c)",
     "A disclosed card dealt in error is handled by the pre-selected procedure (c)1, (c)2 or "
     "(c)3."),
    ("PB-3.12c2-FACE-DOWN", "3.12(c)2",
     "Under procedure (c)2 the additional card is drawn face down and discarded undisclosed."),
    ("PB-3.12c3-SIMULATED-FIRST", "3.12(c)3",
     "Under procedure (c)3 the disclosed card is the first card of the simulated round."),
    ("PB-3.12d-FACE-UP", "3.12(d)",
     "A card face up in the shoe is discarded with as many more cards as its value."),
    ("PB-3.12e-INSUFFICIENT", "3.12(e)",
     "A round the shoe cannot complete is void."),
    ("PB-3.12e-VOID-RETURNED", "3.12(e)",
     "The wagers of a void round are returned: none is paid as a win, collected or charged "
     "vigorish."),
    ("PB-3.12e-RESHUFFLE", "3.12(e)",
     "After a round voided for insufficient cards, a new round commences only after the entire "
     "set of cards is reshuffled and placed in the shoe."),
    # --- Chemin de Fer, subchapter 4
    ("CF-4.1a-DECKS", "4.1(a)",
     "At least six decks and two cutting cards."),
    ("CF-4.4a-SHUFFLE-FILED", "4.4(a)",
     "Each shoe is shuffled by the option the casino filed for the table."),
    ("CF-4.4a1-SLUG", "4.4(a)1",
     "The cards are shuffled so that they are randomly intermixed: no run of cards is dealt "
     "in the order an earlier shoe dealt it (an unshuffled slug)."),
    ("CF-4.4b-SHUFFLE-PIT", "4.4(b)",
     "The shuffling option chosen under 4.4(a) is implemented at all tables within a pit."),
    ("CF-4.4c-CUT-OFFERED", "4.4(c)",
     "The stack is offered to be cut to the participants, from the highest-numbered seat "
     "clockwise, until one accepts; if none does, the dealer cuts: a cut recorded from a seat "
     "where no participant sat was made by nobody the stack could be offered to."),
    ("CF-4.4c-CUT-ORDER", "4.4(c)",
     "The stack is offered to be cut beginning with the participant seated in the highest "
     "number position, clockwise, to each participant until one accepts: at a table whose pit "
     "records declined offers (records_declined_offers), a participant passed over without a "
     "decline was not offered the cut in turn."),
    ("CF-4.4e-BURN", "4.4(d)-(e)",
     "Cut at least 10 from either end, second cutting card at least 14 from the back, burn "
     "the first card and its count."),
    ("CF-4.4e-CUT-CARD-SEEN", "4.4(e), 4.12(g)",
     "The cutting card appears where it was placed in the shoe: it is recorded neither before "
     "that card nor after a hand was dealt from beyond it."),
    ("CF-4.5b-BANKER-BID", "4.5(b)",
     "The highest bid becomes Banker; equal bids go to the closest to the dealer "
     "counterclockwise."),
    ("CF-4.6a-BANKER", "4.6(a), 4.10(b)",
     "The Banker's wager wins on a higher Banker count, loses on a lower one, and is void on "
     "equal counts; a winning one is paid 1 to 1 from the wagers against it."),
    ("CF-4.6b-BANKER-LIMITS", "4.6(b)",
     "The Banker's first wager is at least the bid; later wagers are at least the previous "
     "and at most twice it."),
    ("CF-4.6a-BANKER-BEFORE-CARDS", "4.6(a)",
     "The Banker places the wager in support of the Banker's Hand immediately prior to dealing "
     "the cards: none is recorded once the round's first card is dealt."),
    ("CF-4.7a-WAGERS", "4.6(a), 4.7(a)",
     "The only wagers are the Banker's (4.6(a)) and the participants' against it (4.7(a))."),
    ("CF-4.7a-AGGREGATE", "4.7(a)",
     "Wagers against the Banker never exceed, alone or together, the Banker's wager."),
    ("CF-4.7a-ACCEPTED", "4.7(a), 4.10(b)",
     "A wager against the Banker is the amount accepted against the bank: it wins or loses "
     "that amount, whatever more the participant put up."),
    ("CF-4.7b-SUIVI", "4.7(b)-(d)",
     "Banco suivi before banco seul before partial wagers counterclockwise."),
    ("CF-4.7b-SUIVI-FIRST", "4.7(b)",
     "The participant who equaled and lost the Banker's immediately preceding wager (a stand-off "
     "not counted) and calls \"Banco Suivi\" receives the wager for the whole bank."),
    ("CF-4.7c-BANCO-PRIORITY", "4.7(c)",
     "Without a qualified \"Banco Suivi\", of the participants calling \"Banco Seul\" the one "
     "seated nearest the Banker counterclockwise receives the wager for the whole bank."),
    ("CF-4.7d-PARTIAL", "4.7(d)",
     "Partial wagers against the Banker are taken only when nobody exercised banco suivi or "
     "banco seul."),
    ("CF-4.7d-PARTIAL-ORDER", "4.7(d)",
     "Partial wagers are offered beginning with the participant seated to the immediate right "
     "of the Banker, counterclockwise, until they equal the Banker's wager: at a table whose "
     "pit records declined offers (records_declined_offers), a participant before the last "
     "partial wager of a bank covered whole who neither wagered nor declined on record was "
     "passed over."),
    ("CF-4.7e-WITHDRAWN", "4.7(e)",
     "The Banker withdraws the part of the bank not covered before \"No More Bets\": the "
     "amount recorded as withdrawn is the bank less the wagers accepted against it."),
    ("CF-4.7e-UNCOVERED", "4.7(e)",
     "The Banker withdraws the part of the wager nobody covered: the Banker's stake, its win "
     "and its vigorish are the covered part only."),
    ("CF-4.8d-CARDS-CLOSE-BETS", "4.7(e), 4.8(d)",
     "The cards are dealt after \"No More Bets\" and \"Cards\": no wager is made, increased or "
     "withdrawn once the first card of the hand is dealt."),
    ("CF-4.7g-PLAYER", "4.7(g), 4.10(b)",
     "Wagers against the Banker win 1 to 1 and are void on a tie."),
    ("CF-4.8c-DOMINANT", "4.8(c)",
     "The banco suivi or seul wagerer, else the highest wagerer, controls the Player's Hand."),
    ("CF-4.8d-DEAL-ORDER", "4.8(d)",
     "Cards 1 and 3 to the Player's Hand, 2 and 4 to the Banker's."),
    ("CF-4.9a-PLAYER", "4.9(a)",
     "The Dominant Player draws on 0-4, chooses on 5, stays on 6-7; 8-9 is a natural."),
    ("CF-4.9c-TABLE3", "4.9(c)-(g)",
     "Table 3: the Banker draws, stays or chooses (\"Op.\") by its count and the value of the "
     "Player's third card."),
    ("CF-4.10a-ANNOUNCE", "4.10(a)",
     "The announced counts and winner (\"Stand Off\" or \"Tie Hand\" on equal counts) match "
     "the cards."),
    ("CF-4.10b-SETTLEMENT", "4.10(b)",
     "After the result is announced, wagers are collected and paid off at 1 to 1, each "
     "against a wager on record."),
    ("CF-4.10c-VIG", "4.10(c)",
     "Vigorish of 4 or 5 percent of the Banker's winnings, optionally rounded to 25c/20c, "
     "collected immediately."),
    ("CF-4.10c-NO-FORM", "4.10(c)",
     "Vigorish is collected immediately after each round the Banker wins: none is deferred, so "
     "no Complimentary Vigorish Form documents any."),
    ("CF-4.10d-VIG-ONE-RATE", "4.10(d)",
     "The percentage of vigorish charged at a table applies to all players at that table."),
    ("CF-4.11a1-BANK-PASS", "4.11(a)1, (b)",
     "The Banker passes the shoe when the Banker's Hand loses, to the right and "
     "counterclockwise."),
    ("CF-4.11b-PASSED-TO", "4.11(b)",
     "A bank the Banker had to give up goes to the seated participant to the Banker's right, "
     "then counterclockwise, who accepts it; that participant is the next Banker."),
    ("CF-4.11b-OFFER-ORDER", "4.11(b)-(d)",
     "A relinquished bank is offered to the seated participant to the right of the previous "
     "Banker, then to each other counterclockwise, until one accepts: at a table whose pit "
     "records declined offers (records_declined_offers), a participant passed over without a "
     "decline was not offered the bank in turn."),
    ("CF-4.11c-PASSER-BID", "4.11(c)",
     "When nobody accepts a voluntarily passed bank on its terms and it goes to the highest "
     "offer, the participant who passed the bank takes no part in the first round of that "
     "bidding."),
    ("CF-4.11c-VOLUNTARY-PASS", "4.11(c)",
     "A voluntarily passed bank goes to the first taker who matches up to twice the last "
     "wager, else the highest bidder."),
    ("CF-4.11d-PASSED-BANK-DEFEATED", "4.11(d), (b)",
     "A voluntarily passed bank that is defeated goes on as it would have under 4.11(b) had it "
     "not been passed: from the right of the Banker who passed it, never back to that Banker."),
    ("CF-4.11e-SEAT-MOVE", "4.11(e)",
     "A participant who moves to another seat that the bank, going round from the Banker's "
     "right, reaches sooner misses the turn to become the Banker in that seat."),
    ("CF-4.12a-WRONG-ORDER", "4.12(a)",
     "A hand in which the Banker took cards in the wrong order in the initial deal, an error "
     "that cannot be rectified, is annulled: void, with its wagers returned."),
    ("CF-4.12b-BANKER-EXTRA", "4.12(b)",
     "A Banker who took more than two cards in the initial deal counts zero."),
    ("CF-4.12c-PLAYER-EXTRA", "4.12(c)",
     "Three cards to the Dominant Player: the highest count of two or three cards."),
    ("CF-4.12d-BANKER-TWO", "4.12(d)",
     "A Banker taking two cards instead of one counts the lowest of two of them."),
    ("CF-4.12e-CARD-AFTER-STAY", "4.12(e)-(f)",
     "A card dealt after \"Stay\" becomes the Banker's if the Banker must (or, under (e), may) "
     "draw."),
    ("CF-4.12g-DRAWN-IN-ERROR", "4.12(g)",
     "An undisclosed card drawn in error is the next hand's first card."),
    ("CF-4.12h-DISCLOSED", "4.12(h)",
     "A disclosed card dealt in error is handled by the pre-selected procedure (h)1, (h)2 or "
     "(h)3."),
    ("CF-4.12h2-FACE-DOWN", "4.12(h)2",
     "Under procedure (h)2 the additional card is drawn face down and discarded undisclosed."),
    ("CF-4.12h3-SIMULATED-FIRST", "4.12(h)3",
     "Under procedure (h)3 the disclosed card is the first card of the simulated round."),
    ("CF-4.12i-CARD-TO-PLAYER", "4.12(i)",
     "A card the Banker draws for his hand after the Dominant Player said \"Card\" goes to the "
     "Dominant Player; the Banker then draws or stays by Table 3."),
    ("CF-4.12j-FACE-UP", "4.12(j)",
     "A card face up in the shoe is discarded with as many more as its value."),
    ("CF-4.12j-LAST-HAND-VOID", "4.12(j)",
     "The last hand of a shoe is void when a card of that hand is found face up in the shoe: "
     "its wagers are returned, none settled as a win or a loss nor charged vigorish."),
    ("CF-4.12k-INSUFFICIENT", "4.12(k)",
     "A hand the shoe cannot complete is void."),
    ("CF-4.12k-VOID-RETURNED", "4.12(k)",
     "The wagers of a void hand are returned: none is paid as a win, collected or charged "
     "vigorish."),
    ("CF-4.12k-RESHUFFLE", "4.12(k)",
     "A hand voided for insufficient cards once the cutting card is drawn is the shoe's last: "
     "no hand is dealt from that shoe after it."),
    ("CF-4.12g-CUT-CARD-HAND-LAST", "4.12(g), (j), (k)",
     "The hand in which the cutting card appears is the shoe's last: no card is kept for a "
     "next hand once the cutting card is exposed (4.12(g)), that hand is \"the last hand of a "
     "shoe\" (4.12(j), (k)), and no hand is dealt from the shoe after it."),
    ("CF-4.7e-NO-MORE-BETS", "4.7(e)",
     "No wager is made, increased or withdrawn after \"No More Bets\", except the Banker's "
     "uncovered part."),
    ("CF-4.7d-NO-MORE-BETS-CALLED", "4.7(d)-(e), 4.8(d)",
     "The dealer announces \"No More Bets\", which closes the wagers against the Banker, before "
     "\"Cards\": at a table whose pit terminal records the announcement (records_no_more_bets), "
     "a round dealt without it on record was dealt without it."),
    # --- Minibaccarat, subchapter 7
    ("MB-7.1a-DECKS", "7.1(a)",
     "At least six decks and two cutting cards."),
    ("MB-7.1d-TWO-BATCH", "7.1(d)",
     "With an automated shuffler: at least 12 decks in two equal batches of different backs, "
     "alternated shoe by shoe."),
    ("MB-7.1d4-BATCH-ALTERNATE", "7.1(d)4",
     "With the automated shuffler, one batch is dealt while the other is shuffled: the shoes "
     "alternate between the two batches."),
    ("MB-7.5b-SHUFFLE-FILED", "7.5(b)",
     "Each shoe is shuffled by the option the casino filed for the table."),
    ("MB-7.5a-SLUG", "7.5(a)",
     "The dealer shuffles the cards so that they are randomly intermixed: no run of cards is "
     "dealt in the order an earlier shoe dealt it (an unshuffled slug)."),
    ("MB-7.5c-SHUFFLE-PIT", "7.5(c)",
     "The shuffling option chosen under 7.5(b) is implemented at all tables within a pit."),
    ("MB-7.5d-CUT-OFFERED", "7.5(d)",
     "The stack is offered to be cut to the participants, from the highest-numbered seat "
     "clockwise, until one accepts; if none does, the dealer cuts: a cut recorded from a seat "
     "where no participant sat was made by nobody the stack could be offered to."),
    ("MB-7.2b-WAGER-OFFERED", "7.2(b)",
     "No wager other than those of 7.2(a) the table offers, unless the Commission approved it."),
    ("MB-7.7b-CARDS-CLOSE-BETS", "7.2(d), 7.7(b)",
     "\"No More Bets\" opens the round before the deal: no wager is made, increased or withdrawn "
     "once the first card of the round is dealt."),
    ("MB-7.3c-VIG", "7.3(c)",
     "A winning Banker wager pays 4 or 5 percent vigorish."),
    ("MB-7.3c1-VIG-ROUNDING", "7.3(c)1",
     "Rounded vigorish is 5c or the next highest multiple of 5c."),
    ("MB-7.3c3-FORM-DEFERRED", "7.3(c)2, (c)3",
     "A Form documents vigorish deferred at a seat and not collected: a Form with no seat, or "
     "for a seat that owed nothing, documents nothing and is no complimentary."),
    ("MB-7.3d-TIE-VIG", "7.2(a)1iii, 7.3(d)",
     "Optionally 25 percent of each Banker wager on a tie, instead of the (c) vigorish, "
     "collected before the next round's first card."),
    ("MB-7.3e-VIG-ONE-RATE", "7.3(e)",
     "The type and percentage of vigorish charged at a table apply to all players at that "
     "table."),
    ("MB-7.3f-NO-VIG", "7.3(f)",
     "No-vigorish options as in 3.3(e)."),
    ("MB-7.5e-CUT-CARD-SEEN", "7.5(e)",
     "The cutting card appears where it was placed in the shoe: it is recorded neither before "
     "that card nor after a hand was dealt from beyond it."),
    ("MB-7.5f-BURN", "7.5(e)-(f)",
     "Cut at least 10 from either end, second cutting card at least 14 from the back, burn "
     "the first card and its count."),
    ("MB-7.11c-DISCLOSED", "7.11(c)",
     "A disclosed card dealt in error is handled by the pre-selected procedure (c)1, (c)2 or "
     "(c)3."),
    ("MB-7.11c2-FACE-DOWN", "7.11(c)2",
     "Under procedure (c)2 the additional card is drawn face down and discarded undisclosed."),
    ("MB-7.11c3-SIMULATED-FIRST", "7.11(c)3",
     "Under procedure (c)3 the disclosed card is the first card of the simulated round."),
    ("MB-7.11d-FACE-UP", "7.11(d)",
     "A card face up in the shoe is discarded with as many more cards as its value."),
    ("MB-7.11a-UNAUTHORIZED-THIRD", "7.11(a)",
     "An unauthorized Player third card becomes the Banker's third card if the Banker must "
     "draw by Table 2 of 7.9, else the next hand's first card."),
    ("MB-7.11b-DRAWN-IN-ERROR", "7.11(b)",
     "An undisclosed card drawn in error is the next hand's first card."),
    ("MB-7.2d-NO-MORE-BETS", "7.2(d)",
     "No wager is made, increased or withdrawn after \"No More Bets\"."),
    ("MB-7.7b-NO-MORE-BETS-CALLED", "7.7(b)",
     "At the commencement of each round the dealer announces \"No More Bets\": at a table "
     "whose pit terminal records the announcement (records_no_more_bets), a round dealt "
     "without it on record was dealt without it."),
    # --- All games, subchapter 8. The given texts hold only the title of 19:47-8.2, "Minimum and
    # maximum wagers; additional wagering requirements", and 8.3 (notice of the rules of the
    # games); the limits themselves are the ones the casino filed for the table
    # (TableRules.min_wager_cents, max_wager_cents) and posted at it.
    ("NJ-8.2-TABLE-LIMITS", "8.2",
     "Every wager is at least the table's minimum and at most its maximum."),
    ("NJ-8.2-POSTED-LIMITS", "8.2",
     "The minimum and maximum wagers posted at a table are those the casino filed for it."),
    # --- Data integrity: what the devices delivered, not what the dealer did
    ("NJ-DATA-GAP", "3.7-3.10",
     "A device sequence gap: the affected round cannot be reconstructed and is marked "
     "incomplete, never guessed."),
    ("NJ-DATA-HEAD-MISSING", "3.7-3.10",
     "A table-day whose device events do not start at seq 1 (or without its TableOpened) "
     "lost its head: the rounds before the first event delivered are marked incomplete, never "
     "guessed."),
    ("NJ-DATA-DUPLICATE", "3.7-3.10",
     "An event delivered twice is applied once."),
    ("NJ-DATA-CONFLICT", "3.7-3.10",
     "Two copies of one event (the same event id) that say different things: neither is "
     "applied, the round is reconstructed without it (incomplete, never guessed) and both "
     "copies are named with where they came from."),
    ("NJ-DATA-REORDERED", "3.7-3.10",
     "Events delivered out of order are re-sequenced by the device's sequence number."),
    ("NJ-DATA-CLOCK-SKEW", "3.7-3.10",
     "A device clock ran backwards; times from that device are suspect."),
    ("NJ-DATA-DEVICE-FAULT", "3.7-3.10",
     "A fault a device reports is flagged for review with the round it names: events may be "
     "wrong though none is missing by sequence."),
    ("NJ-DATA-CONTRACT", "3.7-3.10",
     "An event that breaks the event contract (undecodable, unknown schema, or out of place) "
     "is kept as a dead letter."),
    # --- Surveillance patterns across rounds and days (pipeline.patterns). No section of the
    # given texts orders these analyses; each cites the rule its pattern would break if it were
    # what it looks like. A pattern alarm is a place to look, with its false-alarm rate, never
    # a finding that a rule was broken.
    ("NJ-PATTERN-INFORMED-BETTING", "3.2(d), 3.7(b)",
     "Surveillance pattern: a patron's stakes on a wager rise on the rounds that wager goes on "
     "to win, beyond what the exact odds allow by chance; wagers are made before \"No More "
     "Bets\" and the cards, when nobody can know the outcome."),
    ("NJ-PATTERN-INFORMED-ACCUMULATED", "3.2(d), 3.7(b)",
     "Surveillance pattern: a patron's Banker and Player wagers win beyond the exact odds, most "
     "on their larger stakes, with the evidence of every table and gaming day of the window "
     "taken together; wagers are made before \"No More Bets\" and the cards."),
    ("NJ-PATTERN-CARD-PREVIEW", "3.2(d), 3.7(b), 3.7(c)",
     "Surveillance pattern: the side a patron bets depends on the value of the next card out "
     "of the shoe (the Player's first card), which nobody may know before the wagers close: "
     "what edge sorting, or any other preview of the cards, gives."),
    # A granted request to turn cards is the preparation of a card preview, seen the day it is
    # granted. 3.6(a) (4.1(a), 7.6) is the rule it defeats: every back of one color and design,
    # so that no card can be told by its back. 3.5(a) (4.4(a), 7.5(a)) does not undo it: it
    # asks the cards randomly intermixed, and a riffle or an automatic shuffler mixes their
    # order and keeps every card's orientation.
    ("NJ-PATTERN-CARD-TURN-REQUEST", "3.5(a), 3.6(a)",
     "Surveillance pattern: the dealer granted a patron's request to turn cards. Every card's "
     "back is of the same color and design so that no card can be told by it; cards turned "
     "end for end by their value can be, where the backs are not printed symmetrically (edge "
     "sorting), and a shuffle that intermixes only their order keeps them turned."),
    ("NJ-PATTERN-DEALER-PATRON", "3.3, 3.10(b)",
     "Surveillance pattern: a dealer's payout and vigorish errors concentrate on one patron, or "
     "in that patron's favour, beyond what the dealer's own error rate explains."),
)

_BY_GAME: Mapping[str, tuple[str | None, str | None, str | None]] = {
    # subject:            (Punto Banco, Chemin de Fer, Minibaccarat)
    "decks":              ("PB-3.1a-DECKS", "CF-4.1a-DECKS", "MB-7.1a-DECKS"),
    # 3.5(a)1, 4.4(a)1, 7.5(a): "randomly intermixed"; found across shoes (pipeline.patterns)
    "false_shuffle":      ("PB-3.5a1-SLUG", "CF-4.4a1-SLUG", "MB-7.5a-SLUG"),
    "cut":                ("PB-3.5d-CUT", "CF-4.4e-BURN", "MB-7.5f-BURN"),
    "cut_offered":        ("PB-3.5c-CUT-OFFERED", "CF-4.4c-CUT-OFFERED", "MB-7.5d-CUT-OFFERED"),
    "shuffle_filed":      ("PB-3.5a-SHUFFLE-FILED", "CF-4.4a-SHUFFLE-FILED",
                           "MB-7.5b-SHUFFLE-FILED"),
    "shuffle_pit":        ("PB-3.5b-SHUFFLE-PIT", "CF-4.4b-SHUFFLE-PIT", "MB-7.5c-SHUFFLE-PIT"),
    "cut_card_14":        ("PB-3.5e-CUT-CARD-14", "CF-4.4e-BURN", "MB-7.5f-BURN"),
    "cut_card_seen":      ("PB-3.5e-CUT-CARD-SEEN", "CF-4.4e-CUT-CARD-SEEN",
                           "MB-7.5e-CUT-CARD-SEEN"),
    "burn":               ("PB-3.5e-BURN", "CF-4.4e-BURN", "MB-7.5f-BURN"),
    "no_more_bets":       ("PB-3.2d-NO-MORE-BETS", "CF-4.7e-NO-MORE-BETS", "MB-7.2d-NO-MORE-BETS"),
    "bets_after_cards":   ("PB-3.7b-CARDS-CLOSE-BETS", "CF-4.8d-CARDS-CLOSE-BETS",
                           "MB-7.7b-CARDS-CLOSE-BETS"),
    "no_more_bets_called": ("PB-3.7b-NO-MORE-BETS-CALLED", "CF-4.7d-NO-MORE-BETS-CALLED",
                            "MB-7.7b-NO-MORE-BETS-CALLED"),
    "deal_order":         ("PB-3.7c-DEAL-ORDER", "CF-4.8d-DEAL-ORDER", "PB-3.7c-DEAL-ORDER"),
    # 3.7(d) and 7.7(c)3 hand the cards to the players; Chemin de Fer's Banker deals them in
    # front of the Dominant Player and himself (4.8(d)). The given 7.7(c)3 stops at (c)3ii, so
    # the third card's rule stays on 3.7(d)3-5 there, as the draws stay on 3.8-3.9.
    "cards_handed_procedure": ("PB-3.7d-PROCEDURE", None, "PB-3.7d-PROCEDURE"),
    "cards_handed":       ("PB-3.7d-HIGHEST-WAGER", None, "PB-3.7d-HIGHEST-WAGER"),
    "third_card_handed":  ("PB-3.7d3-THIRD-CARD", None, "PB-3.7d3-THIRD-CARD"),
    "third_order":        ("PB-3.8c-THIRD-ORDER", "CF-4.8d-DEAL-ORDER", "PB-3.8c-THIRD-ORDER"),
    "one_more":           ("PB-3.8d-ONE-MORE", "CF-4.8d-DEAL-ORDER", "PB-3.8d-ONE-MORE"),
    "natural":            ("PB-3.9a-NATURAL", "CF-4.9a-PLAYER", "PB-3.9a-NATURAL"),
    "player_draw":        ("PB-3.9b-TABLE1", "CF-4.9a-PLAYER", "PB-3.9b-TABLE1"),
    "banker_draw":        ("PB-3.9c-TABLE2", "CF-4.9c-TABLE3", "PB-3.9c-TABLE2"),
    # A Banker wager that loses or is void; one that wins is settled under "vig" or a no-vig rule.
    "banker_wager":       ("PB-3.2a1-BANKER", "CF-4.6a-BANKER", "PB-3.2a1-BANKER"),
    "vig":                ("PB-3.3c-VIG", "CF-4.10c-VIG", "MB-7.3c-VIG"),
    # 7.3(f) adopts both 3.3(e) options for Minibaccarat; Chemin de Fer has neither.
    "no_vig_banker_six":  ("PB-3.3e1-BANKER-SIX", None, "MB-7.3f-NO-VIG"),
    "no_vig_cover":       ("PB-3.3e2-TOTAL-CARD-COVER", None, "MB-7.3f-NO-VIG"),
    "vig_one_rate":       ("PB-3.3d-VIG-ONE-RATE", "CF-4.10d-VIG-ONE-RATE",
                           "MB-7.3e-VIG-ONE-RATE"),
    "vig_rounding":       ("PB-3.3c1-VIG-ROUNDING", "CF-4.10c-VIG", "MB-7.3c1-VIG-ROUNDING"),
    "deferred_deadline":  ("PB-3.3c4-DEFERRED-DEADLINE", "CF-4.10c-VIG",
                           "PB-3.3c4-DEFERRED-DEADLINE"),
    "disclosed":          ("PB-3.12c-DISCLOSED", "CF-4.12h-DISCLOSED", "MB-7.11c-DISCLOSED"),
    "unauthorized_third": ("PB-3.12a-UNAUTHORIZED-THIRD", "CF-4.12e-CARD-AFTER-STAY",
                           "MB-7.11a-UNAUTHORIZED-THIRD"),
    "drawn_in_error":     ("PB-3.12b-DRAWN-IN-ERROR", "CF-4.12g-DRAWN-IN-ERROR",
                           "MB-7.11b-DRAWN-IN-ERROR"),
    "disclosed_face_down": ("PB-3.12c2-FACE-DOWN", "CF-4.12h2-FACE-DOWN",
                            "MB-7.11c2-FACE-DOWN"),
    "simulated_first":    ("PB-3.12c3-SIMULATED-FIRST", "CF-4.12h3-SIMULATED-FIRST",
                           "MB-7.11c3-SIMULATED-FIRST"),
    "face_up":            ("PB-3.12d-FACE-UP", "CF-4.12j-FACE-UP", "MB-7.11d-FACE-UP"),
    # 4.12(j)'s second sentence; 3.12(d) and 7.11(d) have only the first.
    "last_hand_face_up":  (None, "CF-4.12j-LAST-HAND-VOID", None),
    # Chemin de Fer's Banker deals himself (4.8(d)); subchapters 3 and 7 have no such rules.
    "banker_wrong_order": (None, "CF-4.12a-WRONG-ORDER", None),
    "banker_extra_initial": (None, "CF-4.12b-BANKER-EXTRA", None),
    "player_extra_initial": (None, "CF-4.12c-PLAYER-EXTRA", None),
    "banker_two_for_one": (None, "CF-4.12d-BANKER-TWO", None),
    "banker_took_player_card": (None, "CF-4.12i-CARD-TO-PLAYER", None),
    "insufficient":       ("PB-3.12e-INSUFFICIENT", "CF-4.12k-INSUFFICIENT",
                           "PB-3.12e-INSUFFICIENT"),
    "form_deferred":      ("PB-3.3c3-FORM-DEFERRED", "CF-4.10c-NO-FORM",
                           "MB-7.3c3-FORM-DEFERRED"),
    # 7.3(c)3i (the Minibaccarat text) does not ask for the gaming date, pit or location.
    "form_table":         ("PB-3.3c3i-FORM-TABLE", None, None),
    "void_returned":      ("PB-3.12e-VOID-RETURNED", "CF-4.12k-VOID-RETURNED",
                           "PB-3.12e-VOID-RETURNED"),
    "void_reshuffle":     ("PB-3.12e-RESHUFFLE", "CF-4.12k-RESHUFFLE", "PB-3.12e-RESHUFFLE"),
    # Chemin de Fer has no "last hand": 4.12(g), (j) and (k) only speak of the cutting card.
    "last_hand":          ("PB-3.8e-LAST-HAND", None, "PB-3.8e-LAST-HAND"),
    # A hand dealt after the shoe's last: 3.8(e) allows one after the hand of the cutting card,
    # Chemin de Fer's 4.12(g), (j), (k) none (Variant.hands_after_cut_card).
    "hand_after_last":    ("PB-3.8e-LAST-HAND", "CF-4.12g-CUT-CARD-HAND-LAST",
                           "PB-3.8e-LAST-HAND"),
    "announce":           ("PB-3.10a-ANNOUNCE", "CF-4.10a-ANNOUNCE", "PB-3.10a-ANNOUNCE"),
    "settlement":         ("PB-3.10b-SETTLEMENT", "CF-4.10b-SETTLEMENT", "PB-3.10b-SETTLEMENT"),
    # 3.10(c)1 binds "punto banco tables"; the given text of subchapter 7 has no pit rule for
    # the settlement procedure, and Chemin de Fer settles between participants (4.10).
    "pit_procedure":      ("PB-3.10c1-PIT-PROCEDURE", None, None),
    "wager_offered":      ("PB-3.2b-WAGER-OFFERED", "CF-4.7a-WAGERS", "MB-7.2b-WAGER-OFFERED"),
}
# fmt: on
"""Subjects the games regulate, each in its own section. Minibaccarat cites the Punto Banco
code where subchapter 7 has no code of its own for the subject (citing its 7.x section where the
given text repeats the rule, :data:`MINIBACCARAT_MIRRORS`); ``None`` is a subject the game's
subchapter does not regulate (Chemin de Fer has no "last hand")."""

# fmt: off
MINIBACCARAT_MIRRORS: Mapping[str, str] = {
    # Punto Banco code:           the 7.x text Minibaccarat has for the same rule
    "PB-3.2a1-BANKER":            "7.2(a)1",
    "PB-3.3a-PLAYER":             "7.2(a)2, 7.3(a)",
    "PB-3.3b-TIE":                "7.2(a)3, 7.3(b)",
    # 7.3(g) holds the odds 3.3(f) holds for Punto Banco
    "PB-3.3f-TOTAL-CARDS":        "7.2(a)4, 7.3(g)",
    "PB-3.3c2-VIG-DEFERRED":      "7.3(c)2",
    "PB-3.3c3-COMP-FORM":         "7.3(c)3i",
    "PB-3.3c3ii-FORM-SEQUENCE":   "7.3(c)3ii",
    "PB-3.3c3iv-FORM-MATCH":      "7.3(c)3iii-iv",
    "PB-3.3c3vi-FORM-VOID":       "7.3(c)3vi",
    "PB-3.3c3vii-COMPLIMENTARY":  "7.3(c)3, (c)3vii",
    "PB-3.3c4-DEFERRED-DEADLINE": "7.3(c)2, (c)4",
    "PB-3.7c-DEAL-ORDER":         "7.7(c)",
    # 7.7(c) offers options 1-3 as 3.7(c)-(d) offers two; (c)3i-ii hand each hand to the
    # highest wager on it, without 3.7(d)5's tie-break or (d)6 (HandingProcedure)
    "PB-3.7d-PROCEDURE":          "7.7(c)",
    "PB-3.7d-HIGHEST-WAGER":      "7.7(c)3i-ii",
}
# fmt: on
"""The Punto Banco codes a Minibaccarat table cites whose rule subchapter 7 repeats in its own
section, with that section (the older edition in the regulation texts, ``001_...``). A
Minibaccarat finding under one of these codes keeps the code and cites the 7.x section
(:func:`rule_in`). The other Punto Banco codes Minibaccarat cites (the draws of 3.8-3.9, the
announcement and settlement of 3.10, the void round of 3.12(e), the third card handed of
3.7(d)3-5) stay on their 3.x section: the given texts hold only the titles of 7.8-7.10, not the
text of 7.11(e)-(f), and 7.7(c)3 only up to (c)3ii."""

MIRRORS: Mapping[Game, Mapping[str, str]] = {Game.MINIBACCARAT: MINIBACCARAT_MIRRORS}
"""Per game, the codes of another subchapter it cites under a section of its own."""

RULE_CODES: Mapping[str, RuleCode] = {code: RuleCode(code, sec, text) for code, sec, text in _TABLE}

PATTERN_CODES: frozenset[str] = frozenset(
    {
        *(code for code in _BY_GAME["false_shuffle"] if code is not None),
        "NJ-PATTERN-INFORMED-BETTING",
        "NJ-PATTERN-INFORMED-ACCUMULATED",
        "NJ-PATTERN-CARD-PREVIEW",
        "NJ-PATTERN-CARD-TURN-REQUEST",
        "NJ-PATTERN-DEALER-PATRON",
    }
)
"""Codes found across shoes, tables and days by the pattern stage (:mod:`pipeline.patterns`),
never by the replay of one table-day: re-deriving a table-day keeps their exceptions, and the
pattern stage replaces them for a whole gaming day."""


def regulates(game: Game, subject: str) -> bool:
    """Whether ``game``'s subchapter has a rule for ``subject`` (e.g. ``"last_hand"``)."""
    pb, cf, mb = _BY_GAME[subject]
    return {Game.PUNTO_BANCO: pb, Game.CHEMIN_DE_FER: cf, Game.MINIBACCARAT: mb}[game] is not None


def code_for(game: Game, subject: str) -> str:
    """The rule code for ``subject`` (e.g. ``"burn"``) in ``game``; asking for a subject the
    game does not regulate (see :func:`regulates`) is a programming error."""
    pb, cf, mb = _BY_GAME[subject]
    code = {Game.PUNTO_BANCO: pb, Game.CHEMIN_DE_FER: cf, Game.MINIBACCARAT: mb}[game]
    if code is None:
        raise LookupError(f"{game.value} has no rule for {subject!r}; check regulates() first")
    return code


def rule(code: str) -> RuleCode:
    """The rule for ``code``; an unknown code is a programming error with a clear message."""
    try:
        return RULE_CODES[code]
    except KeyError:
        raise KeyError(f"unknown rule code {code!r}; see pipeline/rules/codes.py") from None


def rule_in(game: Game, code: str) -> RuleCode:
    """The rule for ``code`` as a ``game`` table cites it: a Punto Banco code Minibaccarat
    mirrors (:data:`MINIBACCARAT_MIRRORS`) carries the 7.x section, naming the 3.x one it
    mirrors (``N.J.A.C. 19:47-7.3(c)2, (c)4 (mirrors 3.3(c)2, (c)4)``); any other code is
    :func:`rule` of it."""
    ruled = rule(code)
    section = MIRRORS.get(game, {}).get(code)
    return ruled._replace(section=section, mirrors=ruled.section) if section else ruled
