"""The authors' own readings of the field's detectors, ported so that ``reading="reference"`` gives what their code
gives (halguard's own reading, ``reading="evidence"``, reads claims against evidence windows instead).

- :mod:`.lettucedetect`: LettuceDetect 0.2.3's ``TransformerDetector.predict(..., output_format="spans")``: its
  prompts, passage chunks, per-chunk encoding and max aggregation, span building;
- :mod:`.pair_inputs`: how each family's classifier is fed one (premise, hypothesis) pair and which class is
  support: NLI cross-encoders (sentence-transformers' ``CrossEncoder``), MiniCheck (``doc</s>claim`` as one
  string; Flan-T5's two label tokens), HHEM-2.1-open (its prompt through a flan-t5 tokenizer, class 1);
- :mod:`.minicheck`: MiniCheck's document chunks (whole sentences, about 400 pieces) and max support;
- :mod:`.hhem`: HHEM-2.1-open's weights in a module of ours on ``transformers``' T5, no remote code.

Importing this package loads neither torch nor transformers.
"""

READINGS = ("evidence", "reference")

__all__ = ["READINGS"]
