#!/usr/bin/env python3
"""font_widths.py - print the advance-width tables of src/lib/render/svg.c.

The SVG charts place labels without a browser, so they need each label's
width. This reads the horizontal metrics of a TrueType font (the 'head',
'hhea', 'hmtx' and the Windows Unicode BMP 'cmap' format 4 tables, as the
OpenType specification describes them: https://learn.microsoft.com/typography/opentype/spec/)
and prints, in thousandths of an em rounded up, the advance of each printable
ASCII character (U+0020..U+007E) and of the basic Cyrillic block
(U+0400..U+045F), and the widest advance of Latin-1, Latin Extended-A,
Cyrillic and the dashes, quotes and ellipsis of General Punctuation
(U+2010..U+2026): the width assumed for any other character.

Usage: python3 tools/font_widths.py /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
(Debian 12 package fonts-dejavu-core 2.37-6). Standard library only.
"""
import math
import struct
import sys


def tables(font):
    n = struct.unpack(">H", font[4:6])[0]
    out = {}
    for i in range(n):
        tag, _, off, length = struct.unpack(">4sIII", font[12 + 16 * i:28 + 16 * i])
        out[tag.decode("latin-1")] = (off, length)
    return out


def cmap_bmp(font, off):
    """code point -> glyph id from the (3, 1) format 4 subtable."""
    n = struct.unpack(">H", font[off + 2:off + 4])[0]
    for i in range(n):
        pid, eid, sub = struct.unpack(">HHI", font[off + 4 + 8 * i:off + 12 + 8 * i])
        so = off + sub
        if pid != 3 or eid != 1 or struct.unpack(">H", font[so:so + 2])[0] != 4:
            continue
        seg2 = struct.unpack(">H", font[so + 6:so + 8])[0]
        segs = seg2 // 2
        ends = struct.unpack(f">{segs}H", font[so + 14:so + 14 + seg2])
        starts = struct.unpack(f">{segs}H", font[so + 16 + seg2:so + 16 + 2 * seg2])
        deltas = struct.unpack(f">{segs}h", font[so + 16 + 2 * seg2:so + 16 + 3 * seg2])
        ro = so + 16 + 3 * seg2
        ranges = struct.unpack(f">{segs}H", font[ro:ro + seg2])
        out = {}
        for s in range(segs):
            for c in range(starts[s], ends[s] + 1):
                if c == 0xFFFF:
                    continue
                if ranges[s] == 0:
                    g = (c + deltas[s]) & 0xFFFF
                else:
                    a = ro + 2 * s + ranges[s] + 2 * (c - starts[s])
                    g = struct.unpack(">H", font[a:a + 2])[0]
                    g = (g + deltas[s]) & 0xFFFF if g else 0
                out[c] = g
        return out
    raise SystemExit("no (3,1) format 4 cmap")


def main():
    font = open(sys.argv[1], "rb").read()
    t = tables(font)
    upem = struct.unpack(">H", font[t["head"][0] + 18:t["head"][0] + 20])[0]
    n_h = struct.unpack(">H", font[t["hhea"][0] + 34:t["hhea"][0] + 36])[0]
    ho = t["hmtx"][0]
    adv = [struct.unpack(">H", font[ho + 4 * i:ho + 4 * i + 2])[0] for i in range(n_h)]
    cmap = cmap_bmp(font, t["cmap"][0])

    def milli_em(c):
        return math.ceil(adv[min(cmap.get(c, 0), n_h - 1)] * 1000 / upem)

    def table(lo, hi):
        vals = [milli_em(c) for c in range(lo, hi)]
        return ",\n".join("    " + ", ".join(str(v) for v in vals[i:i + 16])
                          for i in range(0, len(vals), 16))

    print(f"/* {sys.argv[1]}: units per em {upem} */")
    print("static const uint16_t ascii_milli_em[95] = {\n" + table(0x20, 0x7F) + "\n};")
    print("static const uint16_t cyrillic_milli_em[96] = {\n" + table(0x400, 0x460) + "\n};")
    widest = max(milli_em(c) for lo, hi in ((0xA0, 0x180), (0x400, 0x460), (0x2010, 0x2027))
                 for c in range(lo, hi) if c in cmap)
    print(f"#define OTHER_MILLI_EM {widest}")


if __name__ == "__main__":
    main()
