"""Audit logged RAG answers in bulk: ``halguard audit`` and :func:`audit` (see :mod:`halguard.audit.run`)."""

from halguard.audit.records import AuditRecord, FieldMap, InputError
from halguard.audit.run import AuditResult, audit

__all__ = ["AuditRecord", "AuditResult", "FieldMap", "InputError", "audit"]
