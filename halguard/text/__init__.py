"""Text handling shared by every method: sentences, claims and citations, normalisation, contexts and chunks.

The first stage of the pipeline (answer -> claims, context -> evidence chunks); nothing here loads a model.
"""
