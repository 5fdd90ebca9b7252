"""Scripts that build halguard's claim-checking model: data (``sources``, ``contrast``, ``build_data``) and
training (``train``). Not part of the installed package; ``make train-verifier`` runs them."""
