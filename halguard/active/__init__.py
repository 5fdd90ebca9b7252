"""Active detection and repair (after "A Stitch in Time Saves Nine", Varshney et al. 2023): validate the
low-confidence concepts of each sentence while the answer is generated and repair what fails
(:class:`ActiveGenerator`); repair an answer already written (:func:`repair`); rewrite a question whose premise the
context contradicts (:func:`rectify_premise`)."""

from halguard.active.generator import ActiveGenerator, ActiveResult, ActiveSentence
from halguard.active.premise import arectify_premise, rectify_premise
from halguard.active.repair import RepairResult, arepair, arepair_decision, repair, repair_decision
from halguard.active.settings import DEFAULT_ACTIVE_SETTINGS, ActiveSettings

__all__ = ["DEFAULT_ACTIVE_SETTINGS", "ActiveGenerator", "ActiveResult", "ActiveSentence", "ActiveSettings",
           "RepairResult", "arectify_premise", "arepair", "arepair_decision", "rectify_premise", "repair",
           "repair_decision"]
