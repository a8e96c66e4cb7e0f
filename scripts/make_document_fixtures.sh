#!/usr/bin/env bash
# Makes the PDF fixtures of tests/memory/documents_test.ts with groff's PDF
# writer and qpdf (Debian: apt-get install groff qpdf), so the tests read real
# PDFs that no JavaScript library wrote: report.pdf (two pages of text, a title
# in its metadata), scanned.pdf (a page with only a drawn shape, no text layer,
# as a scan has) and locked.pdf (report.pdf behind a password). Run again only
# to change them; the files are committed.
set -euo pipefail
out="$(dirname "$0")/../tests/fixtures/documents"
mkdir -p "$out"
export SOURCE_DATE_EPOCH=1767225600 # 2026-01-01: the same bytes on every run

groff -ms -mpdfmark -Tpdf >"$out/report.pdf" <<'ROFF'
.pdfinfo /Title "Harbour Survey Report"
.TL
Harbour Survey Report
.NH
Tides and moorings
.PP
The northern pier floods twice a month at spring tide.
Boats moored at berth seven must be moved before the equinox.
.bp
.NH
Budget
.PP
The dredging contract costs forty thousand crowns.
The harbour master signs every invoice.
ROFF

groff -Tpdf >"$out/scanned.pdf" <<'ROFF'
\D'P 2i 0 0 2i -2i 0'
ROFF

# AES-256 needs a user password to open: hob has none to give.
qpdf --static-id --encrypt secret owner 256 -- "$out/report.pdf" "$out/locked.pdf"
