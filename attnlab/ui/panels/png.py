"""The PNG encoder of the live panels: lossless, fast, and incremental from one picture to the next."""
import struct
import zlib

import numpy as np

from ...core import checks

__all__ = ["PNG_SIGNATURE", "PngEncoder", "png_bytes"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_bytes(rgba):
    """A PNG file of an (height, width, 4) uint8 RGBA array, lossless, built for speed: every row
    filtered "up" (its difference from the row above, which the plain backgrounds of a figure turn
    into zeros) and compressed with zlib level 1 (the PNG specification: www.w3.org/TR/png/, filter
    type 2). Measured by bench/bench_png.py on four Play panels (02, 06, 07 masks, 07 tiles; 2-core
    machine under load, 2026-11-25): 3.0x to 3.6x faster than PIL's encoder at level 1 (median 3.4x;
    e.g. 44 ms against 150 ms for 02's 1080 x 324 figure), and 2% to 5% larger (median +3.9%); PIL at
    its default level 6 is smaller still and slower. ``PngEncoder`` makes the same bytes and, fed one
    picture after another, compresses only the bands of rows that changed: the same picture again
    took 1 to 24 ms."""
    return PngEncoder().encode(rgba)


class PngEncoder:
    """``encode(rgba)`` as ``png_bytes``, remembering the last picture: the image data is one zlib
    stream of bands of BAND rows, each compressed on its own (a full flush ends it, so no band
    refers back to another: RFC 1950/1951), so a band whose filtered rows are the same as last time
    reuses its compressed bytes. After a blit most bands are. The output does not depend on what
    was encoded before."""

    BAND = 16                      # rows per band

    def __init__(self):
        self._width = None
        self._bands = []           # [(filtered bytes of the band, its compressed bytes)]

    def encode(self, rgba):
        if not isinstance(rgba, np.ndarray) or rgba.dtype != np.uint8 or rgba.ndim != 3 or rgba.shape[2] != 4:
            got = f"{rgba.dtype} array of shape {rgba.shape}" if isinstance(rgba, np.ndarray) else type(rgba).__name__
            raise checks.error("rgba", "a uint8 array of shape (height, width, 4)", got, kind=TypeError)
        height, width = rgba.shape[:2]
        if height == 0 or width == 0:
            raise checks.error("rgba", "at least one pixel", f"shape {rgba.shape}")
        rows = rgba.reshape(height, width * 4)
        filtered = np.empty((height, width * 4 + 1), np.uint8)
        filtered[:, 0] = 2                                            # filter type "up"
        filtered[0, 1:] = rows[0]                                     # the row above the first is zeros
        np.subtract(rows[1:], rows[:-1], out=filtered[1:, 1:])        # modulo 256, as the format says
        data = filtered.tobytes()
        if width != self._width:
            self._width, self._bands = width, []
        step = self.BAND * (width * 4 + 1)
        bands = []
        for i, start in enumerate(range(0, len(data), step)):
            band = data[start:start + step]
            old = self._bands[i] if i < len(self._bands) else None
            if old is None or old[0] != band:
                z = zlib.compressobj(1, zlib.DEFLATED, -15)           # raw deflate: the zlib frame is ours
                old = (band, z.compress(band) + z.flush(zlib.Z_FULL_FLUSH))
            bands.append(old)
        self._bands = bands
        # zlib header (deflate, 32K window, fastest), the bands, an empty final block, the checksum.
        stream = (b"\x78\x01" + b"".join(packed for _, packed in bands) + b"\x03\x00"
                  + struct.pack(">I", zlib.adler32(data)))
        header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)   # 8 bits, RGBA, no interlace
        return PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", stream) + _chunk(b"IEND", b"")


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
