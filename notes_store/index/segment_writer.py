"""Fill a Whoosh segment writer without its per-posting machinery: the same segment files, a fraction of the CPU.

Whoosh's ``add_document`` runs the analyzer token by token, encodes positions per term, sizes every
posting into a sorting pool (spilled to disk and merged back), and at commit looks each posting's
document length up in a column file (with a ``stat`` per posting of a field that has no lengths).
A cold build of 100k notes spent most of its CPU there. ``FastAdder`` keeps the postings grouped by
term in arrays as documents arrive (document numbers arrive in order, so no sort is needed beyond the
terms), writes the per-document data through Whoosh's own per-document writer, and at commit hands
the posting lists to Whoosh's own postings writer a block at a time. The bytes written are those
Whoosh writes for the same documents (``tests/test_segment_writer.py`` compares the files).

Only the ``text`` field (our analyzer, positions) takes the fast analysis; the others go through
their Whoosh field's ``index`` (a few terms each). Used by the child build processes
(``parallel_build``), where nothing else touches the writer.
"""

from __future__ import annotations

from array import array
from typing import Any

from whoosh.compat import dumps
from whoosh.system import emptybytes, pack_uint
from whoosh.util.numeric import byte_to_length, length_to_byte

from ..analysis.analyzer import index_positions

TEXT_FIELD = "text"
# A document's ``text`` already analysed (``index_positions``' output): the commit of an uncommitted write
# passes the analysis its write batch made (``write_batch.analysis_of``) instead of analysing again.
TEXT_POSITIONS = "_text_positions"


class _Lists:
    """One term's postings in document order: numbers, weights, encoded values, field lengths."""

    __slots__ = ("ids", "weights", "values", "lengths")

    def __init__(self) -> None:
        self.ids: array[int] = array("I")
        self.weights: array[float] = array("d")
        self.values: list[bytes] = []
        self.lengths: list[int | None] = []


