"""Patterns no single round shows, found across shoes, tables and gaming days.

Each analyser is pure: it takes plain records the pattern stage reads from the ledger
(:mod:`pipeline.patterns.stage`) and returns :class:`~pipeline.replay.findings.Finding`
objects with codes from :data:`~pipeline.rules.codes.PATTERN_CODES`, which go through the
same exceptions queue, acknowledgements, bundles and ``audit-exceptions`` topic as the
replay's. A pattern finding states its false-alarm rate and accuses no one.

- :func:`pipeline.patterns.slugs.find_slugs` (:func:`~pipeline.patterns.slugs.slug_finding`
  for each): runs of cards a shoe dealt in the order an earlier shoe of any pit of the
  property dealt them (N.J.A.C. 19:47-3.5(a)1, 4.4(a)1, 7.5(a)).
- :func:`pipeline.patterns.informed.informed_betting`: a patron's stakes that rise on the
  rounds the wager goes on to win, per gaming day (3.2(d), 3.7(b)).
- :func:`pipeline.patterns.pairs.dealer_patron_pairs`: a dealer's payout and vigorish errors
  that gather on one patron, over the window of days (3.3, 3.10(b)).
- :func:`pipeline.patterns.evidence.accumulated_evidence`: evidence that accumulates per
  patron across the tables and days of the window, by test martingales: a preview of the
  next card (edge sorting) and informed betting (3.2(d), 3.7(b)).
- :func:`pipeline.patterns.requests.turn_request_findings`: a patron's request to turn cards,
  granted: how a preview of the cards by their backs is prepared (3.5(a), 3.6(a)).

:func:`pipeline.patterns.stage.find_patterns` runs them all for a gaming day.
"""
