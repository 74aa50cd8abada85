"""Reading a close report's workbook (.xlsx) back in the tests: its sheets' XML by name and
their cells as text, without a spreadsheet library the project does not otherwise need."""

from __future__ import annotations

import html
import io
import re
import zipfile


def sheets(book: bytes) -> dict[str, str]:
    """Each worksheet's XML by sheet name, and the shared strings as ``"strings"``."""
    with zipfile.ZipFile(io.BytesIO(book)) as z:
        names = re.findall(
            r'<sheet name="([^"]+)" sheetId="(\d+)"', z.read("xl/workbook.xml").decode()
        )
        found = {
            html.unescape(name): z.read(f"xl/worksheets/sheet{n}.xml").decode() for name, n in names
        }
        found["strings"] = z.read("xl/sharedStrings.xml").decode()
    return found


def rows_of(sheet: str, strings_xml: str) -> list[list[str]]:
    """Each row's cells as text by column (shared strings resolved, numbers as written, an
    empty cell as ""); the close report's sheets stay within columns A-Z."""
    strings = [html.unescape(s) for s in re.findall(r"<t[^>]*>([^<]*)</t>", strings_xml)]
    rows = []
    for row in re.findall(r"<row [^>]*>(.*?)</row>", sheet, re.DOTALL):
        cells = {
            ord(column) - ord("A"): strings[int(v)] if 't="s"' in attrs else v
            for column, attrs, v in re.findall(r'<c r="([A-Z])\d+"([^>]*)><v>([^<]*)</v></c>', row)
        }
        rows.append([cells.get(i, "") for i in range(max(cells, default=-1) + 1)])
    return rows


def summary_of(found: dict[str, str]) -> dict[str, str]:
    """The Summary sheet's label -> value."""
    return {row[0]: row[1] for row in rows_of(found["Summary"], found["strings"]) if len(row) > 1}