class FastAdder:
    """Adds documents to a fresh ``SegmentWriter`` and writes their postings at its commit."""

    def __init__(self, writer: Any) -> None:
        self._writer = writer
        self._schema = writer.schema
        self._perdoc = writer.perdocwriter
        self._fields: dict[str, dict[bytes, _Lists]] = {}
        self._names = {name: self._schema[name] for name in self._schema.names()}
        self._encoded: dict[int, bytes] = {}  # one-position values, shared (most postings)
        writer.pool = _NoPool()
        writer.fieldwriter.add_postings = self._write_postings

    def text_lists(self) -> dict[bytes, tuple[array[int], array[float]]]:
        """The text field's posting lists: term -> (document numbers, term frequencies)."""
        return {term: (lists.ids, lists.weights) for term, lists in self._fields.get(TEXT_FIELD, {}).items()}

    def add(self, fields: dict[str, Any]) -> None:
        """What ``SegmentWriter.add_document(**fields)`` does for a document without boosts or vectors
        (``fields[TEXT_POSITIONS]``, when present, is the analysis of ``fields["text"]``)."""
        writer = self._writer
        perdoc = self._perdoc
        docnum = writer.docnum
        perdoc.start_doc(docnum)
        try:
            for fieldname in sorted(name for name in fields if not name.startswith("_")):
                value = fields[fieldname]
                if value is None:
                    continue
                field = self._names.get(fieldname)
                if field is None:
                    raise ValueError(f"no field named {fieldname!r} in the schema")
                length = 0
                if field.indexed:
                    if fieldname == TEXT_FIELD:
                        length = self._add_text(docnum, value, fields.get(TEXT_POSITIONS))
                    else:
                        length = self._add_field(fieldname, field, docnum, value)
                perdoc.add_field(fieldname, field, value if field.stored else None, length)
                column = field.column_type
                if column:
                    perdoc.add_column_value(fieldname, column, field.to_column_value(value))
        except Exception:
            perdoc.cancel_doc()
            raise
        perdoc.finish_doc()
        writer._added = True
        writer.docnum += 1

    def _add_text(self, docnum: int, value: str, grouped: dict[str, list[int]] | None = None) -> int:
        """Postings of the text field; ``grouped`` is ``value``'s analysis when the caller has it."""
        terms = self._fields.get(TEXT_FIELD)
        if terms is None:
            terms = self._fields[TEXT_FIELD] = {}
        encoded = self._encoded
        if grouped is None:
            grouped = index_positions(value)
        length = 0
        for poslist in grouped.values():
            length += len(poslist)
        lb = length_to_byte(length) if length else 0
        doc_length = byte_to_length(lb) if lb else None  # what Whoosh's column lookup gives at commit
        for word, poslist in grouped.items():
            freq = len(poslist)
            if freq == 1:
                pos = poslist[0]
                vbytes = encoded.get(pos)
                if vbytes is None:
                    vbytes = encoded[pos] = pack_uint(1) + dumps([pos], 2)
            else:
                deltas = [poslist[0]]
                deltas.extend(b - a for a, b in zip(poslist, poslist[1:]))
                vbytes = pack_uint(freq) + dumps(deltas, 2)
            btext = word.encode("utf-8")
            lists = terms.get(btext)
            if lists is None:
                lists = terms[btext] = _Lists()
            lists.ids.append(docnum)
            lists.weights.append(float(freq))
            lists.values.append(vbytes)
            lists.lengths.append(doc_length)
        return length

    def _add_field(self, fieldname: str, field: Any, docnum: int, value: Any) -> int:
        terms = self._fields.get(fieldname)
        if terms is None:
            terms = self._fields[fieldname] = {}
        scorable = field.scorable
        length = 0
        for btext, freq, weight, vbytes in field.index(value):
            if scorable:
                length += freq
            lists = terms.get(btext)
            if lists is None:
                lists = terms[btext] = _Lists()
            lists.ids.append(docnum)
            lists.weights.append(weight)
            lists.values.append(emptybytes if vbytes is None else vbytes)
            lists.lengths.append(None)  # looked up at commit for a scorable field (none in our schema)
        return length

    def _write_postings(self, schema: Any, lengths: Any, items: Any) -> None:
        """Stands in for ``FieldWriter.add_postings`` at commit: the same calls, term lists at a time."""
        fw = self._writer.fieldwriter
        dfl = lengths.doc_field_length if lengths else None
        for fieldname in sorted(self._fields):
            terms = self._fields[fieldname]
            if not terms:
                continue  # a field every document left empty: Whoosh never starts it
            fieldobj = schema[fieldname]
            fw.start_field(fieldname, fieldobj)
            # The text field's lengths were noted as its documents came; a field that is not scorable has
            # none (Whoosh's lookup finds no column and gives 0, after a ``stat`` per posting).
            lookup = dfl is not None and fieldname != TEXT_FIELD and fieldobj.scorable
            for btext in sorted(terms):
                lists = terms[btext]
                if lookup and dfl is not None:
                    lists.lengths = [dfl(d, fieldname) for d in lists.ids]
                fw.start_term(btext)
                _feed(fw._postwriter, lists)
                fw.finish_term()
            fw.finish_field()


def _feed(pw: Any, lists: _Lists) -> None:
    """``add_posting`` for every posting of one term, a block at a time (same blocks, same statistics)."""
    limit = pw._blocklimit
    ids, weights, values, lengths = lists.ids, lists.weights, lists.values, lists.lengths
    n = len(ids)
    start = 0
    while True:
        end = min(start + limit, n)
        pw._ids = array("I", ids[start:end])
        pw._weights = array("f", weights[start:end])
        # Copies of the shared one-position values: pickle would write a repeated object as a back
        # reference, and Whoosh's blocks (each value its own object) hold them in full.
        pw._values = [bytes(memoryview(v)) for v in values[start:end] if v]
        block_lengths = [x for x in lengths[start:end] if x]
        pw._minlength = min(block_lengths) if block_lengths else None
        pw._maxlength = max(block_lengths) if block_lengths else 0
        top = max(weights[start:end]) if end > start else 0
        pw._maxweight = top if top > 0 else 0
        if end >= n:
            return  # the last block stays buffered: ``finish_postings`` inlines or writes it
        pw._write_block()
        start = end


class _NoPool:
    """The writer's posting pool, unused: the postings are the adder's."""

    def iter_postings(self) -> None:
        return None

    def add(self, item: Any) -> None:
        raise RuntimeError("postings go through FastAdder")

    def cleanup(self) -> None:
        pass
