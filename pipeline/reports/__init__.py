"""Reports built from the ledger: the gaming-day close, and the ground-truth comparison the
emulator's fault manifest allows."""
